#!/usr/bin/env bash
# `boardperf together` on loopback (~60 s): inner usage errors before anything runs, named by
# number; the mechanics of a common start (each together child's clock starts within a
# fraction of a second of the release, and the two interval series overlap); the
# degradation arithmetic recomputed from the children's own documents; ~0 % for two paced
# UDP tests that share nothing a 2-vCPU machine lacks (250 datagrams/s each: the pacer,
# not the CPU, sets the figure, so it holds on a busy machine too); a failing inner test
# named with the other test's figures kept; the text without the children's sections.
# Usage: test_together.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 2; port=$BP_PORT  # port; port + 1 stays closed (tap.sh)
"$bp" serve -p "$port" --idle-timeout 5 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
wait_log "$tap_tmp/serve.log" listening; ok $? "serve listening on $port"
udp="udp -c 127.0.0.1 -p $port -b 2M -l 1000"

# --- usage errors: the inner command's own message, which test, exit 2, nothing run
expect_exit 2 "bad inner option" "$bp" together "$udp" "disk --mode x"
grep -q "together: error: test 2 ('disk --mode x'): --mode 'x': expected one of" <<<"$err"
ok $? "the error names test 2 and says the inner command's reason"
! grep -q "round 1" <<<"$err"; ok $? "nothing ran before the usage error"
expect_exit 2 "one test only" "$bp" together "$udp"
grep -q "expected 2 to 8 tests" <<<"$err"; ok $? "one test: says how many it takes"
expect_exit 2 "a service inside" "$bp" together "serve" "$udp"
grep -q "test 1 ('serve'): 'serve' cannot run beside another test" <<<"$err"; ok $? "serve refused"
expect_exit 2 "unknown inner command" "$bp" together "$udp" "nosuch -x"
grep -q "test 2 ('nosuch -x'): unknown command 'nosuch'" <<<"$err"; ok $? "unknown command named"
expect_exit 2 "--alone with --no-alone" "$bp" together "$udp" "$udp" --alone --no-alone
# isolation-ok: a usage error (the quote), the path is never opened
expect_exit 2 "unterminated quote" "$bp" together "$udp" "disk --dir '/tmp"
grep -q "unterminated ' quote" <<<"$err"; ok $? "quote error named"

# --- two paced UDP tests, 2 rounds
expect_exit 0 "together: two paced udp tests, 2 rounds" \
	"$bp" together "$udp" "$udp -l 500" -t 2 --repeat 2 --json
json=$out
jq -e '.test == "together" and (.results | length) == 8' <<<"$json" >/dev/null
ok $? "eight children: per round A alone, B alone, then A and B together"
[ "$(jq -c '[.results[].params.together | "\(.round)\(.phase)\(.label)"]' <<<"$json")" = \
  '["1aloneA","1aloneB","1togetherA","1togetherB","2aloneA","2aloneB","2togetherA","2togetherB"]' ]
ok $? "children in run order with their labels"
echo "# children: $(jq -c '[.results[].params.together | "\(.round)\(.phase)\(.label)"]' <<<"$json")"
jq -e '[.results[].params.time] | all(. == 2)' <<<"$json" >/dev/null; ok $? "together's -t is every test's"
jq -e '.params.tests | length == 2' <<<"$json" >/dev/null; ok $? "params name the command lines"

# common start: each together child's clock started within 1 s of the release, the two
# within 0.5 s of each other, and no round warns not-overlapping (where the tester's CPU was
# its own: a result naming its loss may overlap less, and says so)
for round in 1 2; do
	starts=$(jq -c --argjson r "$round" '[.results[].params.together
		| select(.round == $r and .phase == "together") | .start]' <<<"$json")
	echo "# round $round: together starts $starts s after the common start"
	jq -e 'length == 2 and all(. >= -0.01 and . < 1) and ((.[0] - .[1]) | fabs) < 0.5' \
		<<<"$starts" >/dev/null
	ok $? "round $round: both clocks started at the common start"
	# the series on the common clock: A's and B's intervals overlap for most of the time
	jq -e --argjson r "$round" '[.intervals[] | select(.metrics.round == $r)] as $iv
		| ([$iv[] | select(.metrics | has("A.receiver.pps"))] ) as $a
		| ([$iv[] | select(.metrics | has("B.receiver.pps"))] ) as $b
		| ($a | length) >= 2 and ($b | length) >= 2
		  and ([($a | last.end), ($b | last.end)] | min) - ([($a[0].start), ($b[0].start)] | max)
		      >= 0.9 * ([($a | last.end) - $a[0].start, ($b | last.end) - $b[0].start] | min)' \
		<<<"$json" >/dev/null || [ -n "$(tester_cpu_named "$json")" ]
	ok $? "round $round: A's and B's interval series overlap in time ($(tester_cpu_named "$json"))"
done
# A start 0.4 s apart leaves 2 s tests overlapping 80 %, and the tool says so; only a result
# that names the tester's lost CPU may (CI run 46 under ASan in a lane: starts 0.21 and
# 0.59 s after the release)
! jq -e '.warnings[] | select(.code == "not-overlapping")' <<<"$json" >/dev/null ||
	[ -n "$(tester_cpu_named "$json")" ]
ok $? "no not-overlapping warning, or the tester's lost CPU named"

# arithmetic: every figure from the children's own documents
check_figure() { # LABEL METRIC
	jq -e --arg l "$1" --arg m "$2" '
		def med: sort | if length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def fig($ph): [.results[] | select(.params.together.label == $l and
			.params.together.phase == $ph)] | sort_by(.params.together.round)
			| map(.metrics[] | select(.name == $m) | .value);
		def rep($s): .metrics[] | select(.name == "\($l).\($m).\($s)") | .value;
		def near($a; $b): (($a - $b) | fabs) <= 1e-9 * ([($a | fabs), ($b | fabs), 1] | max);
		(fig("alone")) as $al | (fig("together")) as $to
		| ([range(0; $al | length) | ($al[.] - $to[.]) / $al[.] * 100]) as $d
		| ($al | length) == 2 and near(rep("alone"); $al | med)
		  and near(rep("together"); $to | med) and near(rep("degradation"); $d | med)
		  and near(rep("degradation.min"); $d | min) and near(rep("degradation.max"); $d | max)
	' <<<"$json" >/dev/null
	ok $? "$1.$2: alone, together, degradation and its min/max are the children's figures"
}
check_figure A receiver.pps
check_figure B receiver.pps
for l in A B; do
	d=$(jq -r --arg l "$l" '.metrics[] | select(.name == "\($l).receiver.pps.degradation") | .value' <<<"$json")
	echo "# $l.receiver.pps.degradation = $d %; per run: $(jq -c --arg l "$l" '[.results[]
		| select(.params.together.label == $l) | {(.params.together.phase + (.params.together.round
		| tostring)): (.metrics[] | select(.name == "receiver.pps") | .value)}] | add' <<<"$json")"
	# the median within 5 % of 0, and no round worse together than 5 %; a round whose alone
	# run other load on this machine held back (it happens under a sanitizer at load 9) may
	# read below zero, which is not interference. A round whose together run names the CPU
	# its tester lost (tap.sh's tester_cpu_named) may read worse: fresh-clone run 98, the
	# hypervisor taking 30 % of the machine, read 233 pkt/s together against 248 alone.
	jq -e --arg l "$l" '
		def pps: [.metrics[] | select(.name == "receiver.pps") | .value][0];
		def named: any(.warnings[]?; .code == "tester-cpu-starved" or
			.code == "busy-machine" or .code == "tester-cpu-bound");
		[.results[] | select(.params.together.label == $l)] as $c
		| [.metrics[] | select(.name | test("^\($l)\\.receiver\\.pps\\.degradation")) | .value]
		| length == 3 and ((.[0] | fabs) < 5 or any($c[]; named)) and
		  all($c[] | select(.params.together.phase == "together"); . as $t
		    | ($c[] | select(.params.together.phase == "alone" and
		      .params.together.round == $t.params.together.round) | pps) as $a
		    | ($a - ($t | pps)) / $a * 100 < 5 or ($t | named))' <<<"$json" >/dev/null
	ok $? "$l: paced tests that share nothing lose ~0 % (median |degradation| < 5 %, worst round < 5 %, or the round names its lost CPU)"
done
jq -e '.metrics[] | select(.name == "A.receiver.pps.degradation") | .unit == "percent" and .better == "lower"' \
	<<<"$json" >/dev/null
ok $? "degradation in percent, lower is better"

# --- text and CSV: the comparison without the children's sections; CSV has the children
expect_exit 0 "together text, --no-alone" "$bp" together "$udp" "$udp" -t 1 --repeat 1 --no-alone
grep -Eq '^A\.receiver\.pps\.together +2[0-9.]+ pkt/s' <<<"$out"; ok $? "text shows A's figure together"
! grep -E '^[AB]\.' <<<"$out" | grep -q 'alone\|degradation'; ok $? "--no-alone: no alone figures, no degradation"
! grep -q '^=== ' <<<"$out"; ok $? "text leaves the children's sections out"
grep -Eq '^start +end +round +[AB]\.receiver\.pps' <<<"$out"; ok $? "text has the interval series"
expect_exit 0 "together --csv" "$bp" together "$udp" "$udp" -t 1 --repeat 1 --no-alone --csv
[ "$(grep -c '^udp,' <<<"$out")" -gt 0 ]; ok $? "CSV carries the children's rows"

# --- an inner test that fails: its error named, the other's figures kept
dead=$((port + 1))
expect_exit 1 "one inner test fails" "$bp" together "udp -c 127.0.0.1 -p $dead" \
	"cpu --algo sha256 --sizes 8192 --threads 1" -t 0.5 --repeat 1 --json
json=$out
jq -e '.error.message | test("test 1 \\(.udp -c 127.0.0.1 -p [0-9]+.\\), round 1 alone: ")' <<<"$json" >/dev/null
ok $? "the error names the failing test and its run"
jq -e '[.warnings[] | select(.code == "child-failed")] | length == 2' <<<"$json" >/dev/null
ok $? "one child-failed warning per failed run (alone and together)"
jq -e '[.metrics[] | select(.name == "B.sha256.8192.alone" or .name == "B.sha256.8192.together")
	| .value > 0] | length == 2' <<<"$json" >/dev/null
ok $? "the other test's figures are kept"
jq -e '[.results[] | select(.test == "udp") | .error.code] | all(. == "connect-refused")' <<<"$json" >/dev/null
ok $? "the failed children keep their own error"
tap_done
