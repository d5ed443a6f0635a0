#!/usr/bin/env bash
# Ground truth for `boardperf udp --engine packet` (issue 22): frames sent through an
# AF_PACKET TX ring and read from a TPACKET_V3 RX ring (BPF on the 4-tuple) must be
# counted exactly as the socket engine's datagrams are. An nftables counter on the
# receiving namespace's input hook (a veth rig) counts the data packets that really
# arrived; boardperf's receiver.packets must be those packets, sender.packets at least
# them, nothing out of order or duplicated (a ring slot rewritten while the peer still
# read it would show here), params.engine "packet", send_mode tx_ring, receive_mode
# rx_ring. Both directions (-R: the server sends and the client reads the ring). Then the same client without CAP_NET_RAW (setpriv): one line
# on stderr saying why, the socket engine, and still a result.
# Usage: test_udp_packet.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

port=16201  # port-ok: in the test's own namespaces
cases=("up -l 64 -b 0" "up -l 64 -b 50M" "up -l 1460 -b 0" "down -l 64 -b 0 -R"
	"down -l 1460 -b 50M -R")
checks=("${cases[@]}" "--bidir: both directions through the rings"
	"without CAP_NET_RAW: one line, socket engine, a result"
	"a server without CAP_NET_RAW: one line in its log, socket engine for -R")
if ! rig_require nft jq setpriv; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }

. "$here/udp_nft.sh"

# check WHAT NS COUNTER ARGS...: as test_udp_count.sh's check, with the packet engine.
check() {
	local what=$1 ns=$2 ctr=$3 c0 c1 data out sp rp kd lost ooo dup eng mode rmode slack
	shift 3
	c0=$(nft_count "$ns" "$ctr")
	out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -p "$port" -t 2 -w 1M --json \
		--no-save --engine packet "$@")
	c1=$(nft_count "$ns" "$ctr")
	data=$((c1 - c0))
	sp=$(metric sender.packets "$out"); rp=$(metric receiver.packets "$out")
	kd=$(metric receiver.kernel_drops "$out"); lost=$(metric lost.packets "$out")
	ooo=$(metric receiver.out_of_order "$out"); dup=$(metric receiver.duplicates "$out")
	eng=$(jq -r .params.engine <<<"$out"); mode=$(jq -r .params.send_mode <<<"$out")
	rmode=$(jq -r .params.receive_mode <<<"$out")
	# What a stopping receiver could not drain in 20 ms; with -R also what the server sent
	# after the end (see test_udp_count.sh). Never more received than arrived.
	slack=$((data / 100 + 200))
	[[ " $* " == *" -R "* ]] && slack=$((slack + sp - rp - lost))
	[ -n "$sp" ] && [ -n "$rp" ] && [ "$rp" -gt 0 ] &&
		[ $((rp + kd)) -le "$data" ] && [ "$data" -le "$sp" ] &&
		[ $((data - rp - kd)) -le "$slack" ] && [ $((sp - data)) -le $((lost + slack)) ] &&
		[ "$ooo" = 0 ] && [ "$dup" = 0 ] && [ "$eng" = packet ] && [ "$mode" = tx_ring ] &&
		[ "$rmode" = rx_ring ]
	ok $? "$what: nft $data packets, received $rp + ring drops $kd, sent $sp, lost $lost, out of order $ooo, duplicates $dup, engine $eng ($mode, $rmode)"
}

trap 'rig_down; rm -rf "$tap_tmp"' EXIT
rig_up
nft_rules | rig_exec client nft -f -
nft_rules | rig_exec server nft -f -
rig_bg server "$bp" serve -p "$port" --idle-timeout 5 --logfile "$tap_tmp/rig.log"
rig_wait_port server "$port" 5
for c in "${cases[@]}"; do
	read -r dir args <<<"$c"
	# shellcheck disable=SC2086
	if [ "$dir" = up ]; then
		check "$c" "$RIG_SERVER_NS" to_srv $args
	else
		check "$c" "$RIG_CLIENT_NS" from_srv $args
	fi
done

# --bidir: each side sends through its TX ring and reads the other's through its RX ring.
out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -p "$port" -t 2 -l 64 -b 20M --bidir --json \
	--no-save --engine packet)
modes=$(jq -r '[.params["up.engine"], .params["down.engine"], .params["up.send_mode"],
	.params["up.receive_mode"], .params["down.send_mode"], .params["down.receive_mode"]] |
	join(" ")' <<<"$out")
up=$(metric up.receiver.packets "$out"); down=$(metric down.receiver.packets "$out")
[ "$modes" = "packet packet tx_ring rx_ring tx_ring rx_ring" ] && [ "${up:-0}" -gt 0 ] &&
	[ "${down:-0}" -gt 0 ]
ok $? "--bidir: both directions through the rings ($modes; received up $up, down $down)"

# Without CAP_NET_RAW: root stripped of it (bounding set, so exec cannot regain it).
out=$(rig_exec client setpriv --inh-caps=-all --bounding-set=-net_raw "$bp" udp \
	-c "$RIG_SERVER_IP" -p "$port" -t 1 -l 64 -b 10M --json --no-save --engine packet \
	2>"$tap_tmp/nocap.err")
lines=$(grep -c . "$tap_tmp/nocap.err")
eng=$(jq -r .params.engine <<<"$out" 2>/dev/null); rp=$(metric receiver.packets "$out")
[ "$lines" = 1 ] && grep -q "CAP_NET_RAW.*using the socket engine" "$tap_tmp/nocap.err" &&
	[ "$eng" = socket ] && [ "${rp:-0}" -gt 0 ]
ok $? "without CAP_NET_RAW: $lines line(s) on stderr ($(head -c 160 "$tap_tmp/nocap.err")), engine $eng, received $rp"

# A server without it: asked for the engine by a client (twice), it says why once per test
# in its log and sends (-R) and receives through its sockets.
rig_bg server setpriv --inh-caps=-all --bounding-set=-net_raw "$bp" serve -p $((port + 1)) \
	--idle-timeout 5 --logfile "$tap_tmp/nocap.log"
rig_wait_port server $((port + 1)) 5
out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -p $((port + 1)) -t 1 -l 64 -b 10M -R -P 2 \
	--json --no-save --engine packet)
eng=$(jq -r .params.engine <<<"$out" 2>/dev/null); rp=$(metric receiver.packets "$out")
rmode=$(jq -r .params.receive_mode <<<"$out" 2>/dev/null)
lines=$(grep -c "CAP_NET_RAW.*using the socket engine" "$tap_tmp/nocap.log")
[ "$lines" = 1 ] && [ "$eng" = socket ] && [ "$rmode" = rx_ring ] && [ "${rp:-0}" -gt 0 ]
ok $? "a server without CAP_NET_RAW: $lines line(s) in its log, engine $eng (the client's receive_mode $rmode), received $rp"
rig_down
tap_done
