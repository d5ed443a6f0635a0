#!/usr/bin/env bash
# Prints a line per given Meson build folder (all of its meson-logs/testlog*.json), then one
# closing line over all of their test logs: "tests: N passed, N failed, N skipped" (each TAP check counts; "ok ... # SKIP" is
# skipped). A folder without a log (its tests never ran) counts as one failure. An argument
# may also be a log file itself (tests/fuzz/run.sh writes BUILD/meson-logs/fuzzlog.json). Above the
# closing line, every failure by name: the build, the test, and its "not ok" lines, each with
# up to six "#" lines of diagnosis that follow it; for a test that failed without one, its
# result and the last lines it printed. A CI log cut to its end still says what failed, and why.
set -euo pipefail
passed=0 failed=0 skipped=0 named=
for b in "$@"; do
	# A build's logs: testlog.json and, from test.sh's lanes, testlog-LANE.json.
	logs=("$b"/meson-logs/testlog*.json)
	case $b in *.json) logs=("$b") ;; esac
	[ -f "${logs[0]}" ] || { echo "$b: no test log" >&2; failed=$((failed + 1)); continue; }
	# One JSON object per test binary; a TAP binary's checks are in its stdout.
	read -r p f s < <(jq -rs '
		[ .[] | (.stdout // "" | split("\n")) as $lines
		  | { ok: ([$lines[] | select(test("^ok ") and (test("# SKIP") | not))] | length),
		      skip: ([$lines[] | select(test("^ok .*# SKIP"))] | length),
		      nok: ([$lines[] | select(test("^not ok "))] | length),
		      res: .result } ]
		| [ (map(if .ok + .nok > 0 then .ok else (if .res == "OK" then 1 else 0 end) end) | add // 0),
		    (map(if .res == "FAIL" or .res == "TIMEOUT" or .res == "ERROR"
			 then ([.nok, 1] | max) else .nok end) | add // 0),
		    ((map(select(.res == "SKIP")) | length) + (map(.skip) | add // 0)) ] | @tsv' "${logs[@]}")
	echo "$b: $p passed, $f failed, $s skipped"
	named+=$(jq -rs --arg b "$b" '
		.[] | (.stdout // "" | split("\n")) as $lines
		| [range($lines | length) | select($lines[.] | test("^not ok "))] as $at
		| [$at[:10][] as $i | $lines[$i],
		   ($lines[$i + 1:$i + 7] | until(length == 0 or all(test("^#")); .[:-1]) | .[])] as $nok
		| select(($nok | length) > 0 or .result == "FAIL" or .result == "TIMEOUT"
			 or .result == "ERROR")
		| "failed: \($b) \(.name) (\(.result))",
		  (if ($nok | length) > 0 then ($nok[] | "  \(.)")
		   else ((.stdout // "") + (.stderr // "") | split("\n")
			 | map(select(length > 0)) | .[-5:][] | "  \(.)") end)' "${logs[@]}")
	named+=$'\n'
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
printf '%s' "$named" | sed '/^$/d'
echo "tests: $passed passed, $failed failed, $skipped skipped"
