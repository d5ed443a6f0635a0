#!/usr/bin/env bash
# `make test-vm`: what this machine's kernel cannot run (no SCTP, 8021q or wireless), in an x86-64 VM
# with Debian's own kernel under qemu-system-x86_64 (TCG: no KVM here). One boot runs every
# check (tools/vm/init.sh): boardperf tcp --sctp both ways and --bidir, rr and crr --sctp
# against its own serve, a stock iperf3 --sctp against boardperf serve and boardperf against
# a stock iperf3 -s, both ways, and bad input; then tcp and udp over an 802.1Q VLAN between
# two namespaces (8021q and veth loaded too), and info and tcp over Wi-Fi between two
# mac80211_hwsim radios (hostapd and wpa_supplicant, WPA2); tools/vm/check.sh then checks the output from
# here and writes OUT/meson-logs/testlog.json for tests/summary.sh.
#   VM_EXTRA: more programs for such a script, each at its own absolute path, with libraries.
#   VM_INIT: another /init than tools/vm/init.sh (to try something by hand; not checked).
#   BOARDPERF: the binary to test (default: build/boardperf when it is built, else the
#   static amd64 binary of tools/dist.sh); a dynamic one gets its libraries in the image,
#   as Debian's iperf3 does. DIST_BUILD (build-dist): results in DIST_BUILD/vm, downloads
#   cached in DIST_BUILD/cache.
set -euo pipefail
cd "$(dirname "$0")"/../..
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
out=$build/vm
mkdir -p "$out" "$cache/debs/amd64"
cache=$(cd "$cache" && pwd)
[ "$(dpkg --print-architecture)" = amd64 ] || { echo "vm/run.sh: needs an amd64 host" >&2; exit 1; }
need=
command -v qemu-system-x86_64 >/dev/null || need="qemu-system-x86"
command -v cpio >/dev/null || need="$need cpio"
[ -x /bin/busybox ] || need="$need busybox-static"
command -v iperf3 >/dev/null || need="$need iperf3"
command -v hostapd >/dev/null || need="$need hostapd"
command -v wpa_supplicant >/dev/null || need="$need wpasupplicant"
command -v iw >/dev/null || need="$need iw"
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "vm/run.sh: run as root to install:" $need >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi
bin=${BOARDPERF:-}
if [ -z "$bin" ] && [ -x build/boardperf ]; then
	bin=build/boardperf
elif [ -z "$bin" ]; then
	tools/dist.sh amd64 >"$out/dist.log" 2>&1 || { cat "$out/dist.log" >&2; exit 1; }
	bin=$(ls dist/boardperf-*-amd64)
fi

# Debian's generic amd64 kernel (SCTP, 8021q, veth and the wireless stack with
# mac80211_hwsim as modules; the cloud flavour has no wireless): the metapackage names the
# versioned package, whose .deb is kept in the cache and unpacked once.
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kpkg" ] || { echo "vm/run.sh: linux-image-amd64 names no kernel package (apt-get update?)" >&2; exit 1; }
root=$cache/vm-$kpkg
if [ ! -d "$root/lib/modules" ]; then
	deb=$(ls "$cache/debs/amd64/${kpkg}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		(cd "$cache/debs/amd64" && apt-get -qq download "$kpkg")
		deb=$(ls "$cache/debs/amd64/${kpkg}_"*.deb | head -1)
	fi
	rm -rf "$root.tmp" && mkdir -p "$root.tmp" && dpkg-deb -x "$deb" "$root.tmp" && mv "$root.tmp" "$root"
fi
kver=$(ls "$root/lib/modules")
mods=$root/lib/modules/$kver

. tools/boards/modules.sh   # modclose: a module and what it needs, dependencies first

# A dynamically linked program and the libraries ldd names, at the same paths.
with_libs() {
	local f=$1 dest=$2 lib
	mkdir -p "$dest$(dirname "$f")"
	cp -L "$f" "$dest$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		mkdir -p "$dest$(dirname "$lib")"
		cp -L "$lib" "$dest$lib"
	done
}

ird=$out/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,usr/bin,proc,sys,dev,tmp,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
ln -s busybox "$ird/bin/sh"
binabs=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
with_libs "$binabs" "$ird"
mv "$ird$binabs" "$ird/usr/bin/boardperf"
with_libs "$(command -v iperf3)" "$ird"
# iproute2's ip (namespaces, VLANs: busybox's has neither) and ethtool for the VLAN checks,
# iw, hostapd, wpa_supplicant and wpa_cli for the Wi-Fi ones, at /opt/NAME: busybox's sh runs its own
# applet for a bare "ip" whatever PATH says
mkdir -p "$ird/opt"
for f in ip ethtool iw hostapd wpa_supplicant wpa_cli; do
	with_libs "$(command -v $f)" "$ird"
	ln -s "$(command -v $f)" "$ird/opt/$f"
done
for f in ${VM_EXTRA:-}; do with_libs "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$ird"; done
install -m 755 "${VM_INIT:-tools/vm/init.sh}" "$ird/init"  # VM_INIT: another script, to debug by hand
seen=()
# Modules ask the crypto API for algorithms by name, and with no modprobe in the guest what
# is not built in must be loaded first: crc32c for libcrc32c (sctp's), and ctr, ccm and
# cmac for the wireless checks' WPA2 keys (mac80211's ccm(aes))
for m in crc32c_generic sctp 8021q veth ctr ccm cmac mac80211_hwsim; do
	modclose "$mods" "$m" || exit 1
done >"$ird/lib/modules/order"
while read -r m; do mkdir -p "$ird/lib/modules/$(dirname "$m")"; cp "$mods/$m" "$ird/lib/modules/$m"; done <"$ird/lib/modules/order"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"

# One boot, bounded: every check is a few seconds under TCG; 240 s is far beyond them all.
start=$(date +%s.%N)
set +e
timeout 240 qemu-system-x86_64 -m 512 -smp ${VM_SMP:-1} -nographic -no-reboot -nic none -monitor none \
	-kernel "$root/boot/vmlinuz-$kver" -initrd "$out/initrd.gz" \
	-append "console=ttyS0 rdinit=/init panic=-1 quiet" -serial stdio </dev/null >"$out/vm.console" 2>&1
qrc=$?
set -e
end=$(date +%s.%N)
secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
echo "$secs" >"$out/vm.seconds"
echo "vm ($kpkg, $(basename "$bin")): booted and ran in ${secs}s, qemu exit $qrc (console: $out/vm.console)"
[ -n "${VM_INIT:-}" ] || tools/vm/check.sh "$out"
