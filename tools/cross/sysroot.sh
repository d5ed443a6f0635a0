#!/usr/bin/env bash
# Fetches the target libraries boardperf links (OpenSSL, jansson, liburing, http-parser) for
# one Debian architecture into a private sysroot: CACHE/sysroot-ARCH. It never adds a foreign
# architecture to this machine's dpkg (`dpkg --add-architecture` made the host's `apt-get
# update` fail on an armhf index mismatch, and Multi-Arch: same packages must then match the
# host's versions): apt downloads the .debs with private lists, dpkg-deb unpacks them.
# The .debs stay in CACHE/debs, so a second run costs no download. The C library comes from
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
pkgs="libssl-dev libssl3 libjansson-dev libjansson4 liburing-dev liburing2 libhttp-parser-dev libhttp-parser2.9"

apt_opts=(-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
	-o "Dir::State::Status=$cache/apt/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
	-o Acquire::Languages=none -o APT::Architecture=armhf -o APT::Architectures::=armhf
	-o APT::Architectures::=arm64 -o APT::Architectures::=armel)
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs/$arch"
touch "$cache/apt/status"
# One index fetch per cache (a day old at most), shared by the three architectures.
if [ -z "$(find "$cache/apt/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit)" ]; then
	apt-get "${apt_opts[@]}" -qq update
fi
# One apt call names the candidate .deb of every package (its file name holds the version).
debs=$(apt-get "${apt_opts[@]}" -qq download --print-uris $(printf "%s:$arch " $pkgs) | awk '{print $2}' | sort)
[ "$(echo "$debs" | wc -w)" = "$(echo $pkgs | wc -w)" ] ||
	{ echo "sysroot.sh: the archive lacks some of $pkgs for $arch" >&2; exit 1; }
stamp="$sysroot/.packages"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$debs" ]; then
	exit 0
fi
missing=
for d in $debs; do
	[ -f "$cache/debs/$arch/$d" ] || missing="$missing ${d%%_*}:$arch"
done
[ -z "$missing" ] || (cd "$cache/debs/$arch" && apt-get "${apt_opts[@]}" -qq download $missing)
rm -rf "$sysroot"
mkdir -p "$sysroot"
for d in $debs; do
	dpkg-deb -x "$cache/debs/$arch/$d" "$sysroot"
done
echo "$debs" >"$stamp"
echo "sysroot $arch:" $debs
