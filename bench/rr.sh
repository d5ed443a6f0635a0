#!/usr/bin/env bash
# bench/rr.sh: boardperf rr beside sockperf's ping-pong on loopback (127.0.0.1 only), TCP and
# UDP, in one run. Equal concurrency and size: one flow (sockperf's ping-pong is one socket,
# one message in flight), 64-byte request and answer, closed loop.
#
# Each round runs both tools for each protocol, which goes first alternating from round to
# round (two shared, noisy cores: interleave, repeat, take medians). Per test:
#   - transactions/s: boardperf's transactions.rate (--json); sockperf's ReceivedMessages /
#     RunTime of its "[Valid Duration]" line (the run minus its warm-up), i.e. round trips/s;
#   - p50 round-trip latency in µs: boardperf's .latency.transaction.p50 (ns, a full round
#     trip); sockperf with --full-rtt (by default sockperf prints half the round trip).
# Servers: `boardperf serve` (it answers both TCP and UDP on one port) and two `sockperf
# server`s (TCP, UDP), started here on their own ports and stopped by PID on exit.
#
# PIN=CPU (e.g. PIN=0) runs every server and client under `taskset -c CPU`: on loopback a
# round trip costs much less when both ends share a CPU than when each wake-up crosses to
# another (idle) CPU, and the scheduler places a single-threaded tool and a threaded one
# differently; pinning takes that placement out of the comparison. Default: unpinned, as a
# user would run them.
#
# Closing lines: per protocol, the medians and the ratios boardperf/sockperf of transactions/s
# (target >= 0.9) and of p50 latency (target <= 1.1); the last line is
# "median ratio boardperf/sockperf transactions/s: X.XX" (median over the per-test ratios).
#
# Usage: bench/rr.sh [BOARDPERF] [ROUNDS] [SECONDS]
#        (or ROUNDS=5 SECONDS=3 PIN=0 in the environment; ports BP_PORT=25241
#        SOCKPERF_TCP_PORT=25242 SOCKPERF_UDP_PORT=25243; SIZE=64)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bench_args 5 "$@"
size=${SIZE:-64}
host=127.0.0.1
bp_port=${BP_PORT:-25241}
sp_tcp_port=${SOCKPERF_TCP_PORT:-25242}
sp_udp_port=${SOCKPERF_UDP_PORT:-25243}
pin=${PIN:-}

[[ $size =~ ^[0-9]+$ && $size -ge 16 ]] || die "SIZE must be at least 16 bytes (sockperf's minimum is 14)"
need sockperf
run_on=()
if [[ -n $pin ]]; then
	command -v taskset >/dev/null || die "PIN needs taskset (util-linux)"
	run_on=(taskset -c "$pin")
fi
sp_version=$(sockperf --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1)

tmp=$(mktemp -d)
trap 'stop_servers; rm -rf "$tmp"' EXIT

start_server boardperf "$bp_port" "${run_on[@]}" "$bp" serve -p "$bp_port" -B "$host"
start_server sockperf-tcp "$sp_tcp_port" "${run_on[@]}" sockperf server --tcp -i "$host" -p "$sp_tcp_port"
# The UDP server has no listening TCP socket to wait for: its bound UDP port instead.
"${run_on[@]}" sockperf server -i "$host" -p "$sp_udp_port" >"$tmp/sockperf-udp.server.log" 2>&1 &
srv_pid[sockperf-udp]=$!
for ((i = 0; i < 50; i++)); do ss -Hlun "sport = :$sp_udp_port" | grep -q . && break; sleep 0.1; done
((i < 50)) || die "sockperf's UDP server did not come up: $(cat "$tmp/sockperf-udp.server.log")"

# run TOOL PROTO: prints "transactions.rate p50_us"
run() {
	local tool=$1 proto=$2 j out udp=() tcp=() port=$sp_tcp_port
	if [[ $proto == udp ]]; then udp=(--udp); port=$sp_udp_port; else tcp=(--tcp); fi
	case $tool in
	boardperf)
		j=$("${run_on[@]}" "$bp" rr -c "$host" -p "$bp_port" -t "$secs" -l "$size" -i 0 --json \
			"${udp[@]}" 2>"$tmp/err") || die "boardperf rr failed: $(cat "$tmp/err")"
		jq -r '[([.metrics[] | select(.name == "transactions.rate")][0].value),
			(.latency.transaction.p50 / 1000)] | @tsv' <<<"$j" ;;
	sockperf)
		out=$("${run_on[@]}" sockperf ping-pong -i "$host" -p "$port" -m "$size" -t "$secs" \
			--full-rtt "${tcp[@]}" 2>&1) ||
			die "sockperf ping-pong failed: $out"
		# [Valid Duration] RunTime=2.550 sec; SentMessages=113119; ReceivedMessages=113119
		# ---> percentile 50.000 =    18.848   (µs, a full round trip with --full-rtt)
		awk '/\[Valid Duration\]/ { for (i = 1; i <= NF; i++) {
				if ($i ~ /^RunTime=/) { sub(/RunTime=/, "", $i); t = $i }
				if ($i ~ /^ReceivedMessages=/) { sub(/ReceivedMessages=/, "", $i); n = $i } } }
			/percentile 50\.000/ { p = $NF }
			END { if (t > 0 && p != "") printf "%.1f\t%s\n", n / t, p; else exit 1 }' <<<"$out" ||
			die "cannot read sockperf's output: $out" ;;
	esac
}

echo "boardperf rr vs sockperf $sp_version ping-pong on $host: 1 flow, $size B each way, ${secs} s per test," \
	"$rounds rounds${pin:+, pinned to CPU $pin}"
for ((r = 1; r <= rounds; r++)); do
	for proto in tcp udp; do
		if ((r % 2)); then order=(boardperf sockperf); else order=(sockperf boardperf); fi
		for tool in "${order[@]}"; do
			read -r tps p50 < <(run "$tool" "$proto")
			echo "$tps" >>"$tmp/$tool.$proto.tps"
			echo "$p50" >>"$tmp/$tool.$proto.p50"
			printf 'round %d  %-3s  %-9s  %10.0f transactions/s  p50 %7.2f us\n' "$r" "$proto" "$tool" "$tps" "$p50"
		done
		echo "$(ratio "$(tail -1 "$tmp/boardperf.$proto.tps")" \
			"$(tail -1 "$tmp/sockperf.$proto.tps")") $proto round $r" >>"$tmp/ratios"
	done
done

echo
printf '%-5s %-9s %16s %12s\n' proto tool "transactions/s" "p50 (us)"
for proto in tcp udp; do
	for tool in boardperf sockperf; do
		printf '%-5s %-9s %16.0f %12.2f\n' "$proto" "$tool" "$(median <"$tmp/$tool.$proto.tps")" \
			"$(median <"$tmp/$tool.$proto.p50")"
	done
done
echo
for proto in tcp udp; do
	t=$(ratio "$(median <"$tmp/boardperf.$proto.tps")" "$(median <"$tmp/sockperf.$proto.tps")")
	l=$(ratio "$(median <"$tmp/boardperf.$proto.p50")" "$(median <"$tmp/sockperf.$proto.p50")")
	tt=$(awk -v v="$t" 'BEGIN { print (v >= 0.9) ? "met" : "MISSED" }')
	lt=$(awk -v v="$l" 'BEGIN { print (v <= 1.1) ? "met" : "MISSED" }')
	echo "$proto: ratio boardperf/sockperf transactions/s $t (target >= 0.9: $tt), p50 latency $l (target <= 1.1: $lt)"
done
echo "median ratio boardperf/sockperf transactions/s: $(median <"$tmp/ratios"), worst" \
	"$(worst "$tmp/ratios" higher)"
