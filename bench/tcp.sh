#!/usr/bin/env bash
# bench/tcp.sh: boardperf tcp/serve beside iperf3 and iperf2 on loopback (127.0.0.1 only), in
# one run: 1 and 4 streams, both directions (the client sends; the server sends: boardperf -R,
# iperf3 -R, iperf2 --reverse where the installed iperf2 has it; iperf2's -r is a different,
# sequential "tradeoff" test and is not used).
#
# Each round runs every case (streams x direction) with the three tools one after the other,
# the order of the tools rotating from round to round (the machines have two shared, noisy
# cores, so interleave and repeat). Per test it records the receiver's throughput and bytes as
# each tool reports them, and the CPU time (user + system) of the client process and of the
# server process together:
#   - the servers are background processes started here, one per tool on its own port, and
#     stopped by PID on exit; their CPU is utime + stime from /proc/PID/stat (fields 14 and 15,
#     clock ticks) read before and after each test (all threads of the process are included);
#   - the client runs under /usr/bin/time (its rusage, children included).
# CPU-seconds per GB = (client + server CPU seconds) / (receiver bytes / 1e9).
# Server memory: VmRSS and RssAnon from /proc/PID/status right after each 4-stream test
# (median), for boardperf serve beside iperf3 -s (and iperf2 -s for information). Give it the
# shipped static binary (make dist: dist/boardperf-VERSION-amd64): a development build maps
# its shared libraries (OpenSSL, SQLite, ...) as well, ~1.5 MiB of RSS.
#
# Parsing: boardperf --json (receiver.bitrate, receiver.bytes); iperf3 -J
# (end.sum_received.bits_per_second and .bytes, the sum over streams with -P); iperf2 -y C
# (field 8 bytes, field 9 bit/s; Debian's iperf 2.1.8 prints one CSV line per stream and no
# [SUM] line in CSV mode, so the streams are summed; a SUM line, stream id -1, is used where a
# version prints one). For iperf2 the client's figures are taken: in the client-sends case
# they count what it wrote, which on loopback equals what the server received (the server's
# per-stream byte counts match the client's exactly).
#
# Then -P 32 -t 1 with boardperf and iperf3 in turn: wall time and both ends' figures.
#
# Per case it prints each tool's median throughput and CPU/GB and the ratios boardperf/iperf3
# and boardperf/iperf2 of those medians; the closing lines are the median of these ratios over
# the cases, the last one "median ratio boardperf/iperf3 throughput: X.XX".
#
# Usage: bench/tcp.sh [BOARDPERF] [ROUNDS] [SECONDS]
#        (or ROUNDS=3 SECONDS=3 in the environment; ports BP_PORT=25211 IPERF3_PORT=25212
#        IPERF2_PORT=25213)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bench_args 3 "$@"
host=127.0.0.1
bp_port=${BP_PORT:-25211}
ip3_port=${IPERF3_PORT:-25212}
ip2_port=${IPERF2_PORT:-25213}
clk=$(getconf CLK_TCK)
settle=0.3 # seconds after a client exits before the server's CPU is read (tear-down)

need /usr/bin/time time
need iperf3
need iperf
need pgrep procps

ip3_version=$(dpkg-query -W -f '${Version}' iperf3 2>/dev/null || echo unknown)
ip2_version=$(dpkg-query -W -f '${Version}' iperf 2>/dev/null || echo unknown)
# iperf2 2.1.x has -R/--reverse (the server sends on the same connection); older ones only -r.
# (Read the help whole: grep -q would close the pipe early and pipefail would see SIGPIPE.)
ip2_help=$(iperf --help 2>&1 || true)
if grep -q -- '--reverse' <<<"$ip2_help"; then ip2_reverse=1; else ip2_reverse=0; fi

tmp=$(mktemp -d)
cleanup() { stop_servers; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# CPU ticks of the kernel's softirq threads (ksoftirqd/N): network work they do is charged to
# neither tool's process; shown beside the figures, not counted in CPU/GB.
sirq_pids=$(pgrep -x 'ksoftirqd/[0-9]+' || true)
softirq_ticks() {
	local p t=0
	for p in $sirq_pids; do
		[[ -r /proc/$p/stat ]] && t=$((t + $(cpu_ticks "$p")))
	done
	echo "$t"
}
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
hwm_kib() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
# RssAnon: what the process allocated itself. The rest of VmRSS is its program's and
# libraries' pages mapped from the page cache (shared, dropped under pressure), which grows
# with the binary and with how much of it the kernel maps per fault, not with the tests.
anon_kib() { awk '$1 == "RssAnon:" { print $2 }' "/proc/$1/status"; }

# client_cmd TOOL STREAMS DIR: the client command line (DIR: send = the client sends,
# recv = the server sends).
client_cmd() {
	local tool=$1 n=$2 dir=$3 rev=()
	case $tool in
	boardperf)
		[[ $dir == recv ]] && rev=(-R)
		echo "$bp" tcp -c "$host" -p "$bp_port" -t "$secs" -P "$n" "${rev[@]}" --json --no-save ;;
	iperf3)
		[[ $dir == recv ]] && rev=(-R)
		echo iperf3 -c "$host" -p "$ip3_port" -t "$secs" -P "$n" "${rev[@]}" -J ;;
	iperf2)
		[[ $dir == recv ]] && rev=(--reverse)
		echo iperf -c "$host" -p "$ip2_port" -t "$secs" -P "$n" "${rev[@]}" -y C ;;
	esac
}

# parse TOOL FILE: "bit/s bytes" of the receiver from a client's output.
parse() {
	case $1 in
	boardperf)
		jq -r '[(.metrics[] | select(.name == "receiver.bitrate") | .value),
		        (.metrics[] | select(.name == "receiver.bytes") | .value)] | "\(.[0]) \(.[1])"' "$2" ;;
	iperf3)
		jq -r '"\(.end.sum_received.bits_per_second) \(.end.sum_received.bytes)"' "$2" ;;
	iperf2)
		awk -F, 'NF >= 9 && $8 ~ /^[0-9]+$/ {
				if ($6 == -1) { sb = $9; sy = $8; sum = 1 } else { b += $9; y += $8; n++ } }
			END { if (sum) print sb, sy; else if (n) print b, y }' "$2" ;;
	esac
}

# one_test ROUND TOOL STREAMS DIR: runs one client against the tool's server, records its
# figures in $tmp/TOOL.STREAMS.DIR.{bps,cpugb} and prints them.
one_test() {
	local r=$1 tool=$2 n=$3 dir=$4 pid out t0 t1 q0 q1 cc cs cq bps bytes cpugb rc=0
	local key=$tool.$n.$dir
	pid=${srv_pid[$tool]}
	kill -0 "$pid" 2>/dev/null || die "$tool server (PID $pid) is gone: $(tail -n 3 "$tmp/$tool.server.log")"
	out=$tmp/out.$key.$r
	# shellcheck disable=SC2046
	set -- $(client_cmd "$tool" "$n" "$dir")
	q0=$(softirq_ticks)
	t0=$(cpu_ticks "$pid")
	/usr/bin/time -f '%U %S' -o "$out.time" timeout $((secs + 30)) "$@" >"$out" 2>"$out.err" || rc=$?
	sleep "$settle"
	t1=$(cpu_ticks "$pid")
	q1=$(softirq_ticks)
	read -r bps bytes < <(parse "$tool" "$out" 2>/dev/null || true) || true
	if ((rc != 0)) || ! [[ ${bps:-} =~ ^[0-9.e+]+$ && ${bytes:-} =~ ^[0-9.e+]+$ ]] ||
		awk -v b="$bytes" 'BEGIN { exit !(b <= 0) }'; then
		printf 'round %d  %d stream(s) %-12s %-9s FAILED (exit %d): %s\n' "$r" "$n" "$dir" "$tool" \
			"$rc" "$(tail -n 2 "$out.err" "$out" 2>/dev/null | tr '\n' ' ' | cut -c1-200)"
		return 0
	fi
	cc=$(awk '/^[0-9.]+ [0-9.]+$/ { print $1 + $2 }' "$out.time")
	cs=$(awk -v t="$((t1 - t0))" -v c="$clk" 'BEGIN { print t / c }')
	cq=$(awk -v t="$((q1 - q0))" -v c="$clk" 'BEGIN { print t / c }')
	cpugb=$(awk -v a="$cc" -v b="$cs" -v y="$bytes" 'BEGIN { printf "%.4f\n", (a + b) / (y / 1e9) }')
	echo "$bps" >>"$tmp/$key.bps"
	echo "$cpugb" >>"$tmp/$key.cpugb"
	awk -v q="$cq" -v y="$bytes" 'BEGIN { printf "%.4f\n", q / (y / 1e9) }' >>"$tmp/$key.sirq"
	if ((n == 4)); then
		rss_kib "$pid" >>"$tmp/$tool.rss"
		anon_kib "$pid" >>"$tmp/$tool.anon"
	fi
	printf 'round %d  %d stream(s) %-12s %-9s %6.2f Gbit/s  %6.2f GB  CPU client %5.2f s + server %5.2f s = %6.3f s/GB  (ksoftirqd %4.2f s)\n' \
		"$r" "$n" "$dir" "$tool" "$(awk -v b="$bps" 'BEGIN { print b / 1e9 }')" \
		"$(awk -v y="$bytes" 'BEGIN { print y / 1e9 }')" "$cc" "$cs" "$cpugb" "$cq"
}

# The binary's pages leave the page cache first: a binary the linker has just written can
# sit there in large folios, mapped whole on the first faults (make dist's static amd64
# binary: VmRSS 7.4 MiB, 3.1 MiB once its pages came from a read, as on a board after boot).
dd if="$bp" iflag=nocache count=0 status=none 2>/dev/null || true
start_server boardperf "$bp_port" "$bp" serve -p "$bp_port" -B "$host"
start_server iperf3 "$ip3_port" iperf3 -s -B "$host" -p "$ip3_port"
start_server iperf2 "$ip2_port" iperf -s -B "$host" -p "$ip2_port" -y C

tools=(boardperf iperf3 iperf2)
cases="1.send 1.recv 4.send 4.recv"
dirname_() { [[ $1 == send ]] && echo "client sends" || echo "server sends"; }

echo "TCP on loopback ($host), ${secs} s per test, $rounds rounds, $(nproc) CPUs;" \
	"$("$bp" --version 2>/dev/null | head -1 || echo boardperf) vs iperf3 $ip3_version" \
	"and iperf2 $ip2_version"
((ip2_reverse)) || echo "iperf2 $ip2_version has no --reverse (only -r, a sequential tradeoff" \
	"test): iperf2 is skipped where the server sends"

for ((r = 1; r <= rounds; r++)); do
	for c in $cases; do
		n=${c%.*} dir=${c#*.}
		for ((k = 0; k < 3; k++)); do
			tool=${tools[$(((r - 1 + k) % 3))]}
			[[ $tool == iperf2 && $dir == recv && $ip2_reverse == 0 ]] && continue
			one_test "$r" "$tool" "$n" "$dir"
		done
	done
done

med() { if [[ -s $1 ]]; then median <"$1"; else echo nan; fi; }
gbit() { awk -v b="$1" 'BEGIN { if (b == "nan") print "nan"; else printf "%.2f\n", b / 1e9 }'; }
ratio_or_nan() { if [[ $1 == nan || $2 == nan ]]; then echo nan; else ratio "$1" "$2"; fi; }

echo
printf '%-28s %-9s %14s %10s %12s %16s\n' case tool "median bit/s" Gbit/s "CPU s/GB" "ksoftirqd s/GB"
for c in $cases; do
	n=${c%.*} dir=${c#*.}
	label="$n stream(s), $(dirname_ "$dir")"
	for tool in "${tools[@]}"; do
		b=$(med "$tmp/$tool.$c.bps")
		g=$(med "$tmp/$tool.$c.cpugb")
		printf '%-28s %-9s %14.4g %10s %12s %16s\n' "$label" "$tool" "$b" "$(gbit "$b")" "$g" \
			"$(med "$tmp/$tool.$c.sirq")"
		eval "b_$tool=\$b g_$tool=\$g"
	done
	# shellcheck disable=SC2154
	{
		t3=$(ratio_or_nan "$b_boardperf" "$b_iperf3")
		t2=$(ratio_or_nan "$b_boardperf" "$b_iperf2")
		c3=$(ratio_or_nan "$g_boardperf" "$g_iperf3")
		c2=$(ratio_or_nan "$g_boardperf" "$g_iperf2")
	}
	printf '%-28s ratios: throughput bp/iperf3 %s bp/iperf2 %s; CPU/GB bp/iperf3 %s bp/iperf2 %s\n' \
		"$label" "$t3" "$t2" "$c3" "$c2"
	[[ $t3 != nan ]] && echo "$t3 $label" >>"$tmp/r.t3"
	[[ $t2 != nan ]] && echo "$t2 $label" >>"$tmp/r.t2"
	[[ $c3 != nan ]] && echo "$c3 $label" >>"$tmp/r.c3"
	[[ $c2 != nan ]] && echo "$c2 $label" >>"$tmp/r.c2"
done

# Many streams (issue 15): -P 32 -t 1, boardperf beside iperf3, alternating which goes first:
# the wall time of the client (connections, test, results, exit) and both ends' figures as
# each tool reports them (boardperf sender.* and receiver.*, iperf3 end.sum_sent and
# end.sum_received). -t 1 should take about 1 s plus the set-up, and the two ends agree.
many() { # many TOOL ROUND: one -P 32 -t 1 test, its line, its wall time into $tmp/TOOL.p32
	local tool=$1 out=$tmp/p32.$1.$2 t0 t1 w fig
	t0=$(date +%s.%N)
	if [[ $tool == boardperf ]]; then
		timeout 30 "$bp" tcp -c "$host" -p "$bp_port" -t 1 -P 32 --json --no-save >"$out" 2>&1 || true
		fig=$(jq -r '. as $r | ($r.metrics | map({(.name): .value}) | add) as $m
			| def g(n): $m[n] / 1e9 * 1000 | round / 1000;
			"sent \(g("sender.bytes")) GB \(g("sender.bitrate")) Gbit/s, received \(g("receiver.bytes")) GB \(g("receiver.bitrate")) Gbit/s, \($r.intervals | length) interval(s), warnings: \([$r.warnings[].code] | join(",") | if . == "" then "none" else . end)"' "$out" 2>/dev/null || echo FAILED)
	else
		timeout 30 iperf3 -c "$host" -p "$ip3_port" -t 1 -P 32 -J >"$out" 2>&1 || true
		fig=$(jq -r '.end | "sent \(.sum_sent.bytes / 1e9 * 1000 | round / 1000) GB \(.sum_sent.bits_per_second / 1e9 * 100 | round / 100) Gbit/s, received \(.sum_received.bytes / 1e9 * 1000 | round / 1000) GB \(.sum_received.bits_per_second / 1e9 * 100 | round / 100) Gbit/s"' "$out" 2>/dev/null || echo FAILED)
	fi
	t1=$(date +%s.%N)
	w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "$w" >>"$tmp/$tool.p32"
	printf 'round %d  -P 32 -t 1  %-9s wall %5.2f s  %s\n' "$2" "$tool" "$w" "$fig"
}
echo
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then many boardperf "$r"; many iperf3 "$r"; else many iperf3 "$r"; many boardperf "$r"; fi
done
p32_bp=$(med "$tmp/boardperf.p32") p32_ip3=$(med "$tmp/iperf3.p32")
echo "-P 32 -t 1 median wall time: boardperf $p32_bp s, iperf3 $p32_ip3 s;" \
	"ratio boardperf/iperf3 $(ratio_or_nan "$p32_bp" "$p32_ip3")"

echo
for tool in "${tools[@]}"; do
	eval "rss_$tool=\$(med \"\$tmp/\$tool.rss\")"
	eval "anon_$tool=\$(med \"\$tmp/\$tool.anon\")"
done
# shellcheck disable=SC2154
echo "server VmRSS after a 4-stream test (median): boardperf serve ${rss_boardperf} KiB," \
	"iperf3 -s ${rss_iperf3} KiB, iperf2 -s ${rss_iperf2} KiB; peak VmHWM: boardperf" \
	"$(hwm_kib "${srv_pid[boardperf]}") KiB, iperf3 $(hwm_kib "${srv_pid[iperf3]}") KiB," \
	"iperf2 $(hwm_kib "${srv_pid[iperf2]}") KiB"
echo "ratio boardperf/iperf3 server RSS: $(ratio_or_nan "$rss_boardperf" "$rss_iperf3")"
# shellcheck disable=SC2154
echo "server RssAnon (its own allocations) after a 4-stream test (median): boardperf serve" \
	"${anon_boardperf} KiB, iperf3 -s ${anon_iperf3} KiB, iperf2 -s ${anon_iperf2} KiB;" \
	"ratio boardperf/iperf3 $(ratio_or_nan "$anon_boardperf" "$anon_iperf3")"
two() { if [[ -s $1 ]]; then median <"$1" | awk '{ printf "%.2f\n", $1 }'; else echo nan; fi; }
echo "median ratio boardperf/iperf2 CPU-seconds-per-GB: $(two "$tmp/r.c2"), worst $(worst "$tmp/r.c2" lower)"
echo "median ratio boardperf/iperf3 CPU-seconds-per-GB: $(two "$tmp/r.c3"), worst $(worst "$tmp/r.c3" lower)"
echo "median ratio boardperf/iperf2 throughput: $(two "$tmp/r.t2"), worst $(worst "$tmp/r.t2" higher)"
echo "median ratio boardperf/iperf3 throughput: $(two "$tmp/r.t3"), worst $(worst "$tmp/r.t3" higher)"
