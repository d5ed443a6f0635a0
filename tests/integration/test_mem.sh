#!/usr/bin/env bash
# `boardperf mem` as a script sees it: the JSON contract, every metric, cache levels that
# show, bad input refused in one line, and a stop that keeps what was measured.
# Usage: test_mem.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

expect_exit 0 "mem --help" "$bp" mem --help
grep -q "^Usage: boardperf mem" <<<"$out"; ok $? "mem --help shows its usage line"

expect_exit 0 "mem -t 0.2 --json" "$bp" mem -t 0.2 --json
json=$out
jq -e '.schema == "boardperf/1" and .test == "mem"' <<<"$json" >/dev/null
ok $? "JSON has schema and test"
jq -e '.params.size > 0 and .params.threads >= 1 and .params.line_bytes >= 8' \
	<<<"$json" >/dev/null; ok $? "params carry the effective buffer size, threads and line"

metric() { jq -e --arg n "$1" --arg u "$2" --arg b "$3" \
	'[.metrics[] | select(.name == $n and .unit == $u and .better == $b and .value > 0)]
	 | length == 1' <<<"$json" >/dev/null; }
for op in memcpy memset; do
	metric "$op.bandwidth" B/s higher; ok $? "$op.bandwidth present, positive, B/s"
	metric "$op.bandwidth.all" B/s higher; ok $? "$op.bandwidth.all present, positive, B/s"
	metric "$op.bandwidth.scaling" percent higher; ok $? "$op.bandwidth.scaling present, positive, percent"
	# 100 MiB/s is far below any board made this century: below it, something is broken.
	jq -e --arg n "$op.bandwidth" '.metrics[] | select(.name == $n) | .value > 100 * 1048576' \
		<<<"$json" >/dev/null; ok $? "$op.bandwidth above 100 MiB/s"
done
for s in 4KiB 16KiB 64KiB 256KiB 1MiB 4MiB 16MiB 64MiB; do
	metric "latency.$s" ns lower; ok $? "latency.$s present, positive, ns"
done
jq -e '([.metrics[] | select(.name == "latency.4KiB")][0].value) <
       ([.metrics[] | select(.name == "latency.64MiB")][0].value)' <<<"$json" >/dev/null
ok $? "latency at 4 KiB below latency at 64 MiB (the cache levels show)"
jq -e '.cpu.local.user_s >= 0 and .cpu.local.wall_s > 0 and (.cpu.local | has("busy_share"))' \
	<<<"$json" >/dev/null; ok $? "the tester's CPU use is in the cpu section"
jq -e '[.warnings[] | select(.code == "tester-cpu-starved")] | length <= 1' <<<"$json" >/dev/null
ok $? "at most one tester-cpu-starved warning"

expect_exit 0 "mem --no-latency" "$bp" mem -t 0.05 --no-latency --size 8M --threads 1 --json
jq -e '([.metrics[].name | select(startswith("latency."))] | length == 0) and
       .params.size == 8388608 and .params.threads == 1' <<<"$out" >/dev/null
ok $? "--no-latency measures no latency; --size and --threads take effect"
jq -e '.params.llc_bytes as $llc
       | [.warnings[] | select(.code == "buffer-fits-cache")] | length ==
         (if $llc != null and $llc * 4 > 8388608 then 1 else 0 end)' \
	<<<"$out" >/dev/null; ok $? "buffer-fits-cache exactly when 8M is under 4x the LLC"

expect_exit 0 "mem --no-bandwidth --max-size 256K" "$bp" mem -t 0.05 --no-bandwidth \
	--max-size 256K --json
jq -e '[.metrics[].name] == ["latency.4KiB", "latency.16KiB", "latency.64KiB", "latency.256KiB"]' \
	<<<"$out" >/dev/null; ok $? "--max-size bounds the working sets; no bandwidth"

expect_exit 0 "mem text" "$bp" mem -t 0.05 --max-size 16K --size 4M
grep -q "MiB/s\|GiB/s" <<<"$out"; ok $? "text shows bandwidth in binary units"

one_line_naming() { # one_line_naming WHAT VALUE CMD...
	local what=$1 value=$2
	shift 2
	expect_exit 2 "$what" "$@"
	[ "$(wc -l <<<"$err")" -eq 1 ] && grep -qF -- "'$value'" <<<"$err"
	ok $? "$what: one line naming '$value'"
}
one_line_naming "bad size" 12x "$bp" mem --size 12x
one_line_naming "negative threads" -1 "$bp" mem --threads -1
one_line_naming "zero time" 0 "$bp" mem -t 0
one_line_naming "tiny max-size" 1K "$bp" mem --max-size 1K
expect_exit 2 "nothing to measure" "$bp" mem --no-latency --no-bandwidth
expect_exit 2 "stray argument" "$bp" mem extra

# Ctrl-C during a long item: exit 0, the JSON holds what was measured up to then and says so.
"$bp" mem --no-bandwidth -t 5 --json >"$tap_tmp/int.json" 2>"$tap_tmp/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
[ $? -eq 0 ]; ok $? "SIGINT: exit 0 (something was measured)"
jq -e '[.metrics[] | select(.name == "latency.4KiB" and .value > 0)] | length == 1' \
	"$tap_tmp/int.json" >/dev/null; ok $? "SIGINT: the item under way is kept"
jq -e '.error == null and ([.warnings[] | select(.code == "interrupted" and
	(.message | test("stopped by signal")))] | length == 1)' "$tap_tmp/int.json" >/dev/null
ok $? "SIGINT: warning interrupted says it stopped"

tap_done
