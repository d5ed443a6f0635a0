#!/usr/bin/env bash
# `make test`: the three test builds, then each one's tests; every test runs once at least
# (docs/CI.md: which test runs in which build, and each step's budget).
#   gcc, optimised (build):    the unit tests, the fuzz corpora and the suite 'figures':
#                              figures against ground truth or a stock tool want an
#                              optimised build and the machine to themselves;
#   ASan + UBSan (build-asan): clang, also CI's libFuzzer build (.ci/run fuzzes its targets
#                              after this); the unit tests, the fuzz corpora and every
#                              integration test but the figures, side by side where a
#                              test neither measures nor checks a timing (a test with a
#                              few timed checks in two parts, tap.sh's "Parts";
#                              tests/integration/meson.build says which run alone, and
#                              why); three at a time: most of them wait on
#                              a clock or a peer, and on two cores three finished 65 s
#                              sooner than two (894 -> 829 s), none failing;
#   TSan (build-tsan):         the unit tests, which have the threads, side by side: the
#                              timing logic they check runs on an injected clock
#                              (src/core/clock.h), so a busy machine cannot make one late.
# build-asan is clang with -Werror over every target (build-tsan builds only what the unit
# suite runs), build gcc's: both compilers' warnings are checked.
# A build that fails stops here; a failing test fails the whole, after every build's tests
# ran. A log left from an earlier run must not count: it goes first. The last lines are
# each step's time beside its budget and the summary over the three builds.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/ci/steps.sh
# One prefix for every namespace, folder and lock a test of this run makes (tap.sh).
export BP_RUN=${BP_RUN:-m$(od -An -N4 -tx1 /dev/urandom | tr -d " \n")}
builds=(build build-asan build-tsan)
# Budgets in seconds (docs/CI.md): the 25 minutes of .ci/run shared out.
declare -A budget=([build]=60 [build-asan]=80 [build-tsan]=75)
for b in "${builds[@]}"; do rm -f "$b"/meson-logs/testlog*.json; done
# build-tsan is built beside the ASan tests (below) when nothing else is: its unit tests
# run last, and the lanes leave the CPU 40-75 % idle. CI puts the ARM builds there.
build_tsan_beside=
[ -n "${BP_BESIDE_LANES:-}" ] || build_tsan_beside="make -s --no-print-directory build-tsan"
for b in "${builds[@]}"; do
	[ "$b" = build-tsan ] && [ -n "$build_tsan_beside" ] && continue
	step "$b" "${budget[$b]}" make -s --no-print-directory "$b" ||
		{ steps_report "test times"; exit 1; }
done
# BP_BESIDE_LANES: a command (.ci/run: tools/ci/arm_builds.sh, the ARM legs' builds) run
# beside ASan's side-by-side tests and lanes at idle priority: SCHED_IDLE gets only the CPU
# time they leave idle (the lanes 40-75 %: they wait on clocks, links and peers; the
# side-by-side tests ~7 %), and a test's process preempts it as soon as it wakes. It starts
# after the solo tests (ASan's run first for it), which read the whole machine's load, and
# is waited for at the end (its own step), its failure CI's. Unset (`make test` by hand):
# build-tsan there instead, waited for before TSan's tests.
beside_cmd=${BP_BESIDE_LANES:-$build_tsan_beside}
beside_pid=
beside_log=build-dist/beside.log
beside() {
	mkdir -p build-dist
	echo "beside the lanes, at idle priority: $beside_cmd (log: $beside_log)"
	chrt --idle 0 bash -c "$beside_cmd" >"$beside_log" 2>&1 &
	beside_pid=$!
}
# wait_beside BUDGET: what is left of it, with the machine to itself (its own step).
wait_beside() {
	[ -n "$beside_pid" ] || return 0
	local pid=$beside_pid
	beside_pid=
	step beside "$1" wait "$pid" && return 0
	echo "failed beside the lanes: $beside_cmd"
	tail -20 "$beside_log"
	return 1
}
# alone BUILD SUITE: the serial tests of SUITE, one at a time with nothing beside them.
# lanes BUILD A B: those of suites A and B, the two lanes side by side (each one test at a
# time, its lines marked [A] or [B], its log meson-logs/testlog-A.json).
# (tests/integration/meson.build, "Lanes".)
alone() {
	meson test -C "$1" --no-rebuild --suite "$2" --logbase "testlog-$2" --print-errorlogs
}
lanes() {
	local b=$1 a=$2 lb=$3 pa pb rc=0
	# meson's own status from wait (the marking through a process substitution, no pipe)
	meson test -C "$b" --no-rebuild --suite "$a" --logbase "testlog-$a" --print-errorlogs \
		> >(sed -u "s/^/[$a] /") 2>&1 &
	pa=$!
	meson test -C "$b" --no-rebuild --suite "$lb" --logbase "testlog-$lb" --print-errorlogs \
		> >(sed -u "s/^/[$lb] /") 2>&1 &
	pb=$!
	wait "$pa" || rc=1
	wait "$pb" || rc=1
	return "$rc"
}
# The sanitizers' settings for every test of build-asan (a subshell's exports).
asan() (
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
	"$@"
)
rc=0
step gcc 20 meson test -C build --no-rebuild --suite unit --suite fuzz --print-errorlogs || rc=1
step figures-solo 155 alone build figures_solo || rc=1
step figures-lanes 100 lanes build figures_a figures_b || rc=1
step asan-solo 160 asan alone build-asan solo || rc=1
beside
step asan 350 asan meson test -C build-asan --no-rebuild --no-suite figures --no-suite lane_a \
	--no-suite lane_b --no-suite solo --print-errorlogs --num-processes 3 || rc=1
step asan-lanes 175 asan lanes build-asan lane_a lane_b || rc=1
# TSan's build, when it ran beside the lanes, is waited for first (a failed one is a failure)
if [ -z "$build_tsan_beside" ] || wait_beside 15; then
	step tsan 25 meson test -C build-tsan --suite unit --print-errorlogs || rc=1
else
	rc=1
fi
wait_beside 15 || rc=1
steps_report "test times"
tests/summary.sh "${builds[@]}" || rc=1
exit "$rc"
