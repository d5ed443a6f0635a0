#!/bin/sh
# /init of the slow-disk rig (tools/boards/together.sh builds it): loads the USB host, stick
# and Ethernet modules, brings up the usb-net interface on QEMU's user network, formats the
# throttled stick, runs `boardperf together` with the lines of /etc/together (network test,
# disk test, -t, rounds) and prints its JSON between @@BEGIN/@@END markers, then powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
while read -r m; do insmod "/lib/modules/$m" || echo "@@MODULE $m failed"; done </lib/modules/order
ip link set lo up
for _ in $(seq 40); do [ -b /dev/sda ] && ls /sys/class/net | grep -qv '^lo$' && break; sleep 0.5; done
nic=$(ls /sys/class/net | grep -v '^lo$' | head -1)
echo "@@NIC $nic $(cat /sys/class/net/"$nic"/device/uevent 2>/dev/null | grep DRIVER)"
ip link set "$nic" up
ip addr add 10.0.2.15/24 dev "$nic"
# busybox mke2fs: ext2, which the ext4 driver mounts
if mke2fs -q /dev/sda >/tmp/mkfs.log 2>&1 && mount -t ext4 /dev/sda /mnt 2>>/tmp/mkfs.log; then
	echo "@@DISK /dev/sda $(cat /sys/block/sda/device/model 2>/dev/null)"
else
	echo "@@DISK failed: $(tr '\n' ' ' </tmp/mkfs.log)"
fi
{ read -r net; read -r disk; read -r t; read -r repeat; } </etc/together
echo "@@BEGIN together"
boardperf together "$net" "$disk" -t "$t" --repeat "$repeat" --json 2>/tmp/err
rc=$?
echo
echo "@@END together $rc"
sed 's/^/@@ERR /' /tmp/err
poweroff -f
