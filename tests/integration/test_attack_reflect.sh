#!/usr/bin/env bash
# Reflection through the UDP greeting (issue 16, item 2). An attacker holds a control
# connection from one address (.1) and sends the stream's greeting ("9876", or boardperf's
# "9876" + cookie) from another (.3): the server must send nothing to .3 (an nftables
# counter on the server's output hook, ground truth) while the test from .1 still runs and
# its datagrams are counted right. Before the fix the server answered .3 and sent it the
# whole reverse stream. Cases: stock iperf3's udp -R, boardperf's udp -R and rr --udp (a
# python client, tests/integration/udp_greeter.py, speaking the control protocol), stock
# iperf3 -u and -u -R and boardperf's udp, udp -R, rr --udp and rfc2544 while .3 floods
# greetings; the drops logged on a few lines, not one per greeting; and on loopback in a
# namespace of its own, an IPv4 client of the dual-stack listener (v4-mapped, 127.0.0.1 vs
# 127.0.0.2) and IPv6 (2001:2::1 vs 2001:2::3, RFC 5180's benchmarking range).
# Timed section (tap.sh, "Parts"): the floods (~25 s), whose tests must receive > 1000 of the
# ~2080 datagrams 2 s at 10 Mbit/s carry (a rate a loaded machine broke), with the checks
# that read them (nothing sent to .3 over the run, the drops' log lines: one per 10 s). The
# python client's cases and the loopback namespace are plain; the rig serves both parts.
# Usage: [BP_PART=all|plain|timed] test_attack_reflect.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
. "$here/../rig/rig.sh"

port=5201  # port-ok: in the test's own namespaces
greeter="$here/udp_greeter.py"
descs=("udp -R (iperf3 dialect): greeting from .3 dropped, test from .1 runs"
	"udp -R (boardperf cookie): greeting from .3 dropped, test from .1 runs"
	"rr --udp: greeting and requests from .3 dropped, test from .1 answered"
	"stock iperf3 -u -R from .1 while .3 floods greetings"
	"stock iperf3 -u from .1 while .3 floods greetings"
	"boardperf udp -R, udp, rr --udp, rfc2544 while .3 floods greetings"
	"nothing sent to .3 over the whole run"
	"the drops logged on a few lines"
	"loopback, dual-stack listener: IPv4 (v4-mapped) greeting from another address dropped"
	"loopback: IPv6 greeting from another address dropped")
if ! rig_require nft jq iperf3 python3; then
	plain && rig_tap_skip "${descs[@]:0:3}"
	timed && rig_tap_skip "${descs[@]:3:5}"
	plain && rig_tap_skip "${descs[@]:8:2}"
	tap_done
	exit
fi

# Counters on the server's output: everything to the attacker's address, and the data
# datagrams to the client's (over 60 bytes: not the 4-byte answer; -l 1200 is 1208).
nft_rules() { # nft_rules FAMILY CLIENT ATTACKER
	cat <<EOF
table inet bprefl {
	counter to_att { }
	counter to_ctl { }
	chain out {
		type filter hook output priority 0;
		$1 daddr $3 counter name "to_att";
		$1 daddr $2 udp sport $port udp length > 60 counter name "to_ctl";
	}
}
EOF
}
nft_count() { # nft_count NS NAME: packets the counter has seen
	ip netns exec "$1" nft -j list counter inet bprefl "$2" |
		jq '[.nftables[] | select(.counter) | .counter.packets][0]'
}

rig_up
ctl=$RIG_CLIENT_IP
# The attacker's second address: 198.19.X.3 is free with this rig's X (rig_up picks an X
# free in both 198.18 and 198.19), on the client's veth, routed back to it by the server.
att=198.19.$RIG_NET.3
rig_exec client ip addr add "$att/32" dev "$RIG_CLIENT_IF"
rig_exec server ip route add "$att/32" dev "$RIG_SERVER_IF"
nft_rules ip "$ctl" "$att" | rig_exec server nft -f -
log=$tap_tmp/serve.log
# --idle-timeout 5: the python client keeps its control connection idle (opening streams) for
# 2.5 s before the real greeting; 5 s leaves a loaded machine 2.5 s of that, where 3 left 0.5 s.
rig_bg server "$bp" serve -p "$port" --idle-timeout 5 --logfile "$log"
srv_pid=$RIG_BG_PID
rig_wait_port server "$port" 5
srv=$RIG_SERVER_IP

# case KIND DESC: the python client's run; .3 got nothing, the test from .1 got its data.
case_greeter() {
	local a0 a1 out
	a0=$(nft_count "$RIG_SERVER_NS" to_att)
	out=$(rig_exec client python3 "$greeter" test "$srv" "$port" "$ctl" "$att" "$1" legit 2>&1 | tr "\n" " ")
	a1=$(nft_count "$RIG_SERVER_NS" to_att)
	jq -e '.spoofed_received == 0 and (.spoofed_answered | not) and
		(.started_on_spoof | not) and .legit_answered and .legit_started and
		.legit_received > 0' <<<"$out" >/dev/null && [ "$a1" -eq "$a0" ]
	ok $? "$2 (nft: $((a1 - a0)) packets to .3; $out)"
}
if plain; then
	case_greeter udp-r "${descs[0]}"
	case_greeter bp-udp-r "${descs[1]}"
	case_greeter bp-rr-udp "${descs[2]}"
fi

# flood: 500 greetings from .3, 5 ms apart (about 3 s), in the background; flood_stop waits
# for it to end (it is bounded) so that its count of what it sent is complete.
flood_pid=
flood_start() {
	rig_bg client python3 "$greeter" flood "$srv" "$port" "$att" 500 5 >>"$tap_tmp/flood.out"
	flood_pid=$RIG_BG_PID
}
flood_stop() { wait "$flood_pid" 2>/dev/null; }

if timed; then
	# iperf3 -u -R: what the client received must be what left the server toward it (the
	# counter), with what was still in flight at the end (sent - received - lost) allowed.
	flood_start
	c0=$(nft_count "$RIG_SERVER_NS" to_ctl)
	out=$(rig_exec client iperf3 -c "$srv" -p "$port" -B "$ctl" -u -R -b 10M -l 1200 -t 2 -J)
	rc=$?
	c1=$(nft_count "$RIG_SERVER_NS" to_ctl)
	flood_stop
	data=$((c1 - c0))
	rp=$(jq '.end.sum.packets - .end.sum.lost_packets' <<<"$out" 2>/dev/null)
	rp=${rp:-0}
	[ "$rc" -eq 0 ] && [ "$rp" -gt 1000 ] && [ "$rp" -le "$data" ] && [ $((data - rp)) -le 200 ]
	ok $? "${descs[3]}: iperf3 received $rp, nft counted $data sent to .1"

	flood_start
	out=$(rig_exec client iperf3 -c "$srv" -p "$port" -B "$ctl" -u -b 10M -l 1200 -t 2 -J)
	rc=$?
	flood_stop
	rp=$(jq '.end.sum.packets - .end.sum.lost_packets' <<<"$out" 2>/dev/null)
	[ "$rc" -eq 0 ] && [ "${rp:-0}" -gt 1000 ]
	ok $? "${descs[4]}: server received ${rp:-none}"

	metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
	flood_start
	fails=()
	out=$(rig_exec client "$bp" udp -c "$srv" -p "$port" -R -b 10M -l 1200 -t 2 --json)
	v=$(metric receiver.packets "$out"); [ "${v:-0}" -gt 1000 ] || fails+=("udp -R: ${v:-none}")
	out=$(rig_exec client "$bp" udp -c "$srv" -p "$port" -b 10M -l 1200 -t 2 --json)
	v=$(metric receiver.packets "$out"); [ "${v:-0}" -gt 1000 ] || fails+=("udp: ${v:-none}")
	out=$(rig_exec client "$bp" rr -c "$srv" -p "$port" --udp -t 2 --json)
	v=$(metric transactions.rate "$out"); [ -n "$v" ] && [ "${v%.*}" -gt 0 ] || fails+=("rr: ${v:-none}")
	flood_stop
	flood_start
	out=$(rig_exec client "$bp" rfc2544 -c "$srv" -p "$port" --sizes 1518 --trial 1 --max 20M \
		--resolution 20 --json)
	v=$(jq -r '[.metrics[] | select(.name | endswith("zero_loss.fps"))][0].value // empty' <<<"$out")
	[ -n "$v" ] && [ "${v%.*}" -gt 0 ] || fails+=("rfc2544: ${v:-none}")
	flood_stop
	[ ${#fails[@]} -eq 0 ]
	ok $? "${descs[5]}${fails[*]:+: ${fails[*]}}"

	a=$(nft_count "$RIG_SERVER_NS" to_att)
	[ "$a" -eq 0 ]
	ok $? "${descs[6]}: nft counted $a packets to $att"

	# About 2,000 greetings from .3 came in; the log has one line per 10 s, not per greeting,
	# and the server's last line (at its stop) counts them all: the flood's and the 3 of each
	# of the three python cases (their requests from .3 are not greetings) when they ran.
	py=0; plain && py=9
	kill -TERM "$srv_pid"
	for _ in $(seq 50); do kill -0 "$srv_pid" 2>/dev/null || break; sleep 0.1; done
	sent=$(jq -s 'map(.flood_sent) | add' "$tap_tmp/flood.out")
	n=$(grep -c "UDP greeting" "$log")
	total=$(grep -o '[0-9]* since start' "$log" | tail -1 | cut -d' ' -f1)
	[ "$n" -ge 2 ] && [ "$n" -le 10 ] && [ "${total:-0}" -eq $((sent + py)) ]
	rc=$?
	grep "UDP greeting" "$log" | sed 's/^/# /'
	ok $rc "${descs[7]}: $n lines for $((sent + py)) greetings, the last counts ${total:-none} ($(grep "UDP greeting" "$log" | tail -1))"
fi

rig_down

if plain; then
	# Loopback in a namespace of this test's own: the listener is [::] (dual-stack), so the
	# IPv4 control connection and greeting both arrive as ::ffff:127.0.0.x.
	trap 'rig_lo_down; rm -rf "$tap_tmp"' EXIT
	rig_lo_up bprefl
	lo_ns=$RIG_LO_NS
	ip -n "$lo_ns" addr add 2001:2::1/128 dev lo nodad
	ip -n "$lo_ns" addr add 2001:2::3/128 dev lo nodad
	{ nft_rules ip 127.0.0.1 127.0.0.2; } | ip netns exec "$lo_ns" nft -f -
	ip netns exec "$lo_ns" nft add rule inet bprefl out ip6 daddr 2001:2::3 counter name to_att
	rig_lo_serve "$tap_tmp/lo.log" "$bp" -p "$port" --idle-timeout 5  # as the rig's server
	lo_case() { # lo_case SERVER CTL ATTACKER DESC
		local a0 a1 out
		a0=$(nft_count "$lo_ns" to_att)
		out=$(ip netns exec "$lo_ns" python3 "$greeter" test "$1" "$port" "$2" "$3" bp-udp-r legit 2>&1 | tr "\n" " ")
		a1=$(nft_count "$lo_ns" to_att)
		jq -e '.spoofed_received == 0 and (.spoofed_answered | not) and .legit_answered and
			.legit_received > 0' <<<"$out" >/dev/null && [ "$a1" -eq "$a0" ]
		ok $? "$4 (nft: $((a1 - a0)) packets to $3; $out)"
	}
	lo_case 127.0.0.1 127.0.0.1 127.0.0.2 "${descs[8]}"
	lo_case 2001:2::1 2001:2::1 2001:2::3 "${descs[9]}"
	rig_lo_down
fi
tap_done
