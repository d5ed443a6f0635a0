# The nginx that the HTTP benches run against (sourced after lib.sh, by http.sh and
# http_rate.sh). bench_nginx PORT: a temporary folder ($tmp, removed on exit) with a 100 B
# (/tiny), a 1 KiB (/1k) and a 64 KiB (/64k) file, nginx serving it on 127.0.0.1:PORT with one
# worker (tests/integration/nginx.sh's config), stopped by its PID on exit. On two CPUs or
# more nginx runs on the last and the clients on the others (srv_pin, cli_pin: taskset
# prefixes; PIN=0 leaves both to the scheduler); layout says which, ncpu how many CPUs,
# worker is nginx's worker process.
. "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/nginx.sh"

tmp= ngx_pid=
bench_nginx_cleanup() {
	if [[ -n $ngx_pid ]]; then
		kill -TERM "$ngx_pid" 2>/dev/null || true
		wait "$ngx_pid" 2>/dev/null || true
	fi
	[[ -z $tmp ]] || rm -rf "$tmp"
}

bench_nginx() {
	local port=$1 i
	tmp=$(mktemp -d)
	trap bench_nginx_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	listening "$port" && die "port $port is already in use; set another with NGINX_PORT"
	mkdir -p "$tmp/html"
	head -c 100 /dev/zero >"$tmp/html/tiny"
	head -c 1024 /dev/zero >"$tmp/html/1k"
	head -c 65536 /dev/urandom >"$tmp/html/64k"
	nginx_conf "$tmp" "    listen 127.0.0.1:$port; root $tmp/html;"
	ncpu=$(nproc)
	srv_pin=() cli_pin=() layout="unpinned"
	if [[ ${PIN:-1} != 0 ]] && ((ncpu >= 2)); then
		srv_pin=(taskset -c $((ncpu - 1))) cli_pin=(taskset -c "0-$((ncpu - 2))")
		layout="nginx on CPU $((ncpu - 1)), clients on CPU 0-$((ncpu - 2))"
	fi
	# nginx_start's command, through the layout's taskset (which execs nginx: $! is nginx's)
	"${srv_pin[@]}" nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/error.log" -g 'daemon off;' &
	ngx_pid=$!
	for ((i = 0; i < 50; i++)); do listening "$port" && break; sleep 0.1; done
	listening "$port" ||
		die "nginx does not listen on 127.0.0.1:$port: $(tail -n 3 "$tmp/error.log")"
	worker=$(pgrep -P "$ngx_pid" | head -n 1)
	[[ -n $worker ]] || die "no nginx worker process under PID $ngx_pid"
}
