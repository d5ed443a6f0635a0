#!/usr/bin/env bash
# `boardperf gpio` on this machine, whose kernel has no GPIO: the no-gpio error in one line
# and in the JSON, option errors (exit 2), --list and info without GPIO, run --gpio's error
# path; then the whole command against a copy of a fixture tree (--root: the virt board's
# /sys with plain files), where the sysfs method really toggles and reads back a value file:
# figures, restore, refusal of a line in use, --method all, SIGINT. The character device
# runs in the emulated boards (tools/boards).
# Usage: test_gpio.sh BOARDPERF FIXTURES (tests/unit/gpio/fixtures)
set -u
bp=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

one_line() { [ "$(wc -l <<<"$err")" -eq 1 ] && grep -qF -- "$1" <<<"$err"; }

# --- no GPIO in this kernel (no /sys/bus/gpio) ---
nogpio="no GPIO chips: the kernel lacks GPIO (CONFIG_GPIOLIB)"
if [ -d /sys/bus/gpio ]; then
	skip "no-gpio error" "this kernel has GPIO (/sys/bus/gpio exists)"
else
	expect_exit 1 "gpio --line 0 without GPIO" "$bp" gpio --line 0
	one_line "$nogpio"; ok $? "one line: $nogpio"
	expect_exit 1 "gpio --line 0 --json without GPIO" "$bp" gpio --line 0 --json
	jq -e '.test == "gpio" and .error.code == "no-gpio" and
	       (.error.message | test("CONFIG_GPIOLIB"))' \
		<<<"$out" >/dev/null; ok $? "JSON error.code no-gpio"
	expect_exit 1 "gpio --list without GPIO" "$bp" gpio --list --json
	jq -e '.test == "gpio-list" and .chips == [] and .error.code == "no-gpio"' <<<"$out" >/dev/null
	ok $? "--list --json: no chips, error no-gpio"
	expect_exit 0 "info --json" "$bp" info --json
	jq -e '.env.inventory.gpio == []' <<<"$out" >/dev/null; ok $? "info: an empty gpio list"
	expect_exit 0 "info" "$bp" info
	grep -qE '^  gpio +none$' <<<"$out"; ok $? "info text: gpio none"
fi
expect_exit 1 "the empty-bus fixture" "$bp" gpio --root "$fixtures/emptybus" --line 0
one_line "no GPIO chips found"; ok $? "gpiolib without a chip: 'no GPIO chips found'"

# --- option errors: exit 2, one line naming the value ---
expect_exit 2 "no --line" "$bp" gpio
one_line "--line N is required"; ok $? "no --line: one line saying so"
for bad in 12x -3 ""; do
	expect_exit 2 "--line '$bad'" "$bp" gpio --line "$bad"
	[ "$(wc -l <<<"$err")" -eq 1 ]; ok $? "--line '$bad': one line"
done
expect_exit 2 "--readback=x" "$bp" gpio --line 1 --readback=x
one_line "'x'"; ok $? "--readback=x: names 'x'"
expect_exit 2 "--method bogus" "$bp" gpio --line 1 --method bogus
expect_exit 2 "--loop-to the same line" "$bp" gpio --line 2 --loop-to 2
expect_exit 2 "--list with --line" "$bp" gpio --list --line 2
expect_exit 2 "-t 0" "$bp" gpio --line 1 -t 0
expect_exit 2 "run --gpio without a line" "$bp" run --gpio gpiochip0
one_line "expected CHIP:LINE"; ok $? "run --gpio: one line expecting CHIP:LINE"
expect_exit 0 "gpio --help" "$bp" gpio --help
grep -qF -- "--readback[=N]" <<<"$out"; ok $? "--help shows --readback[=N]"

# --- the command on a fixture tree (plain files stand for sysfs) ---
tree="$tap_tmp/virt"
cp -a "$fixtures/virt" "$tree"
expect_exit 0 "--list on the fixture" "$bp" gpio --root "$tree" --list
grep -qF 'gpiochip0 "9030000.pl061": 8 lines, /dev/gpiochip0, sysfs base 512' <<<"$out"
ok $? "--list: the chip line"
grep -qE '^ +line +3 +unnamed +input +active-high +used by "sysfs"$' <<<"$out"
ok $? "--list: line 3 used by sysfs"
[ "$(grep -cE 'unknown$' <<<"$out")" -eq 7 ]
ok $? "--list: the other 7 lines unknown (sysfs alone cannot tell a driver's line from a free one)"
expect_exit 0 "--list --json on the fixture" "$bp" gpio --root "$tree" --list --json
jq -e '.test == "gpio-list" and (.chips | length) == 1 and .chips[0].sysfs_base == 512 and
       (.chips[0].lines_info | length) == 8 and .chips[0].lines_info[3].free == false and
       .chips[0].lines_info[0].free == null and
       .chips[0].lines_info[3].consumer == "sysfs"' <<<"$out" >/dev/null
ok $? "--list --json: chips, lines_info"
expect_exit 0 "info --root" "$bp" info --root "$tree" --json
jq -e '.env.inventory.gpio == [{"name": "gpiochip0", "label": "9030000.pl061", "lines": 8}]' \
	<<<"$out" >/dev/null; ok $? "info: env.inventory.gpio"

expect_exit 1 "line out of range" "$bp" gpio --root "$tree" --line 60 --json
jq -e '.error.message == "line 60: gpiochip0 \"9030000.pl061\" has lines 0..7"' <<<"$out" >/dev/null
ok $? "out of range: the chip's range named"
jq -e '.error.code == "no-such-line"' <<<"$out" >/dev/null; ok $? "line out of range: code no-such-line"
expect_exit 1 "unknown line name" "$bp" gpio --root "$tree" --line NOSUCH --json
jq -e '.error.code == "no-such-line"' <<<"$out" >/dev/null; ok $? "unknown line name: code no-such-line"
expect_exit 1 "unknown chip, JSON" "$bp" gpio --root "$tree" --chip nosuch --line 1 --json
jq -e '.error.code == "no-such-chip"' <<<"$out" >/dev/null; ok $? "unknown chip: code no-such-chip"
expect_exit 1 "unknown chip" "$bp" gpio --root "$tree" --chip nosuch --line 1
one_line "no GPIO chip 'nosuch' (chips: gpiochip0 \"9030000.pl061\" 8 lines)"
ok $? "unknown chip: the chips listed"
expect_exit 1 "a line in use" "$bp" gpio --root "$tree" --method sysfs --line 3 --json
jq -e '.error.code == "line-busy" and
       .error.message == "line 3 of gpiochip0 is in use by \"sysfs\" (--force to take it)"' \
	<<<"$out" >/dev/null; ok $? "line in use: refused, line-busy"

expect_exit 0 "sysfs --force --readback" "$bp" gpio --root "$tree" --method sysfs --line 3 \
	--force --readback -t 0.3 -i 0 --json
json=$out
metric() { jq -e --arg n "$1" --arg u "$2" \
	'[.metrics[] | select(.name == $n and .unit == $u and .value >= 0)] | length == 1' \
	<<<"$json" >/dev/null; }
for m in "sysfs.periods.rate Hz" "sysfs.edges.rate op/s" "sysfs.write.mean ns" \
	 "sysfs.overhead ns" "loop.write.mean ns" "sysfs.readback.checks op" \
	 "sysfs.readback.mismatches op"; do
	metric $m; ok $? "metric $m"
done
jq -e '([.metrics[] | {(.name): .value}] | add) as $m
       | ($m["sysfs.edges.rate"] - 2 * $m["sysfs.periods.rate"] | fabs)
         <= 1e-9 * $m["sysfs.edges.rate"]
       and $m["sysfs.periods.rate"] > 0
       and $m["sysfs.readback.mismatches"] == 0 and $m["sysfs.readback.checks"] >= 2048' \
	<<<"$json" >/dev/null; ok $? "edges = 2 x periods; every read-back matched"
jq -e '.latency["sysfs.write"].count >= 1 and .latency["sysfs.write"].unit == "ns"' \
	<<<"$json" >/dev/null; ok $? "latency sysfs.write (every 1024th pair)"
jq -e '.params.chip == "gpiochip0" and .params.chip_label == "9030000.pl061" and
       .params.chip_lines == 8 and .params.line == 3 and .params.consumer_before == "sysfs" and
       .params.methods == ["sysfs"] and .params.readback == 1 and .params.loop_to == null and
       .params.force == true and .params.sample_every == 1024 and
       (.params["sysfs.path"] | test("sysfs"))' <<<"$json" >/dev/null
ok $? "params: chip, line, consumer_before, methods, readback, sample_every, sysfs.path"
jq -e '[.warnings[].code] | index("sysfs-deprecated") != null' <<<"$json" >/dev/null
ok $? "warning sysfs-deprecated"
[ "$(cat "$tree/sys/class/gpio/gpio515/direction")" = in ]; ok $? "direction restored to in"
[ ! -s "$tree/sys/class/gpio/unexport" ]; ok $? "someone else's export is not unexported"

expect_exit 0 "--readback=100" "$bp" gpio --root "$tree" --method sysfs --line 3 --force \
	--readback=100 -t 0.2 --json
jq -e '([.metrics[] | {(.name): .value}] | add) as $m
       | $m["sysfs.readback.checks"] > 0 and .params.readback == 100' <<<"$out" >/dev/null
ok $? "--readback=100: checks every 100th write"

expect_exit 0 "--method all" "$bp" gpio --root "$tree" --method all --line 3 --force -t 0.2 --json
jq -e '.params["chardev.path"] == null and (.params["chardev.unavailable"] | type) == "string" and
       ([.metrics[].name] | index("sysfs.periods.rate") != null)' <<<"$out" >/dev/null
ok $? "--method all: chardev listed with its reason, sysfs measured"

expect_exit 0 "text output" "$bp" gpio --root "$tree" --method sysfs --line 3 --force -t 0.2 -i 0
grep -q "sysfs.periods.rate" <<<"$out" && grep -q "Hz" <<<"$out"; ok $? "text shows the rate in Hz"

# SIGINT: the figures so far, an interrupted warning, the line restored
"$bp" gpio --root "$tree" --method sysfs --line 3 --force -t 20 -i 0 --json \
	>"$tap_tmp/int.json" 2>"$tap_tmp/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
[ $? -eq 0 ]; ok $? "SIGINT: exit 0 (something was measured)"
jq -e '([.metrics[] | select(.name == "sysfs.periods.rate" and .value > 0)] | length == 1) and
       ([.warnings[] | select(.code == "interrupted")] | length == 1)' "$tap_tmp/int.json" \
	>/dev/null; ok $? "SIGINT: the rate kept, warning interrupted"
[ "$(cat "$tree/sys/class/gpio/gpio515/direction")" = in ]; ok $? "SIGINT: direction restored"

# run --gpio on a machine without GPIO: the gpio step fails with no-gpio, the suite says so
if [ -d /sys/bus/gpio ]; then
	skip "run --gpio error path" "this kernel has GPIO"
else
	expect_exit 1 "run --gpio gpiochip0:0" "$bp" run --gpio gpiochip0:0 --json
	jq -e '[.results[] | select(.test == "gpio")][0].error.code == "no-gpio" and
	       ([.warnings[] | select(.code == "child-failed" and (.message | startswith("gpio:")))]
	        | length == 1)' <<<"$out" >/dev/null
	ok $? "run --gpio: the gpio step's error no-gpio, child-failed"
fi

tap_done
