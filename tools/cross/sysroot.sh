#!/usr/bin/env bash
# Fetches the target libraries boardperf links (OpenSSL, jansson, liburing, http-parser,
# SQLite for the results database and zlib, which Debian's sqlite3.pc lists for a static
# link) for one Debian architecture into a private sysroot: CACHE/sysroot-ARCH, with tools/cross/debs.sh
# (private apt lists, never a foreign architecture in this machine's dpkg; the .debs cached
# in CACHE/debs, so a second run costs no download). The C library comes from
# Debian's cross packages (libc6-dev-ARCH-cross under /usr/TRIPLET), installed by the caller.
#   usage: tools/cross/sysroot.sh ARCH CACHE     (ARCH: armhf, arm64, armel)
set -euo pipefail
arch=${1:?usage: sysroot.sh ARCH CACHE}
cache=${2:?usage: sysroot.sh ARCH CACHE}
case "$arch" in
armhf | arm64 | armel) ;;
*) echo "sysroot.sh: unknown architecture '$arch' (expected armhf, arm64 or armel)" >&2; exit 2 ;;
esac
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
sysroot=$cache/sysroot-$arch
# The -dev packages hold the static archives and headers; the runtime packages come along
# because a -dev package's .pc and symlinks point into them.
pkgs="libssl-dev libssl3 libjansson-dev libjansson4 liburing-dev liburing2 libhttp-parser-dev libhttp-parser2.9
	libsqlite3-dev libsqlite3-0 zlib1g-dev zlib1g"

. "$(dirname "$0")/debs.sh"
debs_init "$cache"
debs_unpack sysroot "$cache" "$arch" "$sysroot" $pkgs
