#!/usr/bin/env bash
# Ground truth for boardperf udp and rfc2544: a device-under-test namespace between client
# and server whose egress tbf shapes to R = 100 Mbit/s. Under R nothing may be lost; above it
# the loss boardperf reports must equal tbf's own drop counter; rfc2544 must find R. All of
# it with both engines (--engine socket, and packet: an AF_PACKET TX ring whose frames go to
# the DUT's MAC from the client's neighbour table, issue 22), and rfc2544's zero-loss rates
# of the two engines within 3 % of each other.
# Usage: test_udp_shaped.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=()
for e in socket packet; do
	checks+=("$e 0.5 R: no loss" "$e 1.2 R: loss equals tbf drops" "$e rfc2544 256"
		"$e rfc2544 1024" "$e rfc2544 1518")
done
checks+=("rfc2544 256 engines agree" "rfc2544 1024 engines agree" "rfc2544 1518 engines agree")
if ! rig_require; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }

R=100000000
payload=1400
# tbf counts each datagram as payload + 8 UDP + 20 IPv4 + 14 Ethernet bytes.
b_for() { awk -v r="$R" -v f="$1" -v p="$payload" 'BEGIN { printf "%.0f", r * f * p / (p + 42) }'; }

# A short tbf queue (10 ms) makes a trial just above R lose within a second.
rig_up --dut --rate 100mbit --latency 10ms
rig_bg server "$bp" serve -p 5201 --idle-timeout 5 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
rig_wait_port server 5201 5  # port-ok: in the test's own namespaces

declare -A zl
for e in socket packet; do
	out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -t 3 -l "$payload" -b "$(b_for 0.5)" \
		--engine "$e" --json)
	check_rates "$out" "$e 0.5 R"
	lost=$(metric lost.packets "$out"); eng=$(jq -r .params.engine <<<"$out")
	[ "${lost:-x}" = 0 ] && [ "$eng" = "$e" ]
	ok $? "$e 0.5 R: no datagram lost (lost=$lost, engine $eng)"

	d0=$(rig_qdisc_drops dut-server)
	out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -t 3 -l "$payload" -b "$(b_for 1.2)" \
		--engine "$e" --json)
	d1=$(rig_qdisc_drops dut-server)
	check_rates "$out" "$e 1.2 R"
	lost=$(metric lost.packets "$out"); sent=$(metric sender.packets "$out")
	drops=$((d1 - d0))
	awk -v l="$lost" -v d="$drops" -v s="$sent" 'BEGIN { x = l - d; if (x < 0) x = -x; exit !(d > 0 && x <= s * 0.005) }'
	ok $? "$e 1.2 R: lost $lost = tbf drops $drops within 0.5 % of $sent sent"
done

# rfc2544 with each engine, three rounds, the engines in turn within each round (so that a
# noisy stretch of the host meets both), each size's figure the best round: the DUT is a tbf
# on this host, and a host that stalls it for longer than its 10 ms queue drops frames in a
# trial well under R (CI, session 20, a quiet machine, one round: 256 B at 87 % of R with
# the socket engine; CI run 81, a noisy host, the socket engine's three rounds one after the
# other: 256 B read 31355, 33289 and 49519 frames/s against 49603). A stall only ever lowers
# the rate the search finds (a rate above R loses in every trial, which the 5 % bound still
# catches), so the fastest round is the one the host disturbed least.
for k in 1 2 3; do
	for e in socket packet; do
		rig_exec client "$bp" rfc2544 -c "$RIG_SERVER_IP" --max 150M --sizes 256,1024,1518 \
			--trial 1 --resolution 1 --engine "$e" --json >"$tap_tmp/rfc.$e.$k" \
			2>"$tap_tmp/rfc.err"
	done
done
# Each round's figures and warnings are printed (at 256 B the socket engine runs near this
# VM's CPU limit, about 50k frames/s: every round warns tester-limited).
for e in socket packet; do
	for k in 1 2 3; do
		echo "# $e round $k: $(jq -c '[([.metrics[] | select(.name | test("zero_loss.fps$")) | .value | floor]), [.warnings[].code]]' "$tap_tmp/rfc.$e.$k" 2>/dev/null)"
	done
	for f in 256 1024 1518; do
		all=$(for k in 1 2 3; do metric "frame$f.zero_loss.fps" "$(cat "$tap_tmp/rfc.$e.$k")"; done |
			sort -g)
		got=$(tail -1 <<<"$all")
		zl[$e.$f]=${got:-0}
		want=$(awk -v r="$R" -v f="$f" 'BEGIN { printf "%.1f", r / ((f - 4) * 8) }')
		awk -v g="${got:-0}" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * 0.05) }'
		ok $? "$e rfc2544 $f: zero-loss $got frames/s (best of $(paste -sd' ' <<<"$all")), the link admits $want (within 5 %)"
	done
done
# The engines against each other, within 3 %, unless the tester said in every round of one
# engine that it was starved of CPU (tester-cpu-starved: a host taking CPU from this VM): then
# each engine is held to the link above (5 %) and not to the other, whose rounds the host
# slowed differently (fresh-clone run 88, every round starved: socket at 1518 B 7731-8114
# frames/s, packet 8323-8360, the link 8256).
starved_all() { # starved_all ENGINE: every round of it warned tester-cpu-starved
	for k in 1 2 3; do
		jq -e '[.warnings[].code] | index("tester-cpu-starved")' "$tap_tmp/rfc.$1.$k" >/dev/null 2>&1 ||
			return 1
	done
}
for f in 256 1024 1518; do
	if starved_all socket || starved_all packet; then
		skip "rfc2544 $f engines agree: socket ${zl[socket.$f]}, packet ${zl[packet.$f]} frames/s" \
			"the tester was starved of CPU in every round of an engine (tester-cpu-starved)"
		continue
	fi
	awk -v a="${zl[socket.$f]}" -v b="${zl[packet.$f]}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= a * 0.03) }'
	ok $? "rfc2544 $f engines agree: socket ${zl[socket.$f]}, packet ${zl[packet.$f]} frames/s (within 3 %)"
done
rig_down
tap_done
