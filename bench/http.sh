#!/usr/bin/env bash
# bench/http.sh: boardperf http beside wrk (and h2load, from nghttp2-client, where installed)
# against the same nginx on loopback (127.0.0.1 only), in one run: equal connections (-c) and
# threads (-T; wrk -t, h2load -t), a 100-byte, a 1 KiB and a 64 KiB file, 10, 50 and 256
# connections, closed loop.
#
# nginx is this script's own process (a config in a temporary folder, one worker process,
# keep-alive without a request limit, no access log), stopped by its PID on exit. Each round
# runs every case with the tools one after the other, their order rotating from round to
# round (the machines have two shared, noisy cores, so interleave and repeat).
#
# Layout: on two CPUs or more nginx runs on the last CPU and the clients on the others
# (taskset; PIN=0 leaves both to the scheduler). Unpinned, the same tool's rounds differed
# twofold (31,000-67,000 requests/s on /tiny) as the scheduler put nginx beside its client
# or not. Per run:
#   - requests/s as each tool reports it (boardperf --json requests.rate; wrk's
#     "Requests/sec"; h2load's "req/s" on its "finished in" line);
#   - the load generator's CPU time (user + system) from /usr/bin/time, divided by the
#     requests it completed (boardperf: requests; wrk: "N requests in"; h2load: "N succeeded"):
#     CPU microseconds per request;
#   - nginx's own CPU (utime + stime of its worker, /proc/PID/stat fields 14 and 15) per
#     request, for information: a client that batches its requests saves the server work;
#   - the client's sleeps per request (voluntary context switches, /usr/bin/time %w): on one
#     machine each sleep is a wake-up nginx pays for when it answers (about 10 us on a
#     2-core VM against nginx's own 20 us per small answer), so they explain its CPU;
#   - boardperf's CPU per request without the time its workers polled instead of sleeping
#     (cpu.local.busy_poll.seconds; docs/latency.md, "HTTP load"): its work per request;
#   - packets per request on loopback (lo's tx_packets over the client's run, every packet
#     on loopback sent once): a client whose requests or acknowledgements take more packets
#     than another's gives the server more to receive (2026-12-07: 2.000 per /tiny request
#     and 4.001 per /64k under boardperf and wrk alike);
#   - where perf can count the kernel's syscall tracepoints (root): nginx's system calls per
#     request (raw_syscalls:sys_enter on its worker) and the share of the run it was busy
#     (task-clock). Counters the host's noise cannot move: a client that makes the server
#     wake, read or write more per request shows here, and a server busy ~100 % under every
#     tool is the bottleneck, so that the req/s ratios of that case measure nginx's speed
#     from round to round, not the client's (2026-12-06: under boardperf at least 92.6 % in
#     every case; 6.03-6.12 calls per small request under all three tools: nginx opens,
#     stats, reads and closes the file, then recvfrom and writev, an epoll_wait per batch).
# Per case it prints each tool's medians and the ratios boardperf/wrk (and /h2load); the last
# line is the median over the cases and the case furthest behind beside it:
#   "median ratio boardperf/wrk requests/s: X.XX, worst W.WW (CASE); CPU per request: Y.YY,
#   worst V.VV (CASE); without polling: Z.ZZ, worst U.UU (CASE)".
#
# Usage: bench/http.sh [BOARDPERF] [ROUNDS] [SECONDS]
#        (or ROUNDS=5 SECONDS=3 in the environment; NGINX_PORT=25221; PIN=0; CASES="PATH:C:T ...")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/nginx_bench.sh"

bench_args 5 "$@"
port=${NGINX_PORT:-25221}
clk=$(getconf CLK_TCK)

need /usr/bin/time time
need nginx
need wrk
need pgrep procps
# perf's syscall counts on nginx's worker where this user may read the tracepoints
counts=0
if command -v perf >/dev/null &&
	perf stat -x, -e raw_syscalls:sys_enter -o /dev/null true >/dev/null 2>&1; then counts=1; fi
tools=(boardperf wrk)
if command -v h2load >/dev/null; then tools+=(h2load); else
	echo "bench/http.sh: no h2load (Debian package nghttp2-client, in \`make deps-bench\`): wrk only" >&2
fi

bench_nginx "$port"

# client_cmd TOOL PATH CONNS THREADS
client_cmd() {
	local url=http://127.0.0.1:$port$2
	case $1 in
	boardperf) echo "$bp" http "$url" -c "$3" -T "$4" -t "$secs" -i 0 --json ;;
	wrk) echo wrk -c "$3" -t "$4" -d "${secs}s" "$url" ;;
	h2load) echo h2load --h1 -c "$3" -t "$4" -D "$secs" "$url" ;;
	esac
}

# parse TOOL FILE: "requests/s requests [seconds polled]" from a tool's output
parse() {
	case $1 in
	boardperf)
		jq -r '[(.metrics[] | select(.name == "requests.rate") | .value),
		        (.metrics[] | select(.name == "requests") | .value),
		        (.cpu.local.busy_poll.seconds // 0)] | "\(.[0]) \(.[1]) \(.[2])"' "$2" ;;
	wrk)
		awk '/requests in/ { n = $1 } /^Requests\/sec:/ { r = $2 } END { print r, n }' "$2" ;;
	h2load)
		awk '/^finished in/ { r = $4 } /^requests:/ { for (i = 1; i < NF; i++)
			if ($(i + 1) ~ /^succeeded/) n = $i } END { print r, n }' "$2" ;;
	esac
}

# lo_packets: packets loopback has sent (empty where the counter cannot be read)
lo_packets() { cat /sys/class/net/lo/statistics/tx_packets 2>/dev/null || true; }

# one_run ROUND TOOL CASE: records requests/s, CPU us/request (client), nginx us/request
one_run() {
	local r=$1 tool=$2 c=$3 path conns threads out rate n polled cc n0 n1 k0 k1 rc=0
	IFS=: read -r path conns threads <<<"$c"
	out=$tmp/out.$tool.$r
	# shellcheck disable=SC2046
	set -- $(client_cmd "$tool" "$path" "$conns" "$threads")
	n0=$(cpu_ticks "$worker")
	local perf_pid=
	if ((counts)); then
		perf stat -x, -e raw_syscalls:sys_enter,task-clock -p "$worker" -o "$out.perf" &
		perf_pid=$!
		sleep 0.2  # perf attaches before the client's first request
	fi
	k0=$(lo_packets)
	/usr/bin/time -f '%U %S %w' -o "$out.time" timeout $((secs + 30)) "${cli_pin[@]}" "$@" \
		>"$out" 2>"$out.err" || rc=$?
	k1=$(lo_packets)
	n1=$(cpu_ticks "$worker")
	if [[ -n $perf_pid ]]; then
		kill -INT "$perf_pid" 2>/dev/null || true
		wait "$perf_pid" || true
		[[ -s $out.perf ]] || perf_pid=  # perf ended without its counts: this run has none
	fi
	read -r rate n polled < <(parse "$tool" "$out" 2>/dev/null || true) || true
	if ((rc != 0)) || ! [[ ${rate:-} =~ ^[0-9.e+]+$ && ${n:-} =~ ^[0-9]+$ ]] || ((n == 0)); then
		printf 'round %d %-16s %-9s FAILED (exit %d): %s\n' "$r" "$c" "$tool" "$rc" \
			"$(tail -n 2 "$out.err" "$out" 2>/dev/null | tr '\n' ' ' | cut -c1-200)"
		return 0
	fi
	read -r cc sl < <(awk -v n="$n" '/^[0-9.]+ [0-9.]+ [0-9]+$/ {
		printf "%.3f %.3f\n", ($1 + $2) * 1e6 / n, $3 / n }' "$out.time")
	echo "$rate" >>"$tmp/$c.$tool.rate"
	echo "$cc" >>"$tmp/$c.$tool.cpu"
	# CPU per request without the time boardperf's workers polled (0 for the others)
	awk -v c="$cc" -v p="${polled:-0}" -v n="$n" 'BEGIN { printf "%.3f\n", c - p * 1e6 / n }' \
		>>"$tmp/$c.$tool.work"
	echo "$sl" >>"$tmp/$c.$tool.sleeps"
	if [[ $k0 =~ ^[0-9]+$ && $k1 =~ ^[0-9]+$ ]]; then
		awk -v k=$((k1 - k0)) -v n="$n" 'BEGIN { printf "%.3f\n", k / n }' >>"$tmp/$c.$tool.pkts"
	fi
	awk -v t="$((n1 - n0))" -v k="$clk" -v n="$n" 'BEGIN { printf "%.3f\n", t / k * 1e6 / n }' \
		>>"$tmp/$c.$tool.srv"
	local calls=""
	if [[ -n $perf_pid ]]; then
		# nginx's calls per request, and its busy share of the client's run (+ perf's 0.2 s)
		awk -F, -v n="$n" -v s="$secs" -v c="$tmp/$c.$tool.calls" -v b="$tmp/$c.$tool.busy" '
			/raw_syscalls/ { k = $1 } /task-clock/ { t = $1 }
			END { printf "%.3f\n", k / n >>c; printf "%.1f\n", t / 10 / (s + 0.2) >>b }' \
			"$out.perf"
		calls=", $(tail -n 1 "$tmp/$c.$tool.calls") calls, busy $(tail -n 1 "$tmp/$c.$tool.busy") %"
	fi
	printf 'r%d %-11s %-9s %6.0f/s CPU %5.2f us, %4.2f sleeps, nginx %5.2f us/req%s\n' \
		"$r" "$c" "$tool" "$rate" "$cc" "$sl" "$(tail -n 1 "$tmp/$c.$tool.srv")" "$calls"
}

cases=${CASES:-"/tiny:10:1 /tiny:50:2 /tiny:256:2 /1k:10:1 /1k:50:2 /64k:10:1 /64k:50:2"}
echo "HTTP/1.1 on loopback against nginx $(nginx -v 2>&1 | sed 's/.*\///'), one worker;" \
	"${secs} s per run, $rounds rounds, $ncpu CPUs ($layout);"
echo "$("$bp" --version | head -1) vs" \
	"wrk $(dpkg-query -W -f '${Version}' wrk 2>/dev/null || echo '?')" \
	"${tools[2]:+and h2load $(dpkg-query -W -f '${Version}' nghttp2-client 2>/dev/null || echo '?')}"
echo "cases: PATH:CONNECTIONS:THREADS"
for ((r = 1; r <= rounds; r++)); do
	for c in $cases; do
		for ((k = 0; k < ${#tools[@]}; k++)); do
			one_run "$r" "${tools[$(((r - 1 + k) % ${#tools[@]}))]}" "$c"
		done
	done
done

med() { if [[ -s $1 ]]; then median <"$1"; else echo nan; fi; }
ratio_or_nan() { if [[ $1 == nan || $2 == nan ]]; then echo nan; else ratio "$1" "$2"; fi; }
two() { if [[ -s $1 ]]; then median <"$1" | awk '{ printf "%.2f\n", $1 }'; else echo nan; fi; }

echo
# per tool: req/s, its CPU us per request, its sleeps per request, nginx's CPU us, packets
# per request on loopback, nginx's calls per request and busy share (the last two where perf
# counts: "-" otherwise)
printf '%-13s %-9s %8s %8s %7s %7s %5s %6s %5s\n' case tool "req/s" "CPU us" sleeps "ngx us" \
	pkts calls "busy%"
for c in $cases; do
	for tool in "${tools[@]}"; do
		printf '%-13s %-9s %8.0f %8s %7s %7s %5s %6s %5s\n' "$c" "$tool" \
			"$(med "$tmp/$c.$tool.rate")" "$(two "$tmp/$c.$tool.cpu")" \
			"$(two "$tmp/$c.$tool.sleeps")" "$(two "$tmp/$c.$tool.srv")" \
			"$(two "$tmp/$c.$tool.pkts" | sed 's/^nan$/-/')" \
			"$(if [[ -s $tmp/$c.$tool.calls ]]; then median <"$tmp/$c.$tool.calls"; else echo -; fi)" \
			"$(if [[ -s $tmp/$c.$tool.busy ]]; then median <"$tmp/$c.$tool.busy"; else echo -; fi)"
		[[ -s $tmp/$c.$tool.busy ]] && echo "$(median <"$tmp/$c.$tool.busy") $c" >>"$tmp/busy.$tool"
	done
	for tool in "${tools[@]:1}"; do
		rr=$(ratio_or_nan "$(med "$tmp/$c.boardperf.rate")" "$(med "$tmp/$c.$tool.rate")")
		rc=$(ratio_or_nan "$(med "$tmp/$c.boardperf.cpu")" "$(med "$tmp/$c.$tool.cpu")")
		rw=$(ratio_or_nan "$(med "$tmp/$c.boardperf.work")" "$(med "$tmp/$c.$tool.cpu")")
		printf '%-13s bp/%s: req/s %s, CPU/req %s, %s without polling\n' "$c" "$tool" \
			"$rr" "$rc" "$rw"
		[[ $rr != nan ]] && echo "$rr $c" >>"$tmp/r.$tool.rate"
		[[ $rc != nan ]] && echo "$rc $c" >>"$tmp/r.$tool.cpu"
		[[ $rw != nan ]] && echo "$rw $c" >>"$tmp/r.$tool.work"
		if [[ -s $tmp/$c.boardperf.pkts && -s $tmp/$c.$tool.pkts ]]; then
			echo "$(ratio "$(median <"$tmp/$c.boardperf.pkts")" \
				"$(median <"$tmp/$c.$tool.pkts")") $c" >>"$tmp/r.$tool.pkts"
		fi
		if [[ -s $tmp/$c.boardperf.calls && -s $tmp/$c.$tool.calls ]]; then
			echo "$(ratio "$(median <"$tmp/$c.boardperf.calls")" \
				"$(median <"$tmp/$c.$tool.calls")") $c" >>"$tmp/r.$tool.calls"
		fi
	done
done
echo
[[ ${tools[2]:-} ]] && echo "median ratio boardperf/h2load requests/s: $(two "$tmp/r.h2load.rate")," \
	"worst $(worst "$tmp/r.h2load.rate" higher); CPU per request: $(two "$tmp/r.h2load.cpu")," \
	"worst $(worst "$tmp/r.h2load.cpu" lower); without polling: $(two "$tmp/r.h2load.work")," \
	"worst $(worst "$tmp/r.h2load.work" lower)"
if [[ -s $tmp/busy.boardperf ]]; then
	# each tool's least busy nginx over the cases: near 100 % under every tool, the server is
	# the bottleneck and that case's req/s ratios are nginx's own spread from round to round
	printf 'nginx busy, lowest over the cases (median of the rounds):'
	for tool in "${tools[@]}"; do
		printf ' %s %s' "$tool" "$(sort -g "$tmp/busy.$tool" | head -n 1 | awk '{ printf "%s %% (%s)", $1, $2 }')"
	done
	echo
	echo "nginx calls per request boardperf/wrk: $(two "$tmp/r.wrk.calls"), worst" \
		"$(worst "$tmp/r.wrk.calls" lower)${tools[2]:+; /h2load: $(two "$tmp/r.h2load.calls"), worst $(worst "$tmp/r.h2load.calls" lower)}"
fi
if [[ -s $tmp/r.wrk.pkts ]]; then
	h2=
	[[ -s $tmp/r.h2load.pkts ]] &&
		h2="; /h2load: $(two "$tmp/r.h2load.pkts"), worst $(worst "$tmp/r.h2load.pkts" lower)"
	echo "packets per request on loopback boardperf/wrk: $(two "$tmp/r.wrk.pkts"), worst" \
		"$(worst "$tmp/r.wrk.pkts" lower)$h2"
fi
echo "median ratio boardperf/wrk requests/s: $(two "$tmp/r.wrk.rate"), worst" \
	"$(worst "$tmp/r.wrk.rate" higher); CPU per request: $(two "$tmp/r.wrk.cpu"), worst" \
	"$(worst "$tmp/r.wrk.cpu" lower); without polling: $(two "$tmp/r.wrk.work"), worst" \
	"$(worst "$tmp/r.wrk.work" lower)"
