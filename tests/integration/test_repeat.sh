#!/usr/bin/env bash
# --repeat and --until-stable (docs/run.md, "Repeating a test") with real short runs (~25 s): cpu
# and tcp on loopback; the median, min, max and CoV of each headline figure recomputed with
# jq from the kept runs' own figures; the cap; --until-stable stopping once stable and
# warning not-stable with the CoV reached when not; bad values exit 2 with one line; the
# text's one line per run; a command's own --repeat (together) hides the common one in --help.
# Usage: test_repeat.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 1; port=$BP_PORT  # tap.sh
"$bp" serve -p "$port" -B 127.0.0.1 --idle-timeout 5 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
wait_log "$tap_tmp/serve.log" listening; ok $? "serve listening on $port"

# jq: for each headline figure F the parent names, the statistics of the runs' own F
# (sample standard deviation, n - 1) beside the parent's F, F.min, F.max, F.cov.
recompute_jq='
def med: sort | if length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def value(f): if (f | endswith(".p50")) then (.latency[f | rtrimstr(".p50")].p50)
	else ((.metrics | map(select(.name == f)))[0].value) end;
(.metrics | map({(.name): .value}) | add) as $p
| [.results[] | select(.error == null)] as $runs
| [$p | keys[] | select((endswith(".min") or endswith(".max") or endswith(".cov")) | not)
	| select(. != "runs")] as $figs
| [$figs[] as $f | ($runs | map(value($f))) as $v
	| ($v | add / length) as $mean
	| (if ($v | length) > 1 then (($v | map((. - $mean) * (. - $mean)) | add) / (($v | length) - 1) | sqrt) else 0 end) as $sd
	| (if ($v | min) == ($v | max) then 0 else $sd / ($mean | fabs) * 100 end) as $cov
	| {f: $f, ok: ((($p[$f] - ($v | med)) | fabs) <= 1e-9 * ($p[$f] | fabs) + 1e-12
		and $p[$f + ".min"] == ($v | min) and $p[$f + ".max"] == ($v | max)
		and (($p[$f + ".cov"] - $cov) | fabs) <= 1e-6 * ($cov + 1))}]
| {runs: ($runs | length), counted: $p.runs, figs: length, bad: map(select(.ok | not) | .f)}
'
check_figures() { # check_figures JSON WHAT WANT_RUNS
	local r
	r=$(jq -c "$recompute_jq" <<<"$1" 2>/dev/null)
	[ -n "$r" ] && [ "$(jq -r '.bad | length' <<<"$r")" -eq 0 ] && [ "$(jq .figs <<<"$r")" -gt 0 ]
	ok $? "$2: median, min, max and CoV equal those of the kept runs ($r)"
	[ "$(jq .runs <<<"$r")" -eq "$3" ] && [ "$(jq .counted <<<"$r")" -eq "$3" ]
	ok $? "$2: $3 runs kept under results, runs = $3"
}

# --- cpu: 3 runs, each a whole cpu document
expect_exit 0 "cpu --repeat 3" "$bp" cpu --algo sha256,rsa2048 --sizes 8192 -t 0.2 --repeat 3 -J
cpu=$out
check_figures "$cpu" "cpu" 3
jq -e '.test == "cpu" and .params.repeat == 3 and .params.until_stable == null and
	([.results[] | .test == "cpu" and (.params.algo == "sha256,rsa2048")] | all) and
	(.metrics | map(.name) | index("rsa2048.sign") != null and index("sha256.8192") != null)' \
	<<<"$cpu" >/dev/null
ok $? "cpu: the parent names both headline figures, each run its own parameters"
jq -e '[.metrics[] | select(.name | endswith(".cov")) | .unit == "percent" and .better == "lower"] | all' \
	<<<"$cpu" >/dev/null
ok $? "cpu: each CoV in percent, lower is better"

# --- tcp on loopback: 4 runs
# each run's rates against its own bytes and spans (the parent holds medians, not spans)
run_json() { # run_json WHAT CMD...: exit 0 wanted, stdout in $out
	local what=$1 got
	shift
	out=$("$@" 2>"$tap_tmp/stderr") && got=0 || got=$?
	ok $got "$what (exit $got)"
	for i in $(seq 0 $(($(jq '.results | length' <<<"$out") - 1))); do
		check_rates "$(jq ".results[$i]" <<<"$out")" "$what: run $((i + 1))"
	done
}
run_json "tcp --repeat 4" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.3 --repeat 4 -J
tcp=$out
check_figures "$tcp" "tcp" 4
jq -e '[.results[] | .test == "tcp" and (.metrics | map(.name) | index("receiver.bitrate") != null)] | all' \
	<<<"$tcp" >/dev/null
ok $? "tcp: every run is a tcp document with its receiver.bitrate"

# --- rr: the latency headline as a figure (transaction.p50)
expect_exit 0 "rr --repeat 2" "$bp" rr -c 127.0.0.1 -p "$port" -t 0.3 --repeat 2 -J
check_figures "$out" "rr" 2
jq -e '.metrics | map(.name) | index("transaction.p50") != null' <<<"$out" >/dev/null
ok $? "rr: transaction.p50 among the figures"

# --- --until-stable: a CoV no loopback tcp reaches runs to the cap and says so
run_json "tcp --until-stable 0.01 --repeat 3" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.2 \
	--until-stable 0.01 --repeat 3 -J
check_figures "$out" "until-stable at the cap" 3
jq -e --argjson cov "$(jq '.metrics[] | select(.name == "receiver.bitrate.cov") | .value' <<<"$out")" \
	'.warnings | map(select(.code == "not-stable")) | length == 1 and
	(.[0].message | test("receiver.bitrate: CoV [0-9.]+ % over 3 runs, above --until-stable 0.01 %")) and
	(.[0].message | contains(($cov * 100 | round / 100 | tostring)))' <<<"$out" >/dev/null
ok $? "not-stable names the figure and the CoV reached over the 3 runs"
# a CoV every run meets (cpu's sha256 within 100 %) stops at the third run, without a warning
expect_exit 0 "cpu --until-stable 100" "$bp" cpu --algo sha256 --sizes 8192 -t 0.1 --until-stable 100 -J
check_figures "$out" "until-stable met" 3
jq -e '(.warnings // []) | map(.code) | index("not-stable") == null' <<<"$out" >/dev/null
ok $? "stable after 3 runs: no not-stable warning"
jq -e '.params.repeat == 10 and .params.until_stable == 100' <<<"$out" >/dev/null
ok $? "--until-stable alone: the documented cap of 10 recorded"

# --- text: the parent's figures and one summary line per run
expect_exit 0 "text" "$bp" cpu --algo sha256 --sizes 8192 -t 0.1 --repeat 2
[ "$(grep -c '^cpu  *ok ' <<<"$out")" -eq 2 ] && grep -q 'min .* max .* cov' <<<"$out"
ok $? "text: min/max/cov columns and one summary row per run"
expect_exit 0 "csv" "$bp" cpu --algo sha256 --sizes 8192 -t 0.1 --repeat 2 --csv
grep -q '^cpu,total,,,sha256.8192.cov,' <<<"$out"; ok $? "csv: the CoV row"

# --- bad values: exit 2, one line naming the value
expect_exit 2 "--repeat 0" "$bp" cpu --repeat 0
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "\-\-repeat '0': out of range, expected 1 to 1000" <<<"$err"
ok $? "--repeat 0: one line ($err)"
expect_exit 2 "--until-stable -1" "$bp" cpu --until-stable -1
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "\-\-until-stable '-1': out of range" <<<"$err"
ok $? "--until-stable -1: one line ($err)"
expect_exit 2 "--until-stable with a cap of 2" "$bp" cpu --until-stable 5 --repeat 2
grep -q "needs a cap of at least 3" <<<"$err"; ok $? "a cap below 3 runs refused"
expect_exit 2 "serve --repeat" "$bp" serve --repeat 2
grep -q -- "--repeat is not an option of this command" <<<"$err"; ok $? "serve refused"
expect_exit 2 "run --repeat" "$bp" run --repeat 2
grep -q -- "--repeat is not an option of this command" <<<"$err"; ok $? "run refused"

# --- together's own --repeat hides the common one in its --help; others list it
expect_exit 0 "together --help" "$bp" together --help
[ "$(grep -c -- '^ *--repeat N' <<<"$out")" -eq 1 ] && grep -q 'rounds (each' <<<"$out"
ok $? "together --help: one --repeat N, its own rounds"
expect_exit 2 "together --until-stable" "$bp" together "cpu -t 0.1" "mem -t 0.1" --until-stable 5
grep -q -- "--until-stable is not an option of this command" <<<"$err"
ok $? "together refuses the common repeat"
expect_exit 0 "cpu --help" "$bp" cpu --help
grep -q -- '--until-stable COV' <<<"$out"; ok $? "cpu --help: --until-stable among the common options"

tap_done
