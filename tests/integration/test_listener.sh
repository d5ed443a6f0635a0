#!/usr/bin/env bash
# A listener that is not a boardperf or iperf3 server (issue 15, item 10): a silent one and a
# foreign one (an HTTP-ish responder, and nginx when installed), all on loopback ports the
# kernel picked, started here and stopped by PID. tcp, udp and rr must each end within
# --connect-timeout + 0.5 s (beside their own start and end) with exit 1 and one line that
# says what the listener did.
# Usage: test_listener.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/nginx.sh"

pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tap_tmp"; }  # this trap replaces tap.sh's
trap cleanup EXIT

# listener MODE: a loopback listener on a free port for 30 s at most; its port on stdout.
# silent: accepts and never writes; http: reads what came, answers a 400 and closes.
listener() {
	python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16); s.settimeout(0.5)
print(s.getsockname()[1], flush=True)
end, held = time.time() + 30, []
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    if sys.argv[1] == "silent":
        held.append(c)
        continue
    c.settimeout(1)
    try:
        c.recv(64)
    except OSError:
        pass
    c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    c.close()
' "$1" >"$tap_tmp/port.$1" &
	pids+=($!)
	for _ in $(seq 50); do [ -s "$tap_tmp/port.$1" ] && break; sleep 0.1; done
}

# A port nobody listens on (reserved, never bound): a connect there is refused at once, so
# a client's run against it is what the process costs before and after its wait.
bp_ports 1; closed=$BP_PORT  # tap.sh

# run_ms CLIENT PORT TIMEOUT: one run's wall time in ms (its exit code in rc, stderr in err)
run_ms() {
	local t0
	t0=$(date +%s%N)
	"$bp" "$1" -c 127.0.0.1 -p "$2" -t 1 --connect-timeout "$3" >/dev/null 2>"$tap_tmp/err"
	rc=$?
	echo $(( ($(date +%s%N) - t0) / 1000000 )) >"$tap_tmp/ms"
	err=$(cat "$tap_tmp/err")
}

# expect NAME PORT TIMEOUT MESSAGE: every client ends in time, exit 1, exactly MESSAGE. In
# time: within TIMEOUT + 0.5 s of waiting, beside what the same client took to start and
# end against a refused port just before (ASan's start on a busy host: 0.15-0.37 s here,
# and the 0.5 s alone ran out in CI run 44 at 2,132 ms for a 1.5 s timeout).
expect() {
	local name=$1 port=$2 to=$3 msg=$4 t ms base rc err
	for t in tcp udp rr; do
		run_ms "$t" "$closed" "$to"; base=$(cat "$tap_tmp/ms")
		run_ms "$t" "$port" "$to"; ms=$(cat "$tap_tmp/ms")
		[ "$rc" -eq 1 ] &&
			[ "$ms" -le "$(awk -v t="$to" -v b="$base" 'BEGIN { print t * 1000 + 500 + b }')" ] &&
			[ "$err" = "boardperf $t: error: ${msg//PORT/$port}" ]
		ok $? "$name, $t: exit $rc after $ms ms (--connect-timeout $to; $base ms to start and end): $err"
	done
}

listener silent
listener http
sport=$(cat "$tap_tmp/port.silent"); hport=$(cat "$tap_tmp/port.http")
expect "silent listener" "$sport" 1.5 \
	"127.0.0.1:PORT accepted the connection but sent nothing within 1.5 s: not a boardperf or iperf3 server?"
expect "HTTP responder" "$hport" 3 \
	"127.0.0.1:PORT answered, but not as a boardperf or iperf3 server (it sent \"HTTP/1.1 400 Bad Request\")"

# nginx, the test's own, on a free loopback port: it answers the cookie (a NUL is no HTTP)
ngx=$tap_tmp/nginx
bp_ports 1; nport=$BP_PORT  # tap.sh
if command -v nginx >/dev/null; then
	nginx_conf "$ngx" "listen 127.0.0.1:$nport; location / { return 200; }"
	nginx_start "$ngx"
	pids+=($!)
	for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$nport") 2>/dev/null && break; sleep 0.1; done
	expect "nginx" "$nport" 3 \
		"127.0.0.1:PORT answered, but not as a boardperf or iperf3 server (it sent \"HTTP/1.1 400 Bad Request\")"
else
	for t in tcp udp rr; do skip "nginx, $t" "needs nginx"; done
fi
tap_done
