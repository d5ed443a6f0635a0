#!/usr/bin/env bash
# Fetches what an emulated board boots for one Debian architecture into CACHE/boards-ARCH:
# Debian's own kernel (linux-image-armmp for armhf, linux-image-arm64 for arm64, the image,
# its modules and device trees) and busybox-static, with tools/cross/debs.sh as
# tools/cross/sysroot.sh does (the same private apt lists; never a foreign architecture in
# this machine's dpkg; the .debs cached in CACHE/debs/ARCH, so a second run downloads nothing).
#   usage: tools/boards/fetch.sh ARCH CACHE     (ARCH: armhf or arm64)
set -euo pipefail
arch=${1:?usage: fetch.sh ARCH CACHE}
cache=${2:?usage: fetch.sh ARCH CACHE}
case "$arch" in
armhf) meta=linux-image-armmp ;;
arm64) meta=linux-image-arm64 ;;
*) echo "fetch.sh: unknown architecture '$arch' (expected armhf or arm64)" >&2; exit 2 ;;
esac
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
root=$cache/boards-$arch
. "$(dirname "$0")/../cross/debs.sh"
debs_init "$cache"
! debs_fresh "$cache" "$root" || exit 0
# The metapackage names the versioned kernel package (linux-image-6.1.0-N-armmp) it depends on.
kpkg=$(apt-cache "${apt_opts[@]}" depends "$meta:$arch" | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
kpkg=${kpkg%:*}
[ -n "$kpkg" ] || { echo "fetch.sh: $meta:$arch names no kernel package" >&2; exit 1; }
debs_unpack boards "$cache" "$arch" "$root" "$kpkg" busybox-static
