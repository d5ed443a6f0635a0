#!/usr/bin/env bash
# boardperf udp on loopback: the pacer hits its rate within 1 %, every datagram is accounted
# for, every direction works, bad lengths are refused.
# Usage: test_udp.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 1; port=$BP_PORT  # tap.sh
"$bp" serve -p "$port" --idle-timeout 3 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
for _ in $(seq 50); do grep -qs listening "$tap_tmp/serve.log" && break; sleep 0.1; done

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
within() { awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * p / 100) }'; }
# figure STATUS DESCRIPTION: a check of a figure against loopback's ground truth. When it
# fails and the result itself says its figure is not the path's (a sanitizer build, a
# tester that could not offer the rate or did not get the CPU), the premise is gone: a
# skip that names the warnings, as the figures suite is not run under ASan at all.
figure() {
	local why
	why=$(jq -r '[.warnings[].code | select(. == "unrepresentative-build" or . == "tester-limited"
		or . == "tester-cpu-starved")] | join(", ")' <<<"$out" 2>/dev/null)
	if [ "$1" != 0 ] && [ -n "$why" ]; then
		skip "$2" "the result warns $why"
	else
		ok "$1" "$2"
	fi
}

for rate in 100000000 1000000000; do
	expect_exit 0 "udp at $rate bit/s" "$bp" udp -c 127.0.0.1 -p "$port" -t 2 -b "$rate" --json
	s=$(metric sender.bitrate "$out")
	within "$s" "$rate" 1; figure $? "offered $s bit/s is within 1 % of $rate"
	sp=$(metric sender.packets "$out"); rp=$(metric receiver.packets "$out")
	lost=$(metric lost.packets "$out"); kd=$(metric receiver.kernel_drops "$out")
	[ "$rp" -gt 0 ] && [ "$((rp + lost))" -eq "$sp" ]
	ok $? "every datagram accounted for: sent $sp = received $rp + lost $lost (kernel drops $kd)"
done
n=$(jq '[.intervals[] | .metrics["sender.pps"]] | length' <<<"$out")
[ "$n" -ge 2 ]; ok $? "interval reports carry packets per second ($n)"

expect_exit 0 "reverse" "$bp" udp -c 127.0.0.1 -p "$port" -t 1 -b 50M -R --json
[ "$(metric receiver.packets "$out")" -gt 0 ]; ok $? "reverse: this side received"
jq -e '.metrics[] | select(.name == "jitter") | .value >= 0' <<<"$out" >/dev/null
ok $? "jitter reported"
expect_exit 0 "bidir, 2 streams" "$bp" udp -c 127.0.0.1 -p "$port" -t 1 -b 20M --bidir -P 2 --json
[ "$(metric up.receiver.packets "$out")" -gt 0 ] && [ "$(metric down.receiver.packets "$out")" -gt 0 ]
ok $? "bidir: both directions received"
expect_exit 0 "as fast as possible, 64-byte datagrams" "$bp" udp -c 127.0.0.1 -p "$port" -t 1 \
	-b 0 -l 64 --json
[ "$(metric receiver.packets "$out")" -gt 10000 ]; ok $? "unpaced: $(metric receiver.pps "$out") datagrams/s"
expect_exit 0 "--frame 64" "$bp" udp -c 127.0.0.1 -p "$port" -t 1 --frame 64 --json
jq -e '.params.payload == 18' <<<"$out" >/dev/null; ok $? "a 64-byte IPv4 frame carries 18 bytes of payload"

expect_exit 2 "too short a datagram" "$bp" udp -c 127.0.0.1 -p "$port" -l 8
expect_exit 2 "frame too small" "$bp" udp -c 127.0.0.1 -p "$port" --frame 40
grep -q "frame" <<<"$err"; ok $? "frame error names the frame: $err"
expect_exit 2 "-R with --bidir" "$bp" udp -c 127.0.0.1 -R --bidir
grep -q "udp upload" "$tap_tmp/serve.log"; ok $? "server logged the udp tests"

# rfc2544 on loopback: at 20 Mbit/s nothing is lost, so the first trial (the maximum) passes;
# at 100 Gbit/s with 64-byte frames (148.8 M frames/s) the tester cannot offer the rate, and
# says so (it sends one packet per datagram on loopback, far below 148.8 M/s).
expect_exit 0 "rfc2544 at 20M" "$bp" rfc2544 -c 127.0.0.1 -p "$port" --max 20M --sizes 64,1518 \
	--trial 0.3 --json
jq -e '([.metrics[] | select(.name == "frame64.zero_loss.percent_of_max")][0].value == 100)
	and ([.metrics[] | select(.name == "frame1518.zero_loss.fps")][0].value > 1600)
	and ([.warnings[] | select(.code == "short-trials")] | length == 1)' <<<"$out" >/dev/null
figure $? "20M: zero loss at 100 % of the medium for 64 and 1518, short trials stated"
# --min-percent: a verdict; at 10 Mbit/s (2,350 frames/s of 512 B) the first trial passes,
# exit 0, unless the tester could not offer it (a busy machine: then exit 3, said so)
out=$("$bp" rfc2544 -c 127.0.0.1 -p "$port" --max 10M --sizes 512 --trial 0.3 \
	--min-percent 100 --json 2>/dev/null); rc=$?
[ "$rc" = 0 ] && jq -e '[.metrics[] | select(.name == "pass")][0].value == 1' <<<"$out" >/dev/null
figure $? "--min-percent 100 at 10M: PASS, exit 0 (exit $rc)"
expect_exit 2 "--min-percent with --test loss" "$bp" rfc2544 -c 127.0.0.1 --max 1M --test loss \
	--min-percent 50
# The text's trial table gives each frame size as the size asked for.
expect_exit 0 "rfc2544 text" "$bp" rfc2544 -c 127.0.0.1 -p "$port" --max 20M --sizes 1518 \
	--trial 0.2
grep -qE '^ *[0-9.]+ +[0-9.]+ +1518 B ' <<<"$out" && ! grep -q KiB <<<"$out"
ok $? "rfc2544 text: the frame prints as 1518 B"
# ... and a verdict it asked for fails: exit 3, measured (a device's line rate not shown)
expect_exit 3 "rfc2544 beyond the tester" "$bp" rfc2544 -c 127.0.0.1 -p "$port" --max 100G \
	--sizes 64 --trial 0.3 --resolution 10 --min-percent 90 --json
jq -e '([.warnings[] | select(.code == "tester-limited")] | length == 1) and
	([.metrics[] | select(.name == "pass")][0].value == 0)' <<<"$out" >/dev/null
ok $? "a rate the tester cannot offer is reported as the tester's limit; --min-percent 90: FAIL"
expect_exit 0 "rfc2544 frame loss rate" "$bp" rfc2544 -c 127.0.0.1 -p "$port" --max 50M --sizes 512 \
	--trial 0.3 --test loss --json
jq -e '[.metrics[] | select(.name | startswith("frame512.loss_at_"))] | length == 2' <<<"$out" >/dev/null
ok $? "frame loss rate stops after two clean trials"
expect_exit 1 "rfc2544 without --max toward loopback" "$bp" rfc2544 -c 127.0.0.1 -p "$port"
grep -q -- "link speed toward 127.0.0.1 (interface lo) is unknown: give the medium's rate with --max" \
	<<<"$err"; ok $? "asks for --max where the link speed is unknown: $err"
expect_exit 2 "rfc2544 bad size" "$bp" rfc2544 -c 127.0.0.1 --max 1G --sizes 64,20
grep -q -- "--sizes '20'" <<<"$err"; ok $? "names the bad size: $err"
tap_done
