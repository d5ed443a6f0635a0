#!/usr/bin/env bash
# The unit tests of each ARM build, run under qemu-user: `make test-cross` and CI. Each
# architecture is built as `make dist` builds it (tools/dist.sh, same folders, so dist/
# gets checked binaries too), then only the unit test binaries are built and run through
# the cross file's exe_wrapper (qemu-user with the architecture's oldest core: cortex-a53,
# cortex-a7, arm1176). What qemu-user cannot do (io_uring, SO_MAX_PACING_RATE, a qdisc
# dump over netlink, a full TCP_INFO) each test detects at run time and skips by name.
#   usage: tools/cross/test.sh [ARCH...]   (default: arm64 armhf armel)
# Prints one line per architecture (tests/summary.sh) with its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
arches=${*:-arm64 armhf armel}
rc=0
for a in $arches; do
	t0=$(date +%s)
	tools/dist.sh "$a"
	dir=$build/$a
	# Only what the unit suite runs: not the header checks, fuzzers or other tools
	# (the native builds cover those), which would double the build time.
	targets=$(meson introspect "$dir" --tests |
		jq -r --arg d "$(cd "$dir" && pwd)/" '.[] | select(any(.suite[]; endswith(":unit"))) | .cmd[0] | ltrimstr($d)')
	ninja -C "$dir" -j2 $targets >"$dir.tests.ninja.log" 2>&1 ||
		{ grep -v "statically linked applications requires" "$dir.tests.ninja.log" >&2; exit 1; }
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --no-rebuild --suite unit --print-errorlogs --num-processes 2 \
		>"$dir.test.log" 2>&1 || { rc=1; cat "$dir.test.log"; }
	wrapper="no emulator (native)"
	[ ! -f "$cache/$a.ini" ] || [ "$a" = "$(dpkg --print-architecture)" ] ||
		wrapper=$(sed -n "s/^exe_wrapper = \['env', '\(QEMU_CPU=[^']*\)', '\([^']*\)'.*/\1 \2/p" "$cache/$a.ini")
	echo "$a: unit tests under $wrapper; $(($(date +%s) - t0)) s with the build"
	tests/summary.sh "$dir" | sed -n 1p
	# every skip, with its reason
	jq -r '.name as $n | (.stdout // "" | split("\n")[] | select(test("^ok .*# SKIP")) | "  skip: \($n | sub("^boardperf:unit / "; "")): \(sub("^ok [0-9]+ - (.*# SKIP )?"; ""))")' \
		"$dir/meson-logs/testlog.json" | sort | uniq -c | sed 's/^ *\([0-9]*\) /  \1x/'
done
exit $rc
