#!/usr/bin/env bash
# Writes the Meson cross file for one Debian architecture: CACHE/ARCH.ini, pointing at the
# sysroot that tools/cross/sysroot.sh made and at Debian's cross gcc. The binaries link
# statically (one file to copy onto a board), and `meson test` runs them through qemu-user
# with the CPU model of the oldest board the architecture is for.
#   usage: tools/cross/crossfile.sh ARCH CACHE
set -euo pipefail
arch=${1:?usage: crossfile.sh ARCH CACHE}
cache=$(cd "${2:?usage: crossfile.sh ARCH CACHE}" && pwd)
# triplet, meson cpu_family, cpu, qemu-user binary, QEMU CPU model, extra compiler flags.
# armel is for the Pi Zero/Zero W/1, whose ARM1176 (ARMv6KZ with VFPv2) Debian's armhf
# (ARMv7) cannot run: Debian's armel port (ARMv5TE, soft-float calling convention) gives
# the libraries, which run on ARMv6, and boardperf's own code is compiled for the ARM1176
# itself: ARMv5TE has no atomic instructions (C11 atomics become kernel-helper calls, not
# lock-free, and signals.c requires a lock-free stop flag; 64-bit counters would take a
# lock), ARMv6K has ldrex/strex and ldrexd/strexd. softfp uses the VFP unit and keeps the
# armel calling convention, so the objects link with Debian's armel libraries. The
# result runs on ARMv6 and later, not on ARMv5 boards; its tests run on the arm1176 model.
flags=
case "$arch" in
armhf) t=arm-linux-gnueabihf fam=arm cpu=cortex-a7 q=qemu-arm-static model=cortex-a7 ;;
armel) t=arm-linux-gnueabi fam=arm cpu=arm1176 q=qemu-arm-static model=arm1176
	flags="'-march=armv6kz', '-mfpu=vfp', '-mfloat-abi=softfp'" ;;
arm64) t=aarch64-linux-gnu fam=aarch64 cpu=cortex-a53 q=qemu-aarch64-static model=cortex-a53 ;;
*) echo "crossfile.sh: unknown architecture '$arch' (expected armhf, arm64 or armel)" >&2; exit 2 ;;
esac
s=$cache/sysroot-$arch
cat >"$cache/$arch.ini" <<INI
# Written by tools/cross/crossfile.sh; rewritten on every dist build.
[binaries]
# --sysroot puts the sysroot's usr/include, usr/include/TRIPLET (Debian keeps opensslconf.h
# there) and usr/lib/TRIPLET in gcc's search paths (Meson's find_library looks only in
# those for a static archive); the C library stays Debian's cross one (/usr/TRIPLET).
c = ['$t-gcc', '--sysroot=$s']
ar = '$t-ar'
strip = '$t-strip'
# Meson 1.0 reads 'pkgconfig'; with 'pkg-config' it silently finds no libcrypto.
pkgconfig = 'pkg-config'
exe_wrapper = ['env', 'QEMU_CPU=$model', '$q', '-L', '/usr/$t']

[properties]
sys_root = '$s'
pkg_config_libdir = ['$s/usr/lib/$t/pkgconfig', '$s/usr/share/pkgconfig']

[built-in options]
c_args = [$flags]
c_link_args = ['-static']
prefer_static = true

[host_machine]
system = 'linux'
cpu_family = '$fam'
cpu = '$cpu'
endian = 'little'
INI
echo "$cache/$arch.ini"
