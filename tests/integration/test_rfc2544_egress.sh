#!/usr/bin/env bash
# rfc2544 when the tester's own interface is the narrowest point (issue 15, item 5): a veth
# whose link speed reads 10 Gbit/s, its egress shaped with tbf to a rate R this test picks at
# random, and no --max, so the search starts at 10 Gbit/s. The zero-loss rate found must be
# what the shaped egress carries (within 5 %) for 64, 512 and 1518-byte frames, and the result
# must say that the tester's egress set it; an unpaced udp sender behind the same egress backs
# off from its full qdisc (its rate, its CPU). Needs root (skips otherwise); ~42 s.
# Not in parts (tap.sh, "Parts"): timed as a whole. Its run is the five rounds (~30 s), and
# their checks are rates (zero loss within 5 % of the egress's) or need the tester to out-run
# its egress (the few trials, the tester-egress-limited warning); the two that are not (the
# link speed, the search from 10 Gbit/s in every round) would cost a rig or the rounds again.
# Usage: test_rfc2544_egress.sh BOARDPERF   (BP_EGRESS_MBIT=N reruns with R = N Mbit/s)
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

sizes=(64 512 1518)
checks=("link speed reads 10 Gbit/s" "rfc2544 ran without --max, five rounds")
for f in "${sizes[@]}"; do
	checks+=("$f B: zero-loss rate is the shaped rate" "$f B: bit rate in frame bits" "$f B: few trials")
done
checks+=("warning names the egress" "udp -b 0 behind the egress: its rate, stalls named, CPU")
if ! rig_require jq ethtool; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
within() { awk -v g="${1:-0}" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * t) }'; }

# R from 6 to 14 Mbit/s: 64-byte frames at 14 Mbit/s are 29,167 frames/s, which the tester
# must send faster than that, or its CPU and not its egress would set the rate; on a busy
# 2-core machine (load 7) it manages about 33,000 a second through the veth.
mbit=${BP_EGRESS_MBIT:-$((6 + RANDOM % 9))}
R=$((mbit * 1000000))
echo "# tester's egress shaped to R = $mbit Mbit/s (rerun with BP_EGRESS_MBIT=$mbit)"

# rig_up --rate puts the tbf on both veth ends: the client's (the tester's own egress, which
# every UDP trial crosses) and the server's (which only the control connection's replies
# cross). A 20 ms queue: what is left in it at a trial's end is small, and the end of test
# that waits behind it arrives soon. A 64 KiB bucket: tbf hands out tokens when its watchdog
# runs, and on a busy machine it runs late; a bucket of a few frames loses the tokens of
# every late wake-up and carries less than R (seen: -15 % with 12 KiB at load 8 on 2 cores;
# 64 KiB covers wake-ups up to 37 ms late at 14 Mbit/s). A full bucket at a trial's start
# lets 64 KiB through on top of R; rfc2544 leaves the first quarter of a trial, which holds
# it, out of the rate it takes as the egress's.
rig_up --rate "${mbit}mbit" --burst 64kb --latency 20ms
speed=$(rig_exec client ethtool "$RIG_CLIENT_IF" 2>/dev/null | sed -n 's/^[[:space:]]*Speed: \([0-9]*\)Mb\/s/\1/p')
[ "${speed:-0}" = 10000 ]; ok $? "the tester's $RIG_CLIENT_IF reads $speed Mb/s, the search's upper end"
rig_bg server "$bp" serve -p 5201 --idle-timeout 5 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
rig_wait_port server 5201 5  # port-ok: in the test's own namespaces

# Five rounds, the frame sizes interleaved in each; each size's figure is the median of its
# rounds, so that the trials in which the busy machine starved the tester or tbf itself (at
# load 12 on 2 cores, two rounds in three have been) do not decide (each round takes ~7 s:
# two 1 s trials per size).
rounds=5
medium=0
for ((k = 0; k < rounds; k++)); do
	rig_exec client "$bp" rfc2544 -c "$RIG_SERVER_IP" --sizes 64,512,1518 --trial 1 --json \
		>"$tap_tmp/round$k.json" 2>"$tap_tmp/round$k.err"
	jq -e '.params.medium_bps == 1e10' "$tap_tmp/round$k.json" >/dev/null && medium=$((medium + 1))
done
[ "$medium" = "$rounds" ]
ok $? "rfc2544 without --max took the link speed, 10 Gbit/s, in $medium of $rounds rounds"
jq -e '[.warnings[].code] | index("loopback") == null' "$tap_tmp/round0.json" >/dev/null
ok $? "a server in another namespace is not this machine's (no loopback warning)"
# The round whose figure for frame size $1 is the median of the rounds.
median_round() {
	for ((k = 0; k < rounds; k++)); do
		echo "$(jq -r --arg n "frame$1.zero_loss.fps" '[.metrics[] | select(.name == $n)][0].value // 0' \
			"$tap_tmp/round$k.json") $k"
	done | sort -g | sed -n "$(((rounds + 1) / 2))p" | cut -d' ' -f2
}

# Units. tbf charges each frame skb->len bytes: the Ethernet header, IP, UDP and payload, but
# neither the 4-byte FCS (the NIC adds it after the qdisc) nor preamble and inter-frame gap
# (20 bytes of line time, which tbf knows nothing of without `overhead`). A frame of f bytes
# (RFC 2544's size, FCS included) therefore costs (f - 4) * 8 tbf bits, and R admits
# R / ((f - 4) * 8) frames/s: 52,083 of 64 B at 25 Mbit/s, not R / (f * 8) = 48,828 (the
# L2-with-FCS count, 6 % less) nor R / ((f + 20) * 8) (line rate, 24 % less). zero_loss.fps
# is compared with that; zero_loss.bitrate counts f * 8 bits per frame (FCS included, no
# preamble or gap), so it must read R * f / (f - 4).
for f in "${sizes[@]}"; do
	k=$(median_round "$f")
	out=$(cat "$tap_tmp/round$k.json")
	all=$(for ((j = 0; j < rounds; j++)); do
		jq -r --arg n "frame$f.zero_loss.fps" '[.metrics[] | select(.name == $n)][0].value // 0' \
			"$tap_tmp/round$j.json"
	done | awk '{ printf "%s%.0f", (NR > 1 ? ", " : ""), $1 }')
	got=$(metric "frame$f.zero_loss.fps" "$out")
	want=$(awk -v r="$R" -v f="$f" 'BEGIN { printf "%.1f", r / ((f - 4) * 8) }')
	# Within 5 %; or below it where the median round names the tester's lost CPU: on a busy
	# host tbf's watchdog and the tester run late alike, and the egress carries less than
	# R in the very trial that measures it (CI, stop 45, under ASan: three rounds in five
	# 11 % short)
	why=$(tester_cpu_named "$out")
	short=0
	within "$got" "$want" 0.05 || { short=1; below_named "$out" "$got" "$want"; }
	ok $? "$f B: zero-loss ${got:-none} frames/s (median of $all), the shaped egress admits $want (within 5 %, or below with the tester's CPU named: ${why:-none})"
	bits=$(metric "frame$f.zero_loss.bitrate" "$out")
	within "$bits" "$(awk -v g="${got:-0}" -v f="$f" 'BEGIN { print g * f * 8 }')" 0.0001 &&
		{ [ "$short" = 1 ] || within "$bits" "$(awk -v r="$R" -v f="$f" 'BEGIN { print r * f / (f - 4) }')" 0.05; }
	ok $? "$f B: zero_loss.bitrate ${bits:-none} bit/s = fps * $f * 8, and R * $f / $((f - 4)) within 5 % where the rate was"
	# Halving from 10 Gbit/s to R would take 9 trials or more; the egress figure is tried
	# and confirmed instead.
	trials=$(metric "frame$f.trials" "$out")
	[ "${trials:-99}" -le 4 ]; ok $? "$f B: $trials trials (the egress rate, then its confirmation)"
done

# The rounds say that the tester's own egress set their answers, name the interface, and
# give each frame size's egress rate: judged as the figures are, by the rounds that decide
# (the majority, and for each size the round whose figure is the median). A round in which
# the busy machine made tbf itself carry less than it had (a trial at the rate it carried a
# moment before lost frames) found a lower answer that the egress did not set, and rightly
# says nothing of it (CI, stop 43: 4 of 5 rounds under ASan with the lanes).
egress_said() {  # ROUND [SIZE]: the warning, and SIZE's egress figure (or every size's)
	jq -e --arg ifc "$RIG_CLIENT_IF" --arg f "${2:-(64|512|1518)}" '([.warnings[] | select(.code == "tester-egress-limited"
		and (.message | contains("interface " + $ifc)))] | length == 1)
		and ([.metrics[] | select(.name | test("^frame" + $f + "[.]tester_egress[.]fps$"))]
		     | length == (if $f | startswith("(") then 3 else 1 end))' "$tap_tmp/round$1.json" >/dev/null
}
warned=0
for ((k = 0; k < rounds; k++)); do
	egress_said "$k" && warned=$((warned + 1))
done
medians_said=0
for f in "${sizes[@]}"; do
	egress_said "$(median_round "$f")" "$f" && medians_said=$((medians_said + 1))
done
[ "$warned" -gt $((rounds / 2)) ] && [ "$medians_said" = "${#sizes[@]}" ]
ok $? "tester-egress-limited, naming $RIG_CLIENT_IF, with each size's egress rate, in $warned of $rounds rounds and in $medians_said of ${#sizes[@]} sizes' median rounds"
# An unpaced udp sender behind its own shaped egress (issue 33): the qdisc refuses its
# sends (ENOBUFS) and the socket stays writable; the sender backs off instead of retrying at
# once (it spun at 99.9 % of a core), keeps the egress full: the receiver gets R in payload
# (1400 of the 1442 bytes tbf charges) and the bucket's 64 KiB on top, in 1 s; and it says
# its kernel refused sends. Below that share only where the result names the tester's lost
# CPU: a sender not run leaves the egress idle (CI run 54 under ASan in a lane, the machine
# 96 % busy: 10.3 of 12.9 Mbit/s, tester-cpu-starved and busy-machine named).
out=$(rig_exec client "$bp" udp -c "$RIG_SERVER_IP" -t 1 -b 0 -l 1400 --json --no-save)
rate=$(metric receiver.bitrate "$out")
busy=$(jq -r '.cpu.local.busiest_worker_percent // 100' <<<"$out")
share=$(awk -v r="$R" 'BEGIN { print (r + 65536 * 8) * 1400 / 1442 }')
{ within "$rate" "$share" 0.1 || below_named "$out" "$rate" "$share"; } &&
	awk -v b="$busy" 'BEGIN { exit !(b < 25) }' &&
	jq -e '[.warnings[].code] | index("tester-send-stalled") != null' <<<"$out" >/dev/null
ok $? "udp -b 0 behind the egress: received ${rate:-none} bit/s, R's payload share ($share) and the bucket within 10 % (or below with the tester's CPU named: $(tester_cpu_named "$out")), tester-send-stalled ($(metric sender.stalls "$out") refused), busiest worker $busy % of a core (< 25)"
if [ "$tap_failed" != 0 ]; then
	for ((k = 0; k < rounds; k++)); do
		echo "# round $k"
		jq -r '.warnings[] | "#   warning [\(.code)]: \(.message)"' "$tap_tmp/round$k.json"
		sed 's/^/#   stderr: /' "$tap_tmp/round$k.err"
	done
fi
rig_down
tap_done
