#!/usr/bin/env bash
# Runs every libFuzzer target of a clang fuzz build for a bounded time each, from its seed
# corpus (tests/fuzz/corpus/NAME), and fails when any of them finds a crash, a leak, a
# sanitizer report, a timeout (one input over 10 s) or runs out of memory (2 GiB).
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_EACH] [--merge]
#
# BUILD_DIR is a clang build with -Db_sanitize=address,undefined (tests/fuzz/meson.build
# says how). What a run finds goes to a scratch corpus; --merge adds the inputs that reach
# new code to the seed corpus in the tree (minimised, by libFuzzer's -merge=1), so that
# the corpus grows from what the fuzzers find. A crash leaves its input in the scratch
# directory (printed); fix the bug, then keep the input as corpus/NAME/crash-WHAT.
# Each target's verdict also goes to BUILD_DIR/meson-logs/testlog.json, one line per
# target in Meson's shape, so that tests/summary.sh counts the fuzz runs with the tests.
set -u
build=${1:?usage: run.sh BUILD_DIR [SECONDS_EACH] [--merge]}
secs=${2:-30}
merge=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/bp-fuzz.XXXXXX)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=() ran=0
log="$build/meson-logs/testlog.json"
mkdir -p "$build/meson-logs" && rm -f "$log"
verdict() { # verdict NAME OK|FAIL TEXT
	jq -cn --arg n "fuzz_$1_run" --arg r "$2" --arg t "$3" \
		'{name: $n, result: $r, stdout: $t}' >>"$log"
}
for seeds in "$here"/corpus/*/; do
	name=$(basename "$seeds")
	bin="$build/tests/fuzz/fuzz_$name"
	[ -x "$bin" ] || { echo "fuzz $name: no target $bin (not a clang fuzz build?)"
		failed+=("$name"); verdict "$name" FAIL "no target"; continue; }
	mkdir -p "$scratch/$name/new" "$scratch/$name/crash"
	start=$(date +%s)
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$scratch/$name/crash/" "$scratch/$name/new" "$seeds" \
		>"$scratch/$name/log" 2>&1
	rc=$?
	ran=$((ran + 1))
	stats=$(grep -E '^stat::number_of_executed_units' "$scratch/$name/log" | awk '{print $2}')
	found=$(find "$scratch/$name/new" -type f | wc -l)
	if [ "$rc" -ne 0 ]; then
		failed+=("$name")
		echo "fuzz $name: FAILED (exit $rc) after $(($(date +%s) - start)) s; input and log:"
		ls "$scratch/$name/crash/" | sed "s|^|  $scratch/$name/crash/|"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$scratch/$name/log" | head -n 8 | sed 's/^/  /'
		verdict "$name" FAIL "$(tail -n 40 "$scratch/$name/log")"
	else
		echo "fuzz $name: ok, ${stats:-?} inputs in $secs s, $found new in the scratch corpus"
		verdict "$name" OK "${stats:-?} inputs in $secs s"
		if [ "$merge" = --merge ] && [ "$found" -gt 0 ]; then
			"$bin" -merge=1 "$seeds" "$scratch/$name/new" >>"$scratch/$name/log" 2>&1
			echo "  merged into $seeds: $(find "$seeds" -type f | wc -l) inputs now"
		fi
	fi
done
echo "fuzz: $ran targets run for $secs s each, ${#failed[@]} failed${failed:+: ${failed[*]}} (logs in $scratch)"
[ "${#failed[@]}" -eq 0 ]
