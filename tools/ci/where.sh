#!/usr/bin/env bash
# Which test ran in which CI leg, from the legs' Meson test logs: a Markdown table with a
# row per test and a column per leg (each cell: the test's TAP checks in that leg, "1" for
# a test without TAP lines, blank where it did not run), then each leg's tests and checks.
# docs/CI.md's table comes from it; run it after `.ci/run` to see where a new test lands.
#   usage: tools/ci/where.sh LEG=DIR [LEG=DIR ...]
#   e.g.   tools/ci/where.sh gcc=build asan=build-asan tsan=build-tsan \
#            fuzz=build-asan/meson-logs/fuzzlog.json \
#            arm64=build-dist/arm64 armhf=build-dist/armhf armel=build-dist/armel \
#            boards=build-dist/boards vm=build-dist/vm
# DIR is a folder with meson-logs/testlog*.json, or one such file. With --suites, rows are
# grouped to one per suite (unit, integration, figures, fuzz, ...) instead of one per test.
set -euo pipefail
group=
[ "${1:-}" = --suites ] && { group=1; shift; }
[ $# -gt 0 ] || { echo "usage: where.sh [--suites] LEG=DIR..." >&2; exit 2; }
args=() legs=() tmps=()
trap 'rm -f "${tmps[@]}"' EXIT
for spec in "$@"; do
	leg=${spec%%=*} path=${spec#*=}
	[ "$leg" != "$spec" ] || { echo "where.sh: '$spec': expected LEG=DIR" >&2; exit 2; }
	if [ -d "$path" ]; then  # testlog.json and test.sh's lanes' testlog-LANE.json, as one
		logs=("$path"/meson-logs/testlog*.json)
		[ -f "${logs[0]}" ] || { echo "where.sh: $leg: no test log in $path/meson-logs" >&2; exit 1; }
		path=$(mktemp); tmps+=("$path"); cat "${logs[@]}" >"$path"
	fi
	[ -f "$path" ] || { echo "where.sh: $leg: no test log at $path" >&2; exit 1; }
	legs+=("$leg")
	args+=(--slurpfile "l${#legs[@]}" "$path")
done
# One record per leg and test: its name without the project prefix, its checks.
jq -rn --argjson group "${group:-0}" "${args[@]}" --arg legs "${legs[*]}" '
	($legs | split(" ")) as $names
	| [range(0; $names | length) as $i | $ARGS.named["l\($i + 1)"][]
	   | (.name | sub("^boardperf:"; "") | sub("\\+(solo|lane_[ab]|figures_(a|b|solo))"; "")) as $n
	   | ((.stdout // "") | split("\n") | map(select(test("^(not )?ok "))) | length) as $c
	   | {leg: $names[$i], test: (if $group == 1 then ($n | split(" / ")[0]
				      | if test("^fuzz_.*_run$") then "fuzz (libFuzzer)" else . end)
				     else $n end),
	      checks: (if $c > 0 then $c else 1 end)}]
	| group_by(.test) as $rows
	| "| test | \($names | join(" | ")) |",
	  "| :--- |\($names | map(" ---: |") | join(""))",
	  ($rows[] | . as $r | "| \($r[0].test) | \([$names[] as $l
		| ([$r[] | select(.leg == $l) | .checks] | add // "")] | map(tostring) | join(" | ")) |"),
	  "| **tests** | \([$names[] as $l | [$rows[][] | select(.leg == $l)] | length] | map(tostring) | join(" | ")) |",
	  "| **checks** | \([$names[] as $l | [$rows[][] | select(.leg == $l) | .checks] | add // 0] | map(tostring) | join(" | ")) |"
'
