#!/usr/bin/env bash
# What CI's ARM legs build and fetch before they run anything: the static arm64, armhf and
# armel binaries and packages (tools/dist.sh), armhf's unit tests (tools/ci/unit_targets.sh)
# and the boards' kernels and busybox (tools/boards/fetch.sh). .ci/run has `make test` run it
# beside the ASan lanes at idle priority (tools/ci/test.sh, BP_BESIDE_LANES), in the CPU
# time their waits leave; `make test-cross` and `make test-boards` then find it all built
# (dist.sh again only strips and packages). By hand it is the same work they would do.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
tools/dist.sh arm64 armhf armel
ninja -C "$build/armhf" -j2 $(tools/ci/unit_targets.sh "$build/armhf") >"$build/armhf.tests.ninja.log" 2>&1 ||
	{ grep -v "statically linked applications requires" "$build/armhf.tests.ninja.log" >&2; exit 1; }
for a in arm64 armhf; do tools/boards/fetch.sh "$a" "$cache"; done
