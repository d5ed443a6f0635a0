# nginx as a test's or a bench's own process (sourced). nginx_conf DIR SERVER writes
# DIR/nginx.conf: one worker, every path (logs, pid, temp files) inside DIR, keep-alive
# without a request limit, and SERVER (the lines of a server { } block) as its only server;
# the caller puts the files to serve below DIR. nginx_start DIR then runs it in the
# foreground of a background job: its PID is $!.
nginx_conf() {
	local dir=$1 server=$2 user=
	mkdir -p "$dir/tmp"
	# As root the workers would switch to nobody, who may not read this private folder.
	[ "$(id -u)" = 0 ] && user="user root;"
	cat >"$dir/nginx.conf" <<-CONF
	$user
	worker_processes 1;
	error_log $dir/error.log;
	pid $dir/nginx.pid;
	events { worker_connections 4096; }
	http {
	  access_log off;
	  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
	  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
	  keepalive_requests 100000000;
	  default_type application/octet-stream;
	  server {
	$server
	  }
	}
	CONF
}
nginx_start() { nginx -p "$1" -c "$1/nginx.conf" -e "$1/error.log" -g 'daemon off;' & }
