#!/usr/bin/env bash
# `make test-boards`: boots emulated ARM boards under qemu-system (Debian's own kernels, a
# tiny initramfs with busybox-static and the static boardperf of `make dist`) and runs in one
# boot per board: info, cpu, mem, disk on a virtual disk, tcp/udp/rr over the guest's
# loopback against its own serve, and the board's GPIO checks (init.sh). tools/boards/check.sh
# then checks each one's JSON from here.
#   usage: tools/boards/run.sh [BOARD...]
#          (orangepi-pc raspi3b virt-a15 raspi2b virt-a53; default: all, the longest boot first)
#   DIST_BUILD (build-dist): the binaries' build folders; results in DIST_BUILD/boards.
set -euo pipefail
cd "$(dirname "$0")/.."/..
build=${DIST_BUILD:-build-dist}
cache=${DIST_CACHE:-$build/cache}
out=$build/boards
boards=${*:-orangepi-pc raspi3b virt-a15 raspi2b virt-a53}
mkdir -p "$out" "$cache"

declare -A arch=([raspi3b]=arm64 [virt-a15]=armhf [virt-a53]=arm64 [orangepi-pc]=armhf [raspi2b]=armhf)
for b in $boards; do
	[ -n "${arch[$b]:-}" ] || { echo "run.sh: unknown board '$b' (expected raspi3b, virt-a15, virt-a53, orangepi-pc or raspi2b)" >&2; exit 2; }
done
need=
command -v qemu-system-arm >/dev/null || need="qemu-system-arm"
command -v cpio >/dev/null || need="$need cpio"
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || { echo "run.sh: run as root to install:" $need >&2; exit 1; }
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi
arches=$(for b in $boards; do echo "${arch[$b]}"; done | sort -u)
tools/dist.sh $arches >"$out/dist.log" 2>&1 || { cat "$out/dist.log" >&2; exit 1; }
for a in $arches; do tools/boards/fetch.sh "$a" "$cache"; done

. tools/boards/modules.sh   # (from the repo root, where it runs) modclose: a module and what it needs

# Waits for the guest's QEMU (PID $1) to exit, for at most 300 s. A machine whose poweroff
# never reaches QEMU is stopped 5 s after the console ($2) shows @@DONE: by then init.sh
# has printed everything and called poweroff -f.
await() {
	local pid=$1 con=$2 n=0 done_at=
	while kill -0 "$pid" 2>/dev/null && [ $n -lt 3000 ]; do
		if [ -z "$done_at" ] && grep -aq '^@@DONE' "$con" 2>/dev/null; then done_at=$n; fi
		[ -n "$done_at" ] && [ $((n - done_at)) -ge 50 ] && { echo "@@KILLED after @@DONE" >>"$con"; break; }
		sleep 0.1
		n=$((n + 1))
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# One board: its initramfs, its disk, one boot. Run in a subshell of its own (below), so the
# variables are its own.
boot() {
	local b=$1
	a=${arch[$b]}
	root=$(cd "$cache/boards-$a" && pwd)
	kver=$(ls "$root/lib/modules")
	mods=$root/lib/modules/$kver
	kernel=$root/boot/vmlinuz-$kver
	dtbdir=$root/usr/lib/linux-image-$kver
	bin=$(ls dist/boardperf-*-"$a")
	# iomem=relaxed: the kernels have IO_STRICT_DEVMEM, which keeps /dev/mem off registers a
	# driver claimed (the GPIO block is pinctrl's); gpio --method mmap --allow-mmap needs it.
	extra="" checks=full
	case $b in
	raspi3b)
		qemu=(qemu-system-aarch64 -M raspi3b -m 1G -dtb "$dtbdir/broadcom/bcm2837-rpi-3-b.dtb"
			-drive "file=$out/$b.img,if=sd,format=raw")
		# The watchdog is how the Pi powers off. The SD card is the sdhost's (bcm2835.ko): its DT
		# pin set moves QEMU's card from the SDHCI (the Wi-Fi slot on a Pi 3) to it.
		want="bcm2835_wdt bcm2835 sdhci-iproc crc32c_generic ext4" disk=/dev/mmcblk0 console=ttyAMA0
		extra=iomem=relaxed ;;
	raspi2b)
		# Only info and GPIO (init.sh): cpu..rr would repeat raspi3b's and virt-a15's.
		qemu=(qemu-system-arm -M raspi2b -m 1G -dtb "$dtbdir/bcm2836-rpi-2-b.dtb"
			-drive "file=$out/$b.img,if=sd,format=raw")
		want="bcm2835_wdt bcm2835 sdhci-iproc crc32c_generic ext4" disk=/dev/mmcblk0 console=ttyAMA0
		extra=iomem=relaxed checks=gpio ;;
	orangepi-pc)
		# The H3's SD controller is sunxi-mmc's; QEMU models no PIO (GPIO writes are dropped).
		qemu=(qemu-system-arm -M orangepi-pc -m 1G -dtb "$dtbdir/sun8i-h3-orangepi-pc.dtb"
			-drive "file=$out/$b.img,if=sd,format=raw")
		want="sunxi_wdt sunxi-mmc crc32c_generic ext4" disk=/dev/mmcblk0 console=ttyS0
		extra=iomem=relaxed ;;
	virt-a15)
		# Info and GPIO (the PL061): cpu..sctp would repeat orangepi-pc's, the same armhf
		# binary on the oldest core it is for (Cortex-A7).
		qemu=(qemu-system-arm -M virt -cpu cortex-a15 -smp 2 -m 512M
			-drive "file=$out/$b.img,if=none,id=d0,format=raw" -device virtio-blk-device,drive=d0)
		want="virtio_mmio virtio_blk crc32c_generic ext4" disk=/dev/vda console=ttyAMA0 checks=gpio ;;
	virt-a53)
		# gpio_keys is a module on arm64 (built in on armmp): it holds the power key, PL061 line 3.
		# Info and GPIO: cpu..sctp would repeat raspi3b's, the same binary on the same core.
		qemu=(qemu-system-aarch64 -M virt -cpu cortex-a53 -smp 2 -m 512M
			-drive "file=$out/$b.img,if=none,id=d0,format=raw" -device virtio-blk-device,drive=d0)
		want="virtio_mmio virtio_blk gpio_keys crc32c_generic ext4" disk=/dev/vda console=ttyAMA0 checks=gpio ;;
	esac
	# The boards that run the network checks load the ARM kernel's sctp module too (init.sh's
	# tcp --sctp): Debian's armmp and arm64 kernels build it as a module.
	[ "$checks" = full ] && want="$want sctp"
	ird=$out/$b.initramfs
	rm -rf "$ird"
	mkdir -p "$ird"/{bin,proc,sys,dev,etc,lib/modules}
	cp "$root/bin/busybox" "$ird/bin/busybox"
	ln -s busybox "$ird/bin/sh"
	cp "$bin" "$ird/bin/boardperf"
	cp tools/boards/init.sh "$ird/init"
	echo "$disk" >"$ird/etc/board-disk"
	echo "$b" >"$ird/etc/board-name"
	echo "$checks" >"$ird/etc/board-checks"
	seen=()
	for m in $want; do modclose "$mods" "$m"; done >"$ird/lib/modules/order"
	while read -r m; do mkdir -p "$ird/lib/modules/$(dirname "$m")"; cp "$mods/$m" "$ird/lib/modules/$m"; done <"$ird/lib/modules/order"
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/$b.cpio.gz"
	rm -f "$out/$b.img"
	truncate -s 64M "$out/$b.img"
	# ext4 made here (e2fsprogs is in every Debian), mounted in the guest: formatting under
	# emulation cost the SD-card boards 10-45 s each and says nothing about boardperf.
	mke2fs -q -F -t ext4 "$out/$b.img"
	start=$(date +%s.%N)
	"${qemu[@]}" -kernel "$kernel" -initrd "$out/$b.cpio.gz" \
		-append "console=$console rdinit=/init panic=-1 quiet $extra" \
		-nographic -no-reboot -nic none -monitor none -serial stdio </dev/null >"$out/$b.console" 2>&1 &
	await "$!" "$out/$b.console"
	end=$(date +%s.%N)
	secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
	echo "$b: booted and ran in ${secs}s (console: $out/$b.console)"
	echo "$secs" >"$out/$b.seconds"
}

# Two boards at a time (BOARD_JOBS): a guest spends most of its boot in one QEMU thread, so
# on two cores two boots take little longer than one; every check is a count, a state or a
# figure above zero, none a speed, so sharing the host moves nothing they look at.
jobs_max=${BOARD_JOBS:-2}
for b in $boards; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	boot "$b" &
done
wait
tools/boards/check.sh "$out" $boards
