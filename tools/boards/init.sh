#!/bin/sh
# /init of an emulated board's initramfs (tools/boards/run.sh builds it): loads the modules
# the board needs, makes a filesystem on the virtual disk, runs every check of the board in
# this one boot and prints each one's JSON on the console between markers the host reads:
#   @@BEGIN NAME  ...JSON...  @@END NAME RC   (and, when RC is not 0, its stderr as @@ERR lines)
# then the board's GPIO checks (gpio_checks below) and powers off (QEMU exits: -no-reboot).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /mnt && mount -t tmpfs tmp /tmp
echo "@@UPTIME init $(cut -d' ' -f1 /proc/uptime)"
# Modules in dependency order (run.sh wrote the list); the kernel has no modprobe here.
while read -r m; do insmod "/lib/modules/$m" || echo "@@MODULE $m failed"; done </lib/modules/order
ip link set lo up
disk=$(cat /etc/board-disk)
# Until the card can be read, not only until its node exists: under TCG with another board
# beside it, the Orange Pi's sunxi-mmc has shown the node while opening it still said ENXIO
# ("No such device or address"). At most 30 s.
for _ in $(seq 60); do
	[ -b "$disk" ] && dd if="$disk" of=/dev/null bs=512 count=1 2>/dev/null && break
	sleep 0.5
done
check() {
	name=$1; shift
	echo "@@BEGIN $name"
	"$@" </dev/null 2>/tmp/err
	rc=$?
	echo
	echo "@@END $name $rc"
	[ "$rc" = 0 ] || sed 's/^/@@ERR /' /tmp/err
	echo "@@UPTIME $name $(cut -d' ' -f1 /proc/uptime)"
}
# The host formatted the disk (run.sh: busybox's mke2fs took 10-45 s of an SD card's boot
# under TCG, the longest step of the slowest board); the guest's kernel mounts it.
if mount -t ext4 "$disk" /mnt 2>/tmp/mount.log; then
	echo "@@DISK $disk ext4"
else
	echo "@@DISK $disk failed: $(cat /tmp/mount.log)"
fi
check info boardperf info --json
# A board that only adds GPIO and board detection to the others (run.sh: raspi2b, whose
# BCM2835 GPIO and SD card raspi3b checks too) skips the rest, to keep CI short.
if [ "$(cat /etc/board-checks)" = full ]; then
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
	# SCTP through the ARM kernel's sctp module (run.sh loads it); -l 64K: iperf3's SCTP size
	check sctp boardperf tcp --sctp -c 127.0.0.1 -p $port -t 1 -l 64K --json
	# The results database of the static binary: each check above was saved (HOME is / for
	# init, on the initramfs); without any home the result is still printed and the save's
	# one warning is all of stderr (@@NOHOME lines).
	check history boardperf history --json
	check nohome env -u HOME -u XDG_DATA_HOME boardperf cpu --algo sha256 --sizes 16 -t 0.05 --json
	sed 's/^/@@NOHOME /' /tmp/err
fi

# The sysfs number of line $2 of the chip labelled $1 (its base plus the offset), from sysfs.
sysfs_gpio() {
	for c in /sys/class/gpio/gpiochip*; do
		[ "$(cat "$c/label")" = "$1" ] && { echo $(($(cat "$c/base") + $2)); return 0; }
	done
	return 1
}
# Prints "@@GPIO NAME DIRECTION VALUE" for line $3 of chip $2: the kernel's own view (sysfs),
# not boardperf's. Exporting a line changes neither its direction nor its value.
gpio_state() {
	n=$(sysfs_gpio "$2" "$3") || { echo "@@GPIO $1 no-chip"; return; }
	echo "$n" >/sys/class/gpio/export
	echo "@@GPIO $1 $(cat "/sys/class/gpio/gpio$n/direction") $(cat "/sys/class/gpio/gpio$n/value")"
	echo "$n" >/sys/class/gpio/unexport
}
# Restore after SIGINT on line $2 of chip $1: the line is made an output driven high through
# sysfs (gpio_high: a state boardperf did not set), a long run is interrupted mid-loop, and the
# kernel's view afterwards must be that state again (check.sh compares @@GPIO
# sigint-before/after).
gpio_high() {
	n=$(sysfs_gpio "$1" "$2") || return 0
	echo "$n" >/sys/class/gpio/export
	echo high >"/sys/class/gpio/gpio$n/direction"
	echo "$n" >/sys/class/gpio/unexport
}
gpio_sigint() {
	gpio_high "$1" "$2"
	gpio_state sigint-before "$1" "$2"
	boardperf gpio --chip "$1" --line "$2" -t 30 --json >/tmp/sigint.json 2>/tmp/err &
	pid=$!
	# SIGINT once the loop runs: the kernel shows the line held by boardperf (at most 10 s),
	# then a second for the loop's first timed pairs
	for _ in $(seq 40); do
		boardperf gpio --list --json 2>/dev/null | grep -q '"consumer": *"boardperf"' && break
		sleep 0.25
	done
	sleep 1
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	echo "@@BEGIN gpio-sigint"; cat /tmp/sigint.json; echo; echo "@@END gpio-sigint $rc"
	[ "$rc" = 0 ] || sed 's/^/@@ERR /' /tmp/err
	gpio_state sigint-after "$1" "$2"
}
# The board's GPIO checks, -t 0.5 each: CHIP the controller's label, LINE a line the guest
# does not use, BUSY one the kernel holds (virt: the power key, PL061 line 3, gpio-keys).
gpio_checks() {
	chip=$1 line=$2 busy=$3 mmap=$4
	check gpio-list boardperf gpio --list --json
	check gpio-chardev boardperf gpio --chip "$chip" --line "$line" --readback -t 0.5 --json
	check gpio-sysfs boardperf gpio --chip "$chip" --line "$line" --method sysfs --readback -t 0.5 --json
	if [ "$mmap" = mmap ]; then
		# the level the kernel reads before and after: mmap must put back the one it found
		gpio_high "$chip" "$line"
		gpio_state mmap-before "$chip" "$line"
		check gpio-mmap boardperf gpio --chip "$chip" --line "$line" --method mmap --allow-mmap \
			--readback -t 0.5 --json
		gpio_state mmap-after "$chip" "$line"
	fi
	# The text a user reads over SSH: not a terminal and no COLUMNS, so 80 columns; every
	# method this board has (mmap where its SoC has one) in it.
	check gpio-text sh -c 'env -u COLUMNS boardperf gpio --chip "$0" --line "$1" --method all \
		--allow-mmap -t 0.3 >/tmp/gpio.txt; rc=$?; cat /tmp/gpio.txt; exit $rc' "$chip" "$line"
	check gpio-badline boardperf gpio --chip "$chip" --line 999 -t 0.5 --json
	[ -n "$busy" ] && check gpio-busy boardperf gpio --chip "$chip" --line "$busy" -t 0.5 --json
	gpio_sigint "$chip" "$line"
}
# Seconds since boot where the GPIO checks start and where all end (each check's end too).
echo "@@UPTIME gpio $(cut -d' ' -f1 /proc/uptime)"
case $(cat /etc/board-name) in
virt-a15 | virt-a53) gpio_checks 9030000.pl061 5 3 ;;
raspi3b | raspi2b) gpio_checks pinctrl-bcm2835 20 "" mmap ;;
orangepi-pc) gpio_checks 1c20800.pinctrl 7 "" mmap ;;
esac
echo "@@UPTIME done $(cut -d' ' -f1 /proc/uptime)"
echo "@@DONE"
poweroff -f
