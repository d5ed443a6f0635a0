#!/bin/sh
# /init of an emulated board's initramfs (tools/boards/run.sh builds it): loads the modules
# the board needs, makes a filesystem on the virtual disk, runs every check of the board in
# this one boot and prints each one's JSON on the console between markers the host reads:
#   @@BEGIN NAME  ...JSON...  @@END NAME RC
# then powers off (QEMU exits: -no-reboot).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /mnt && mount -t tmpfs tmp /tmp
# Modules in dependency order (run.sh wrote the list); the kernel has no modprobe here.
while read -r m; do insmod "/lib/modules/$m" || echo "@@MODULE $m failed"; done </lib/modules/order
ip link set lo up
disk=$(cat /etc/board-disk)
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b "$disk" ] && break; sleep 0.5; done
check() {
	name=$1; shift
	echo "@@BEGIN $name"
	"$@" </dev/null 2>/tmp/err
	rc=$?
	echo
	echo "@@END $name $rc"
	[ "$rc" = 0 ] || sed 's/^/@@ERR /' /tmp/err
}
# mke2fs is busybox's: a real block device, formatted in the guest (no host tools); the ext4 driver mounts ext2.
if mke2fs -q "$disk" >/tmp/mkfs.log 2>&1 && mount -t ext4 "$disk" /mnt; then
	echo "@@DISK $disk ext2"
else
	echo "@@DISK $disk failed: $(cat /tmp/mkfs.log)"
fi
check info boardperf info --json
check cpu boardperf cpu -t 0.2 --json
check mem boardperf mem -t 0.2 --size 1M --max-size 1M --json
check disk boardperf disk --dir /mnt --size 8M --files 4 -t 1 --json
port=5201
boardperf serve -p $port --idle-timeout 5 2>/tmp/serve.log &
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	grep -q listening /tmp/serve.log && break; sleep 0.3
done
check tcp boardperf tcp -c 127.0.0.1 -p $port -t 1 --json
check udp boardperf udp -c 127.0.0.1 -p $port -t 1 -b 10M --json
check rr boardperf rr -c 127.0.0.1 -p $port -t 1 --json
echo "@@DONE"
poweroff -f
