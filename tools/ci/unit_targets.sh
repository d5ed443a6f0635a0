#!/usr/bin/env bash
# The build targets the unit suite runs in the configured build DIR, relative to it, one per
# line: what `ninja -C DIR $(tools/ci/unit_targets.sh DIR)` builds so that `meson test
# --suite unit` can run there without the rest (the header checks, the fuzzers, boardperf
# itself). A unit test that is a script (the docs check: python3) has nothing to build.
# Used by build-tsan (Makefile) and the armhf unit suite under qemu-user (tools/cross/test.sh).
#   usage: tools/ci/unit_targets.sh DIR
set -euo pipefail
dir=${1:?usage: unit_targets.sh DIR}
[ -f "$dir/build.ninja" ] || { echo "unit_targets.sh: '$dir' is not a configured build (no build.ninja)" >&2; exit 2; }
meson introspect "$dir" --tests |
	jq -r --arg d "$(cd "$dir" && pwd)/" '.[] | select(any(.suite[]; endswith(":unit")))
		| .cmd[0] | select(startswith($d)) | ltrimstr($d)'
