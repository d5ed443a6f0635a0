#!/usr/bin/env bash
# Runs every libFuzzer target of a clang fuzz build for a bounded time each, from its seed
# corpus (tests/fuzz/corpus/NAME), and fails when any of them finds a crash, a leak, a
# sanitizer report, a timeout (one input over 10 s) or runs out of memory (2 GiB).
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_EACH] [--merge]
#
# BUILD_DIR is a clang build with -Db_sanitize=address,undefined: `make build-asan`'s
# (tests/fuzz/meson.build says more). What a run finds goes to a scratch corpus; --merge
# adds the inputs that reach new code to the seed corpus in the tree (minimised, by
# libFuzzer's -merge=1), so that the corpus grows from what the fuzzers find. A crash leaves its input in the scratch
# directory (printed); fix the bug, then keep the input as corpus/NAME/crash-WHAT.
# Each target's verdict also goes to BUILD_DIR/meson-logs/fuzzlog.json, one line per target
# in the shape of Meson's testlog.json (which the same build's `meson test` keeps for its
# own), so that tests/summary.sh counts the fuzz runs with the tests.
set -u
build=${1:?usage: run.sh BUILD_DIR [SECONDS_EACH] [--merge]}
secs=${2:-10}
merge=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d /tmp/bp-fuzz.XXXXXX)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=() ran=0
log="$build/meson-logs/fuzzlog.json"
mkdir -p "$build/meson-logs" && rm -f "$log"
verdict() { # verdict NAME OK|FAIL TEXT
	jq -cn --arg n "fuzz_$1_run" --arg r "$2" --arg t "$3" \
		'{name: $n, result: $r, stdout: $t}' >>"$log"
}
# One target, its verdict left in $scratch/NAME/verdict (OK|FAIL) and its lines in .../out,
# so that targets can run side by side and still report in corpus order.
fuzz_one() { # fuzz_one NAME SEEDS
	local name=$1 seeds=$2 bin="$build/tests/fuzz/fuzz_$1" d="$scratch/$1" start rc stats found
	mkdir -p "$d/new" "$d/crash"
	if [ ! -x "$bin" ]; then
		echo "fuzz $name: no target $bin (not a clang fuzz build? a build-asan set up with gcc before: rm -rf build-asan && make build-asan)" >"$d/out"
		echo "no target" >"$d/text"; echo FAIL >"$d/verdict"; return
	fi
	start=$(date +%s)
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$d/crash/" "$d/new" "$seeds" >"$d/log" 2>&1
	rc=$?
	stats=$(grep -E '^stat::number_of_executed_units' "$d/log" | awk '{print $2}')
	found=$(find "$d/new" -type f | wc -l)
	if [ "$rc" -ne 0 ]; then
		{ echo "fuzz $name: FAILED (exit $rc) after $(($(date +%s) - start)) s; input and log:"
		  ls "$d/crash/" | sed "s|^|  $d/crash/|"
		  grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$d/log" | head -n 8 | sed 's/^/  /'
		} >"$d/out"
		tail -n 40 "$d/log" >"$d/text"; echo FAIL >"$d/verdict"
		return
	fi
	echo "fuzz $name: ok, ${stats:-?} inputs in $secs s, $found new in the scratch corpus" >"$d/out"
	echo "${stats:-?} inputs in $secs s" >"$d/text"; echo OK >"$d/verdict"
	if [ "$merge" = --merge ] && [ "$found" -gt 0 ]; then
		"$bin" -merge=1 "$seeds" "$d/new" >>"$d/log" 2>&1
		echo "  merged into $seeds: $(find "$seeds" -type f | wc -l) inputs now" >>"$d/out"
	fi
}
# As many targets at once as there are CPUs (BP_FUZZ_JOBS to change it): each target is
# one single-threaded process, so on two cores two run in the time of one, each still
# for its full SECONDS_EACH.
jobs=${BP_FUZZ_JOBS:-$(nproc)}
names=()
for seeds in "$here"/corpus/*/; do
	name=$(basename "$seeds")
	names+=("$name")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	fuzz_one "$name" "$seeds" &
done
wait
for name in "${names[@]}"; do
	d="$scratch/$name"
	cat "$d/out"
	ran=$((ran + 1))
	[ "$(cat "$d/verdict" 2>/dev/null)" = OK ] || failed+=("$name")
	verdict "$name" "$(cat "$d/verdict" 2>/dev/null || echo FAIL)" "$(cat "$d/text" 2>/dev/null)"
done
if [ "${#failed[@]}" -eq 0 ]; then
	# Nothing to look at: what the runs found is merged already (--merge) or was only new
	# coverage, so the scratch folder goes (every CI run left one in /tmp).
	rm -rf "$scratch"
	echo "fuzz: $ran targets run for $secs s each, $jobs at a time, none failed"
	exit 0
fi
echo "fuzz: $ran targets run for $secs s each, $jobs at a time, ${#failed[@]} failed: ${failed[*]} (inputs and logs kept in $scratch)"
exit 1
