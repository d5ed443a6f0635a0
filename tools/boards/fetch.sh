#!/usr/bin/env bash
# Fetches what an emulated board boots for one Debian architecture into CACHE/boards-ARCH:
# Debian's own kernel (linux-image-armmp for armhf, linux-image-arm64 for arm64, the image,
# its modules and device trees) and busybox-static, unpacked with dpkg-deb -x. Like
# tools/cross/sysroot.sh (whose private apt lists it shares) it never adds a foreign
# architecture to this machine's dpkg; the .debs stay in CACHE/debs/ARCH, so a second run
# downloads nothing.
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
apt_opts=(-o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
	-o "Dir::State::Status=$cache/apt/status" -o Debug::NoLocking=1 -o APT::Sandbox::User=root
	-o Acquire::Languages=none -o APT::Architecture=armhf -o APT::Architectures::=armhf
	-o APT::Architectures::=arm64 -o APT::Architectures::=armel)
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs/$arch"
touch "$cache/apt/status"
if [ -z "$(find "$cache/apt/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit)" ]; then
	apt-get "${apt_opts[@]}" -qq update
fi
# The metapackage names the versioned kernel package (linux-image-6.1.0-N-armmp) it depends on.
kpkg=$(apt-cache "${apt_opts[@]}" depends "$meta:$arch" | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
kpkg=${kpkg%:*}
[ -n "$kpkg" ] || { echo "fetch.sh: $meta:$arch names no kernel package" >&2; exit 1; }
pkgs="$kpkg busybox-static"
debs=$(apt-get "${apt_opts[@]}" -qq download --print-uris $(printf "%s:$arch " $pkgs) | awk '{print $2}' | sort)
[ "$(echo "$debs" | wc -w)" = 2 ] || { echo "fetch.sh: the archive lacks some of $pkgs for $arch" >&2; exit 1; }
stamp=$root/.packages
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$debs" ]; then
	exit 0
fi
missing=
for d in $debs; do
	[ -f "$cache/debs/$arch/$d" ] || missing="$missing ${d%%_*}:$arch"
done
[ -z "$missing" ] || (cd "$cache/debs/$arch" && apt-get "${apt_opts[@]}" -qq download $missing)
rm -rf "$root"
mkdir -p "$root"
for d in $debs; do
	dpkg-deb -x "$cache/debs/$arch/$d" "$root"
done
echo "$debs" >"$stamp"
echo "boards $arch:" $debs
