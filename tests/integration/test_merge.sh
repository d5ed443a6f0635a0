#!/usr/bin/env bash
# merge (issue 37, src/merge/): three rr testers on this machine, one instant, shares of one
# --rate, made one result. Ground truth that noise cannot move: the merged counts are the
# testers' counts added (transactions, the latency's count), one result merged alone is that
# result (every percentile exactly: its histogram came back whole), the same result twice
# doubles the counts and keeps every percentile, and the merged median lies between the
# testers' own (a mixture's median always does). Then a tester without a result (named,
# exit 1), results of two tests (refused), the text within 80 columns, and the merged result
# saved and read back by history and compare.
# Usage: test_merge.sh BOARDPERF
set -u
bp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # the test works in its own folder
. "$(dirname "$0")/tap.sh"
[ -n "${EPOCHREALTIME:-}" ] || { echo "1..0 # SKIP needs bash 5 (EPOCHREALTIME)"; exit 0; }
export LC_ALL=C
after() { awk -v n="$EPOCHREALTIME" -v s="$1" 'BEGIN { printf "%.6f", n + s }'; }

bp_ports 1; sport=$BP_PORT
"$bp" serve -p "$sport" --idle-timeout 10 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
wait_log "$tap_tmp/serve.log" listening

at=$(after 2.2)
pids=()
for k in 1 2 3; do
	"$bp" rr -c 127.0.0.1 -p "$sport" -t 1 --rate 3000 --share "$k/3" --no-save --json \
		--start-at "$at" >"$tap_tmp/b$k.json" 2>/dev/null &
	pids+=($!)
done
wait "${pids[@]}"
jq -s -e 'all(.[]; .error == null and (.latency.transaction.histogram.buckets | length) > 0)' \
	"$tap_tmp"/b{1,2,3}.json >/dev/null
ok $? "three rr testers measured, each result carrying its latency histogram"
jq -r 'select(.error) | "#   " + .error.message' "$tap_tmp"/b{1,2,3}.json

cd "$tap_tmp" || exit 1
expect_exit 0 "merge b1.json b2.json b3.json" "$bp" merge b1.json b2.json b3.json --json --no-save
merged=$out
jq -e -s '.[0] as $m | .[1:] as $t
	| def fig(d; n): [d.metrics[] | select(.name == n)][0].value;
	$m.test == "rr" and $m.error == null
	and fig($m; "transactions") == ([$t[] | fig(.; "transactions")] | add)
	and fig($m; "transactions") > 0
	and $m.latency.transaction.count == ([$t[].latency.transaction.count] | add)
	and ($m.latency.transaction.histogram.buckets | split(" ") | map(split(":")[1] | tonumber)
	     | add) == $m.latency.transaction.count
	and $m.latency.transaction.min == ([$t[].latency.transaction.min] | min)
	and $m.latency.transaction.max == ([$t[].latency.transaction.max] | max)' \
	<(echo "$merged") b1.json b2.json b3.json >/dev/null
ok $? "merged transactions and latency count are the testers' added, extremes their least and most ($(jq -c '[.metrics[] | select(.name == "transactions")][0].value' <<<"$merged"))"
jq -e -s '.[0].latency.transaction.p50 as $p | [.[1:][].latency.transaction.p50] as $o
	| $p >= ($o | min) * 0.996 and $p <= ($o | max) * 1.004' <(echo "$merged") b1.json b2.json b3.json >/dev/null
ok $? "the merged median lies between the testers' own ($(jq -s -c '[.[].latency.transaction.p50]' <(echo "$merged") b1.json b2.json b3.json))"
jq -e -s '.[0] as $m | ($m.merged.testers | map(.name)) == ["b1", "b2", "b3"]
	and ($m.merged.testers | map(.share)) == ["1/3", "2/3", "3/3"]
	and ($m.params | has("share") | not) and $m.params.rate == 3000
	and ([.[1:][].env.start.actual_epoch_s] | (max - min) * 1e3) as $skew
	| ($m.merged.start_skew_ms - $skew | fabs) < 1e-3' <(echo "$merged") b1.json b2.json b3.json >/dev/null
ok $? "merged.testers names each with its share; the skew is their recorded starts' ($(jq -c .merged.start_skew_ms <<<"$merged") ms)"

expect_exit 0 "merge b1.json alone" "$bp" merge b1.json --json --no-save
jq -e -s '.[0].latency.transaction as $m | .[1].latency.transaction as $o
	| [$m.count, $m.min, $m.p50, $m.p90, $m.p99, $m."p99.9", $m."p99.99", $m.max]
	  == [$o.count, $o.min, $o.p50, $o.p90, $o.p99, $o."p99.9", $o."p99.99", $o.max]
	and $m.histogram == $o.histogram' <(echo "${out:-null}") b1.json >/dev/null
ok $? "one result merged alone is that result: every percentile and bucket the same"
expect_exit 0 "merge b2.json b2.json" "$bp" merge b2.json b2.json --json --no-save
jq -e -s '.[0].latency.transaction as $m | .[1].latency.transaction as $o
	| $m.count == 2 * $o.count and [$m.p50, $m.p99, $m.max] == [$o.p50, $o.p99, $o.max]' \
	<(echo "${out:-null}") b2.json >/dev/null
ok $? "the same result twice: twice the count, the same percentiles"

expect_exit 1 "a tester without a result" "$bp" merge b1.json b2.json b9.json --json --no-save
jq -e '.error.code == "tester-missing" and (.error.message | contains("1 of 3 testers"))
	and (.merged.testers[2] | .name == "b9" and (.missing | contains("no such file")))
	and ([.warnings[] | select(.code == "tester-missing")] | length) == 1
	and [.metrics[] | select(.name == "transactions")][0].value > 0' <<<"${out:-null}" >/dev/null
ok $? "the missing tester is named and the merge says it is incomplete (exit 1)"
expect_exit 1 "text: a tester without a result" "$bp" merge b1.json b2.json b9.json --no-save
grep -q '^no result from b9: ' <<<"$out" && grep -q 'gave no result to merge: b9' <<<"$err"
ok $? "the text names it, stderr says why"
printf '%s\n' "$out" >merged.txt
w=$(widest merged.txt); [ "$w" -gt 0 ] && [ "$w" -le 80 ]; ok $? "the merged text fits 80 columns ($(widest merged.txt))"
wide_lines merged.txt

"$bp" udp -c 127.0.0.1 -p "$sport" -t 0.3 -b 1M --no-save --json >u.json 2>/dev/null
expect_exit 1 "rr and udp results" "$bp" merge b1.json u.json --no-save
grep -q "'b1.json' is a rr result, 'u.json' a udp one" <<<"$err"; ok $? "results of two tests are refused, naming both"
expect_exit 2 "nothing to merge" "$bp" merge
grep -q "expected the testers' results to merge" <<<"$err"; ok $? "merge without a result is a usage error"

expect_exit 0 "merge into a database" "$bp" merge b1.json b2.json b3.json --db m.db --label three
"$bp" history --db m.db >hist.txt 2>&1
grep -q 'three.*rr' hist.txt; ok $? "history lists the merged result as an rr run"
expect_exit 0 "compare a tester with the merge" "$bp" compare b1.json three --db m.db
grep -q 'transactions' <<<"$out"; ok $? "compare takes the merged result like any other"
tap_done
