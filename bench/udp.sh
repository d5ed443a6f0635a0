#!/usr/bin/env bash
# Received UDP packets per second on loopback with 64- and 1400-byte payloads, as fast as each
# tool goes: boardperf vs iperf3 vs iperf2, in one run (rounds alternate the order; 2 shared,
# noisy cores), with loss and CPU (client + server) per received packet. Last line: the median
# ratio boardperf/iperf3 of received packets/s at 64 bytes.
# Usage: bench/udp.sh [BOARDPERF] [ROUNDS] [SECONDS]
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
bp=${1:-$here/../build/boardperf}
rounds=${2:-3}
secs=${3:-3}
for p in iperf3 iperf; do
	command -v "$p" >/dev/null || { echo "installing $p" >&2; apt-get install -y -qq "$p" >/dev/null; }
done
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
"$bp" serve -p 25231 -B 127.0.0.1 2>/dev/null & pids+=($!); bp_srv=$!
iperf3 -s -p 25232 -B 127.0.0.1 >/dev/null 2>&1 & pids+=($!); i3_srv=$!
iperf -s -u -p 25233 -B 127.0.0.1 -y C >"$tmp/iperf2.csv" 2>/dev/null & pids+=($!); i2_srv=$!
sleep 0.5
tick=$(getconf CLK_TCK)
cpu_of() { awk -v t="$tick" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }

# run TOOL LEN: prints "received_pps loss_percent cpu_seconds"
run() {
	local tool=$1 len=$2 srv c0 c1 j pkts lost line
	case $tool in boardperf) srv=$bp_srv ;; iperf3) srv=$i3_srv ;; iperf2) srv=$i2_srv ;; esac
	c0=$(cpu_of "$srv")
	case $tool in
	boardperf)
		j=$(/usr/bin/time -f '%U %S' -o "$tmp/time" "$bp" udp -c 127.0.0.1 -p 25231 -t "$secs" \
			-b 0 -l "$len" -i 0 --json --no-save 2>/dev/null)
		pkts=$(jq '[.metrics[] | select(.name == "receiver.packets")][0].value' <<<"$j")
		lost=$(jq '[.metrics[] | select(.name == "loss.percent")][0].value' <<<"$j") ;;
	iperf3)
		j=$(/usr/bin/time -f '%U %S' -o "$tmp/time" iperf3 -c 127.0.0.1 -p 25232 -u -b 0 \
			-l "$len" -t "$secs" -J)
		pkts=$(jq '.end.sum.packets - .end.sum.lost_packets' <<<"$j")
		lost=$(jq '.end.sum.lost_percent' <<<"$j") ;;
	iperf2)
		: >"$tmp/iperf2.csv"
		/usr/bin/time -f '%U %S' -o "$tmp/time" iperf -c 127.0.0.1 -p 25233 -u -b 100000M \
			-l "$len" -t "$secs" -y C >/dev/null 2>&1
		sleep 0.3
		line=$(tail -1 "$tmp/iperf2.csv")
		pkts=$(awk -F, '{ print $12 - $11 }' <<<"$line")
		lost=$(awk -F, '{ print $13 }' <<<"$line") ;;
	esac
	c1=$(cpu_of "$srv")
	awk -v p="$pkts" -v s="$secs" -v l="$lost" -v a="$c0" -v b="$c1" \
		-v t="$(awk '{ print $1 + $2 }' "$tmp/time")" \
		'BEGIN { printf "%.0f %.3f %.3f\n", p / s, l, t + b - a }'
}

tools=(boardperf iperf3 iperf2)
for ((r = 1; r <= rounds; r++)); do
	for len in 64 1400; do
		for ((k = 0; k < 3; k++)); do
			tool=${tools[$(((k + r) % 3))]}
			read -r pps loss cpu < <(run "$tool" "$len")
			echo "$pps" >>"$tmp/$tool.$len.pps"
			awk -v c="$cpu" -v p="$pps" -v s="$secs" 'BEGIN { printf "%.1f\n", c / (p * s) * 1e9 }' \
				>>"$tmp/$tool.$len.cpp"
			echo "round $r  $len B  $tool: $pps packets/s received, loss $loss %, CPU $cpu s"
		done
	done
done
echo
for len in 64 1400; do
	for tool in "${tools[@]}"; do
		printf '%5s B  %-9s median %12.0f packets/s  %8.1f ns CPU per packet\n' "$len" "$tool" \
			"$(median <"$tmp/$tool.$len.pps")" "$(median <"$tmp/$tool.$len.cpp")"
	done
done
b64=$(median <"$tmp/boardperf.64.pps"); i3=$(median <"$tmp/iperf3.64.pps"); i2=$(median <"$tmp/iperf2.64.pps")
echo "median ratio boardperf/iperf2 packets/s at 64 B: $(ratio "$b64" "$i2")"
echo "median ratio boardperf/iperf3 packets/s at 64 B: $(ratio "$b64" "$i3")"
