#!/usr/bin/env bash
# The slow-disk rig of `boardperf together` (docs/run.md, "Tests at the same time"): an x86-64
# guest under qemu-system (TCG, one vCPU) whose Ethernet and USB stick share one emulated
# USB 2.0 (EHCI) bus, as a Raspberry Pi's LAN9514 Ethernet and its USB stick share the
# Pi's one USB 2.0 port and its slow CPU. The stick is a raw image QEMU throttles to a cheap
# stick's speed (throttling.bps-total / iops-total); the network is QEMU's usb-net over
# user-mode networking, whose 10.0.2.2 is this machine's loopback: the guest's tcp test
# talks to a `boardperf serve` on 127.0.0.1 here. In the guest, one boot runs
#   boardperf together "tcp -c 10.0.2.2 -p PORT" "disk --dir /mnt --mode rndrw --direct ..."
# and prints its JSON between markers; this script saves it and prints the degradations.
#   usage: tools/boards/together.sh
#   TOGETHER_T (5): each test's -t; TOGETHER_REPEAT (3): rounds;
#   STICK_BPS (4194304) and STICK_IOPS (150): the stick's throttle.
#   DIST_BUILD (build-dist): results in DIST_BUILD/together; the kernel in DIST_CACHE/x86vm.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}/x86vm
out=$build/together
t=${TOGETHER_T:-5} repeat=${TOGETHER_REPEAT:-3}
bps=${STICK_BPS:-4194304} iops=${STICK_IOPS:-150}
mkdir -p "$out" "$cache"

need=
command -v qemu-system-x86_64 >/dev/null || need="qemu-system-x86"
command -v cpio >/dev/null || need="$need cpio"
file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' || need="$need busybox-static"
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "together.sh: run as root to install:" $need >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi

# Debian's generic amd64 kernel (the cloud one has no USB): one exact package, the newest
# 6.1 the archive lists, unpacked once into the cache.
if ! ls "$cache"/generic/boot/vmlinuz-* >/dev/null 2>&1; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' | awk '{print $1}' |
		sort -V | tail -1)
	[ -n "$pkg" ] || { echo "together.sh: no linux-image-6.1.0-N-amd64 in the apt lists" >&2; exit 1; }
	(cd "$cache" && apt-get download "$pkg" >/dev/null)
	rm -rf "$cache/generic"
	dpkg-deb -x "$cache/$pkg"_*.deb "$cache/generic"
	rm -f "$cache/$pkg"_*.deb
fi
root=$(cd "$cache/generic" && pwd)
kver=$(ls "$root/lib/modules")
mods=$root/lib/modules/$kver

# The static binary for the guest (it has no libraries): a build of its own.
sbuild=${STATIC_BUILD:-build-static}
[ -f "$sbuild/build.ninja" ] ||
	meson setup "$sbuild" -Dprefer_static=true -Dc_link_args=-static -Dbuildtype=release >/dev/null
ninja -C "$sbuild" boardperf >/dev/null
bin=$sbuild/boardperf

. tools/boards/modules.sh   # (from the repo root, where it runs) modclose: a module and what it needs

port=$((15600 + RANDOM % 300))
"$bin" serve -B 127.0.0.1 -p "$port" --idle-timeout 10 2>"$out/serve.log" &
server=$!
qemu_pid=
cleanup() {
	[ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
	kill "$server" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$out/initramfs" "$out/stick.img"
}
trap cleanup EXIT
for _ in $(seq 50); do grep -qs listening "$out/serve.log" && break; sleep 0.1; done

ird=$out/initramfs
rm -rf "$ird"
mkdir -p "$ird"/{bin,proc,sys,dev,etc,mnt,tmp,lib/modules}
cp /bin/busybox "$ird/bin/busybox"
ln -s busybox "$ird/bin/sh"
cp "$bin" "$ird/bin/boardperf"
cp tools/boards/together_init.sh "$ird/init"
cat >"$ird/etc/together" <<EOT
tcp -c 10.0.2.2 -p $port
disk --dir /mnt --mode rndrw --direct --size 16M --files 4
$t
$repeat
EOT
for m in xhci-pci usb-storage sd_mod cdc_ether rndis_host crc32c_generic ext4; do modclose "$mods" "$m"; done \
	>"$ird/lib/modules/order"
while read -r m; do
	mkdir -p "$ird/lib/modules/$(dirname "$m")"
	cp "$mods/$m" "$ird/lib/modules/$m"
done <"$ird/lib/modules/order"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz"
rm -f "$out/stick.img"
truncate -s 128M "$out/stick.img"

# The whole boot bounded: rounds * 3 phases * (t + set-up) plus the boot, at most 20 min.
limit=$((repeat * 3 * (t + 30) + 120))
[ "$limit" -le 1200 ] || limit=1200
start=$(date +%s)
qemu-system-x86_64 -m 512 -smp 1 -nographic -no-reboot -monitor none -serial stdio \
	-kernel "$root/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 rdinit=/init quiet panic=-1" \
	-device qemu-xhci,id=usb \
	-drive "file=$out/stick.img,if=none,id=stick,format=raw,throttling.bps-total=$bps,throttling.iops-total=$iops" \
	-device usb-storage,bus=usb.0,drive=stick \
	-netdev user,id=n0 -device usb-net,bus=usb.0,netdev=n0 \
	</dev/null >"$out/console.log" 2>&1 &
qemu_pid=$!
n=0
while kill -0 "$qemu_pid" 2>/dev/null && [ $n -lt $((limit * 10)) ]; do sleep 0.1; n=$((n + 1)); done
kill "$qemu_pid" 2>/dev/null || true
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=
echo "together.sh: guest ran $(($(date +%s) - start)) s (console: $out/console.log)"
awk '/^@@BEGIN together/ { on = 1; next } /^@@END together/ { on = 0 } on' "$out/console.log" |
	tr -d '\r' >"$out/together.json"
grep -a '^@@' "$out/console.log" | tr -d '\r' | grep -v '^@@BEGIN\|^@@END' || true
jq -e '.test == "together"' "$out/together.json" >/dev/null ||
	{ echo "together.sh: no together result on the console" >&2; exit 1; }
jq -r '.metrics[] | select(.name | test("\\.(alone|together|degradation(\\.min|\\.max)?)$"))
	| "\(.name) \(.value) \(.unit)"' "$out/together.json"
