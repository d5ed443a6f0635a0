#!/usr/bin/env bash
# What the monitor costs (docs/json.md, "The monitor"): the same test with the monitor on and with
# --no-monitor, alternately in one run (rounds alternate the order too), everything pinned
# to CPU 0 as on a 1-core board:
#   cpu   `cpu --algo sha256 --sizes 8192 -t SECONDS`: SHA-256 B/s (the monitor wakes once a
#         second there: cpu has no -i)
#   udp   `udp -c 127.0.0.1 -l 64 -b 0 -t SECONDS` against a `serve` on the same core:
#         received packets/s, at -i 1 (the default) and at -i 0.1 (ten samples a second,
#         the most the monitor takes)
# Each pair prints on/off and its ratio; then the monitor thread's own time on the CPU per
# sample (the scheduler's account of it), which those ratios cannot resolve; the last lines
# are the median ratios (on / off: 1.000 is no cost, below it the share the monitor took)
# and the worst round over all three.
# Usage: bench/monitor.sh [BOARDPERF] [ROUNDS] [SECONDS]
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
bench_args 5 "$@"
bp=$(realpath "$bp")
port=25241
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT
taskset -c 0 "$bp" serve -p "$port" >"$tmp/serve.log" 2>&1 &
srv=$!
for _ in $(seq 50); do listening "$port" && break; sleep 0.1; done
listening "$port" || die "the server did not start (see $tmp/serve.log)"

cpu_rate() { # cpu_rate [--no-monitor]
	taskset -c 0 "$bp" cpu --algo sha256 --sizes 8192 -t "$secs" --json "$@" |
		jq -r '.metrics[] | select(.name == "sha256.8192") | .value'
}
udp_pps() { # udp_pps INTERVAL [--no-monitor]
	local i=$1
	shift
	taskset -c 0 "$bp" udp -c 127.0.0.1 -p "$port" -l 64 -b 0 -t "$secs" -i "$i" --json "$@" |
		jq -r '.metrics[] | select(.name == "receiver.pps") | .value'
}

# pairs NAME CMD...: rounds of CMD with the monitor and CMD --no-monitor, alternating which
# goes first; prints each pair and appends the ratio to $tmp/NAME
pairs() {
	local name=$1 r on off
	shift
	for ((r = 1; r <= rounds; r++)); do
		if ((r % 2)); then on=$("$@"); off=$("$@" --no-monitor)
		else off=$("$@" --no-monitor); on=$("$@"); fi
		echo "$name round $r: monitor=$on no-monitor=$off ratio=$(ratio "$on" "$off")"
		ratio "$on" "$off" >>"$tmp/$name"
		echo "$(ratio "$on" "$off") $name round $r" >>"$tmp/all"
	done
}
# thread_cost INTERVAL: the monitor thread's own time on a CPU per sample, from the
# scheduler's account of it (/proc/PID/task/TID/schedstat, ns) near the end of a udp test
# at -i INTERVAL: what the ratios above cannot resolve in their noise
thread_cost() {
	local i=$1 pid t run n
	taskset -c 0 "$bp" udp -c 127.0.0.1 -p "$port" -l 64 -b 0 -t "$secs" -i "$i" --json \
		>"$tmp/cost.json" &
	pid=$!
	sleep "$(awk -v s="$secs" 'BEGIN {print s - 0.3}')"
	run=
	for t in /proc/"$pid"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = bp-monitor ] && run=$(awk '{print $1}' "$t/schedstat")
	done
	wait "$pid"
	n=$(awk -v s="$secs" -v i="$i" 'BEGIN {print int((s - 0.3) / i)}')
	[ -n "$run" ] && [ "$n" -gt 0 ] || { echo "nan"; return; }
	awk -v r="$run" -v n="$n" -v i="$i" 'BEGIN {printf "%.1f us per sample, %.4f %% of a core at -i %s\n", r / n / 1e3, 100 * r / n / (i * 1e9), i}'
}

pairs cpu cpu_rate
pairs udp udp_pps 1
pairs udp-i0.1 udp_pps 0.1
for ((r = 1; r <= rounds; r++)); do
	echo "monitor thread round $r: $(thread_cost 0.1)"
done
for name in cpu udp udp-i0.1; do
	echo "median ratio monitor/no-monitor, $name: $(median <"$tmp/$name")"
done
# the round the monitor cost most, over all three (each ratio a rate: lower is the cost)
echo "worst ratio monitor/no-monitor: $(worst "$tmp/all" higher)"
