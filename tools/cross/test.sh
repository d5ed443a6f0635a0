#!/usr/bin/env bash
# The ARM builds under qemu-user: `make test-cross` and CI. Each architecture is built as
# `make dist` builds it (tools/dist.sh, same folders, so dist/ gets checked binaries too)
# and its static binary smoke-run (tools/cross/smoke.sh: info, cpu, tcp over loopback
# against its own serve) on the architecture's oldest core (cortex-a53, cortex-a7,
# arm1176). The architectures in CROSS_UNIT (default armhf: 32-bit time_t and off_t, the
# one whose types differ most from the native build's) also build and run the whole unit
# suite through the cross file's exe_wrapper; what qemu-user cannot do (io_uring,
# SO_MAX_PACING_RATE, a qdisc dump over netlink, a full TCP_INFO) each test detects at run
# time and skips by name. arm64 and armhf also boot as emulated boards (make test-boards).
#   usage: tools/cross/test.sh [ARCH...]   (default: arm64 armhf armel)
# Prints one line per architecture (tests/summary.sh) with its time; each one's checks go
# to build-dist/ARCH/meson-logs/testlog.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
arches=${*:-arm64 armhf armel}
rc=0
unit=" ${CROSS_UNIT-armhf} "
for a in $arches; do
	t0=$(date +%s)
	tools/dist.sh "$a"
	dir=$build/$a
	log=$dir/meson-logs/testlog.json
	rm -f "$log"
	what="smoke run"
	if [[ "$unit" == *" $a "* ]]; then
		what="smoke run and unit tests"
		# Only what the unit suite runs: not the header checks, fuzzers or other tools
		# (the native builds cover those), which would double the build time; a unit test
		# that is a script (the docs check: python3) has nothing to build.
		targets=$(tools/ci/unit_targets.sh "$dir")
		ninja -C "$dir" -j2 $targets >"$dir.tests.ninja.log" 2>&1 ||
			{ grep -v "statically linked applications requires" "$dir.tests.ninja.log" >&2; exit 1; }
		meson test -C "$dir" --no-rebuild --suite unit --print-errorlogs --num-processes 2 \
			>"$dir.test.log" 2>&1 || { rc=1; cat "$dir.test.log"; }
	fi
	# The smoke run's verdict joins the unit tests' log in Meson's shape (tests/summary.sh
	# counts its TAP lines); dist.sh left $dir.help, the binary under qemu-user.
	mkdir -p "$dir/meson-logs"
	smoke=$(tools/cross/smoke.sh "$a" "$PWD/$dir.help" 2>&1) && res=OK || { res=FAIL; rc=1; }
	jq -cn --arg n "smoke_$a" --arg r "$res" --arg t "$smoke" \
		'{name: $n, result: $r, stdout: $t}' >>"$log"
	[ "$res" = OK ] || printf '%s\n' "$smoke"
	wrapper="no emulator (native)"
	[ ! -f "$cache/$a.ini" ] || [ "$a" = "$(dpkg --print-architecture)" ] ||
		wrapper=$(sed -n "s/^exe_wrapper = \['env', '\(QEMU_CPU=[^']*\)', '\([^']*\)'.*/\1 \2/p" "$cache/$a.ini")
	echo "$a: $what under $wrapper; $(($(date +%s) - t0)) s with the build"
	tests/summary.sh "$dir" | sed -n 1p
	# every skip, with its reason
	jq -r '.name as $n | (.stdout // "" | split("\n")[] | select(test("^ok .*# SKIP")) | "  skip: \($n | sub("^boardperf:unit / "; "")): \(sub("^ok [0-9]+ - (.*# SKIP )?"; ""))")' \
		"$log" | sort | uniq -c | sed 's/^ *\([0-9]*\) /  \1x/'
done
exit $rc
