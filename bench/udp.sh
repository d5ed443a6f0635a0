#!/usr/bin/env bash
# Received UDP packets per second through a veth pair (tests/rig: client and server
# namespaces) with 64- and 1460-byte payloads, as fast as each tool goes, in one run (rounds
# rotate the order; 2 shared, noisy cores), with loss and CPU (client + server) per packet:
#   boardperf   the socket engine (sendmmsg), counted by boardperf's receiver
#   bp-packet   boardperf --engine packet (AF_PACKET TX ring, issue 22), counted the same way
#   iperf3      counted by its receiver (packets - lost)
#   iperf2      counted by nft (its server's report is not parsed): an upper bound
#   trafgen     netsniff-ng's generator (TX ring, one process): it counts nothing, so its
#               figure is what nft saw arrive, the ceiling of a TX-ring sender
# The reference is an nftables counter on the server's input hook: the packets that really
# arrived. boardperf's counts must equal it (ratio 1.00; loopback is not used, where a GSO
# send would be one packet of 64 datagrams, issue 15). Last lines: the median ratios
# (issue 22's targets: bp-packet >= 2x iperf3 and >= 0.9x trafgen at 64 B; at 1460 B no
# worse than the socket engine).
# Usage: bench/udp.sh [BOARDPERF] [ROUNDS] [SECONDS]   (root: namespaces and nft)
set -euo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
bench_args 3 "$@"
bp=$(realpath "$bp")
need iperf3
need iperf
need trafgen netsniff-ng
need nft nftables
. "$here/../tests/rig/rig.sh"
rig_require nft iperf3 jq || die "cannot build a rig here: $RIG_SKIP_REASON"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT  # rig_up chains its rig_down before this
bp_port=25231
i3_port=25232
i2_port=25233
tg_port=25234
rig_up
# "udp length > 60" leaves out the streams' hellos (boardperf's: 49 bytes; iperf3's: 12).
rig_exec server nft -f - <<EOF
table inet bench {
	counter boardperf { }
	counter iperf3 { }
	counter iperf2 { }
	counter trafgen { }
	chain in {
		type filter hook input priority 0;
		udp dport $bp_port udp length > 60 counter name "boardperf";
		udp dport $i3_port udp length > 60 counter name "iperf3";
		udp dport $i2_port udp length > 60 counter name "iperf2";
		udp dport $tg_port counter name "trafgen";
	}
}
EOF
rig_bg server "$bp" serve -p "$bp_port" --idle-timeout 5 --logfile "$tmp/serve.log"
bp_srv=$RIG_BG_PID
rig_bg server iperf3 -s -p "$i3_port" --logfile "$tmp/iperf3.log"
i3_srv=$RIG_BG_PID
rig_bg server iperf -s -u -p "$i2_port" -o "$tmp/iperf2.log"
i2_srv=$RIG_BG_PID
rig_wait_port server "$bp_port" 5
rig_wait_port server "$i3_port" 5
nft_count() {
	rig_exec server nft -j list counter inet bench "$1" |
		jq '[.nftables[] | select(.counter) | .counter.packets][0]'
}
smac=$(rig_exec client cat "/sys/class/net/$RIG_CLIENT_IF/address")
dmac=$(rig_exec server cat "/sys/class/net/$RIG_SERVER_IF/address")

# run TOOL LEN: prints "received_pps nft_pps loss_percent cpu_seconds"
run() {
	local tool=$1 len=$2 srv=0 ctr=$1 c0=0 c1=0 n0 n1 j pkts= lost=0 cfg
	case $tool in boardperf | bp-packet) srv=$bp_srv ctr=boardperf ;; iperf3) srv=$i3_srv ;;
		iperf2) srv=$i2_srv ;; esac
	[ "$srv" = 0 ] || c0=$(cpu_ticks "$srv")
	n0=$(nft_count "$ctr")
	case $tool in
	boardperf | bp-packet)
		j=$(rig_exec client /usr/bin/time -f '%U %S' -o "$tmp/time" "$bp" udp \
			-c "$RIG_SERVER_IP" -p "$bp_port" -t "$secs" -b 0 -l "$len" -i 0 --json --no-save \
			--engine "$([ "$tool" = bp-packet ] && echo packet || echo socket)" 2>/dev/null)
		pkts=$(jq '[.metrics[] | select(.name == "receiver.packets")][0].value' <<<"$j")
		lost=$(jq '[.metrics[] | select(.name == "loss.percent")][0].value' <<<"$j") ;;
	iperf3)
		j=$(rig_exec client /usr/bin/time -f '%U %S' -o "$tmp/time" iperf3 \
			-c "$RIG_SERVER_IP" -p "$i3_port" -u -b 0 -l "$len" -t "$secs" -J)
		pkts=$(jq '.end.sum.packets - .end.sum.lost_packets' <<<"$j")
		lost=$(jq '.end.sum.lost_percent' <<<"$j") ;;
	iperf2)
		rig_exec client /usr/bin/time -f '%U %S' -o "$tmp/time" iperf -u \
			-c "$RIG_SERVER_IP" -p "$i2_port" -b 100G -l "$len" -t "$secs" >/dev/null 2>&1 ||
			true ;;
	trafgen)
		# One process, and none of its machine-wide tuning (socket memory, IRQ affinity).
		cfg="{ eth(da=$dmac, sa=$smac), ipv4(saddr=$RIG_CLIENT_IP, daddr=$RIG_SERVER_IP),"
		cfg+=" udp(sp=40000, dp=$tg_port), fill(0x00, $len) }"
		# time inside timeout: INT goes to the process group, time ignores it and reports.
		rig_exec client timeout -s INT "$secs" /usr/bin/time -f '%U %S' -o "$tmp/time" \
			trafgen -o "$RIG_CLIENT_IF" -P 1 --no-sock-mem --notouch-irq -C "$cfg" \
			>/dev/null 2>&1 || true ;;
	esac
	[ "$srv" = 0 ] || c1=$(cpu_ticks "$srv")
	n1=$(nft_count "$ctr")
	awk -v p="${pkts:-$((n1 - n0))}" -v n="$((n1 - n0))" -v s="$secs" -v l="$lost" \
		-v hz="$(getconf CLK_TCK)" -v a="$c0" -v b="$c1" \
		-v t="$(awk '{ print $1 + $2 }' "$tmp/time")" \
		'BEGIN { printf "%.0f %.0f %.3f %.3f\n", p / s, n / s, l, t + (b - a) / hz }'
}

tools=(boardperf bp-packet iperf3 iperf2 trafgen)
nt=${#tools[@]}
for ((r = 1; r <= rounds; r++)); do
	for len in 64 1460; do
		for ((k = 0; k < nt; k++)); do
			tool=${tools[$(((k + r) % nt))]}
			read -r pps npps loss cpu < <(run "$tool" "$len")
			echo "$pps" >>"$tmp/$tool.$len.pps"
			echo "$(ratio "$pps" "$npps") round $r" >>"$tmp/$tool.$len.nft"
			awk -v c="$cpu" -v p="$pps" -v s="$secs" 'BEGIN { printf "%.1f\n", c / (p * s) * 1e9 }' \
				>>"$tmp/$tool.$len.cpp"
			echo "round $r  $len B  $tool: $pps packets/s received, nft $npps, loss $loss %, CPU $cpu s"
		done
	done
done
echo
for len in 64 1460; do
	for tool in "${tools[@]}"; do
		printf '%5s B  %-9s median %10.0f packets/s  %.3f of nft  %8.1f ns CPU per packet\n' \
			"$len" "$tool" "$(median <"$tmp/$tool.$len.pps")" "$(median <"$tmp/$tool.$len.nft")" \
			"$(median <"$tmp/$tool.$len.cpp")"
	done
done
m() { median <"$tmp/$1.$2.pps"; }
# against the counter 1 is exact: the worst round is the one furthest from it
echo "median ratio boardperf/nft packets at 1460 B: $(median <"$tmp/boardperf.1460.nft"), worst" \
	"$(worst "$tmp/boardperf.1460.nft" one)"
echo "median ratio boardperf/nft packets at 64 B: $(median <"$tmp/boardperf.64.nft"), worst" \
	"$(worst "$tmp/boardperf.64.nft" one)"
echo "median ratio bp-packet/nft packets at 64 B: $(median <"$tmp/bp-packet.64.nft"), worst" \
	"$(worst "$tmp/bp-packet.64.nft" one)"
echo "median ratio boardperf/iperf3 packets/s at 64 B: $(ratio "$(m boardperf 64)" "$(m iperf3 64)")"
echo "median ratio bp-packet/iperf3 packets/s at 64 B: $(ratio "$(m bp-packet 64)" "$(m iperf3 64)")"
echo "median ratio bp-packet/trafgen packets/s at 64 B: $(ratio "$(m bp-packet 64)" "$(m trafgen 64)")"
echo "median ratio bp-packet/boardperf packets/s at 1460 B: $(ratio "$(m bp-packet 1460)" "$(m boardperf 1460)")"
