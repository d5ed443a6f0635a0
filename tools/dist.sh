#!/usr/bin/env bash
# `make dist`: static, stripped boardperf binaries for the boards' architectures, and their
# SHA256SUMS, in dist/:
#   dist/boardperf-VERSION-amd64   x86-64 PCs (the build machine's own, when it is amd64)
#   dist/boardperf-VERSION-arm64   64-bit ARM: Pi 3/4/5 on a 64-bit OS, most current boards
#   dist/boardperf-VERSION-armhf   ARMv7 hard-float: Pi 2/3/4 on a 32-bit OS, Orange Pi, A20
#   dist/boardperf-VERSION-armel   ARMv5TE soft-float EABI: runs on the ARMv6 of a Pi Zero/1
# and, for each, dist/boardperf_VERSION_ARCH.deb (tools/deb/build.sh: the binary, its man
# page and bash completion written by the binary from its own option tables,
# boardperf-serve.service).
# Each is cross-compiled with Debian's gcc and linked against Debian's own target libraries
# (tools/cross/sysroot.sh fetches them; the .debs are cached in build-dist/cache), and each
# is run once, under qemu-user for ARM, to check that its --version names its architecture.
#   usage: tools/dist.sh [ARCH...]     (default: all four)
#   DIST_BUILD: the build folders' parent (build-dist); DIST_CACHE: the .debs and sysroots
#   (DIST_BUILD/cache), kept between runs.
# Installs what it lacks with apt-get (as root): the cross compilers and qemu-user-static.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
native=$(dpkg --print-architecture)
if [ $# -gt 0 ]; then
	arches="$*"
elif [ "$native" = amd64 ]; then
	arches="amd64 arm64 armhf armel"
else
	arches=$native  # Debian's cross compilers to the other ARM ports are amd64-hosted here
fi

declare -A triplet=([amd64]=x86_64-linux-gnu [arm64]=aarch64-linux-gnu [armhf]=arm-linux-gnueabihf
	[armel]=arm-linux-gnueabi)
declare -A qemu=([amd64]=qemu-x86_64-static [arm64]=qemu-aarch64-static [armhf]=qemu-arm-static
	[armel]=qemu-arm-static)
# The oldest core each binary is for: a binary that runs on it runs on the boards.
declare -A model=([amd64]=max [arm64]=cortex-a53 [armhf]=cortex-a7 [armel]=arm1176)

need=
for a in $arches; do
	[ -n "${triplet[$a]:-}" ] || { echo "dist.sh: unknown architecture '$a' (expected amd64, arm64, armhf or armel)" >&2; exit 2; }
	[ "$a" = "$native" ] && continue
	# The cross C library is only a Recommends of the cross gcc, which --no-install-recommends
	# leaves out: without it the first link of a fresh machine fails (cannot find -lc).
	need="$need gcc-${triplet[$a]//_/-} libc6-dev-$a-cross qemu-user-static"
done
need=$(echo $need | tr ' ' '\n' | sort -u)
missing=$(for p in $need; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	grep -q '^install ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
	echo "installing:" $missing
	[ "$(id -u)" = 0 ] || { echo "dist.sh: run as root to install:" $missing >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; }
fi

# One build folder per architecture, release, -Werror; reused by tools/cross/test.sh.
setup() {
	local a=$1 dir=$build/$a
	if [ "$a" = "$native" ]; then
		[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release -Dwerror=true \
			-Dprefer_static=true -Dc_link_args=-static >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log" >&2; return 1; }
	else
		tools/cross/sysroot.sh "$a" "$cache" >/dev/null
		tools/cross/crossfile.sh "$a" "$cache" >/dev/null
		[ -f "$dir/build.ninja" ] || meson setup "$dir" --cross-file "$cache/$a.ini" \
			-Dbuildtype=release -Dwerror=true >"$dir.setup.log" 2>&1 ||
			{ cat "$dir.setup.log" >&2; return 1; }
	fi
}

version=
mkdir -p dist "$build"
for a in $arches; do
	setup "$a"
	# Static glibc warns at link time that getaddrinfo and dlopen want its shared NSS
	# modules at run time; numeric addresses and /etc/hosts work without them.
	ninja -C "$build/$a" boardperf >"$build/$a.ninja.log" 2>&1 ||
		{ grep -v "statically linked applications requires" "$build/$a.ninja.log" >&2; exit 1; }
	[ -n "$version" ] || version=$(meson introspect "$build/$a" --projectinfo | jq -r .version)
	out=dist/boardperf-$version-$a
	# Stripped, checked and packaged since the build's last link and the packaging's last
	# change (CI's cross and boards legs ask for what was built beside the lanes): as is.
	deb=dist/boardperf_${version}_$a.deb
	if [ "$out" -nt "$build/$a/boardperf" ] && [ "$deb" -nt "$out" ] && [ -x "$build/$a.help" ] &&
		[ -z "$(find tools/deb "$0" -newer "$deb" -print -quit)" ]; then
		printf '%-34s %8d bytes  (as built before)\n' "$out" "$(stat -c %s "$out")"
		continue
	fi
	strip_tool=strip
	[ "$a" = "$native" ] || strip_tool=${triplet[$a]}-strip
	# .comment holds only the compilers' names (lintian: binary-has-unneeded-section)
	"$strip_tool" -R .comment -o "$out" "$build/$a/boardperf"
	! readelf -lW "$out" | grep -q "program interpreter" ||
		{ echo "dist.sh: $out is not statically linked" >&2; exit 1; }
	if [ "$a" = "$native" ]; then
		line=$("./$out" --version | head -1)
	else
		line=$(QEMU_CPU=${model[$a]} "${qemu[$a]}" "./$out" --version | head -1)
	fi
	case "$line" in
	"boardperf $version $a "*) ;;
	*) echo "dist.sh: $out --version says '$line', not boardperf $version $a" >&2; exit 1 ;;
	esac
	printf '%-34s %8d bytes  %s\n' "$out" "$(stat -c %s "$out")" "$line"
	# The man page and the completion come from this binary's own option tables
	# (boardperf --man, --bash-completion; under qemu-user for ARM), so that the package
	# says what its binary does.
	helpbin=$build/$a.help
	if [ "$a" = "$native" ]; then
		printf '#!/bin/sh\nexec "%s" "$@"\n' "$PWD/$out" >"$helpbin"
	else
		printf '#!/bin/sh\nQEMU_CPU=%s exec %s "%s" "$@"\n' "${model[$a]}" "${qemu[$a]}" "$PWD/$out" >"$helpbin"
	fi
	chmod +x "$helpbin"
	deb=$(tools/deb/build.sh "$a" "$out" "$helpbin" "$version" dist)
	printf '%-34s %8d bytes\n' "$deb" "$(stat -c %s "$deb")"
done
(cd dist && sha256sum boardperf-"$version"-* boardperf_"$version"_*.deb >SHA256SUMS)
echo "dist/SHA256SUMS: $(wc -l <dist/SHA256SUMS) files"
