#!/usr/bin/env bash
# `boardperf gpio --method mmap` end to end on fixture trees: a board's device tree
# (tests/unit/fixtures/dt-*), its GPIO chip as sysfs shows it, and the register block as a
# plain file (dev/gpiomem, or a sparse dev/mem reaching the block's physical address) that
# the method maps. The loop's stores land in that file, so the test reads the registers it
# left behind; nothing drives GPLEV, so a Broadcom readback must report every high write as
# a mismatch (as a pin that does not follow would), while sunxi's DAT holds what was written.
# Usage: test_gpio_mmap.sh BOARDPERF FIXTURES (tests/unit/fixtures)
set -u
bp=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

# tree NAME DT LABEL LINES: a root with DT's device tree and one gpiochip0 (sysfs base 512)
tree() {
	local t=$tap_tmp/$1 c
	mkdir -p "$t/dev"
	cp -a "$fixtures/$2/." "$t/"
	c=$t/sys/bus/gpio/devices/gpiochip0/gpio/gpiochip512
	mkdir -p "$c"
	echo "$3" >"$c/label"
	echo "$4" >"$c/ngpio"
	echo 512 >"$c/base"
	: >"$t/dev/gpiochip0" # not a character device: the chardev cannot be asked
	echo "$t"
}
# le32 FILE OFFSET [VALUE]: reads (or writes) one little-endian register of the file
le32() {
	if [ $# -eq 3 ]; then
		printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($3 & 255)) $(($3 >> 8 & 255)) \
			$(($3 >> 16 & 255)) $(($3 >> 24 & 255)))" |
			dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	else
		od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '
	fi
}
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // "none"' <<<"$out"; }

# --- Raspberry Pi 3 through /dev/gpiomem ---
pi=$(tree pi dt-rpi3b pinctrl-bcm2835 54)
truncate -s 4096 "$pi/dev/gpiomem"
fsel1=$((0x3f03ffff & ~(7 << 21))) # GPIO17 an input, its neighbours in ALT3
le32 "$pi/dev/gpiomem" 4 $fsel1

expect_exit 1 "a line the chardev cannot vouch for" "$bp" gpio --root "$pi" --line 17 \
	--method mmap --json
jq -e '.error.code == "io" and (.error.message | test("cannot ask /dev/gpiochip0 whether line 17 is free"))' \
	<<<"$out" >/dev/null; ok $? "refused (code io), not guessed free"

expect_exit 0 "mmap --force --readback" "$bp" gpio --root "$pi" --line 17 --method mmap \
	--force --readback -t 0.2 --json
jq -e '.params["mmap.path"] == "BCM2837 registers at 0x3f200000 via /dev/gpiomem: GPSET0/GPCLR0, one store per write (GPIO17)" and
       .params["mmap.soc"] == "brcm,bcm2837" and .params.methods == ["mmap"]' <<<"$out" >/dev/null
ok $? "params: mmap.path, mmap.soc"
rate=$(metric mmap.periods.rate) checks=$(metric mmap.readback.checks) bad=$(metric mmap.readback.mismatches)
awk -v r="$rate" 'BEGIN { exit !(r > 1000) }'; ok $? "mmap.periods.rate $rate Hz"
# every check after a high write mismatches, every one after a low write matches
awk -v c="$checks" -v b="$bad" 'BEGIN { exit !(c > 100 && (c - 2 * b) * (c - 2 * b) <= 1) }'
ok $? "readback: $bad of $checks mismatched (the highs GPLEV never showed)"
jq -e '[.warnings[].code] | index("readback-mismatch") != null' <<<"$out" >/dev/null
ok $? "warning readback-mismatch"
[ "$(le32 "$pi/dev/gpiomem" 4)" = "$fsel1" ]; ok $? "GPFSEL1 restored: input, neighbours kept"
# GPLEV0 read 0 at open: the close puts the latch back low (GPCLR0 bit 17)
[ "$(le32 "$pi/dev/gpiomem" 40)" = $((1 << 17)) ]; ok $? "GPCLR0 = bit 17 after close"

# SIGINT: stopped, figures kept, GPFSEL restored
"$bp" gpio --root "$pi" --line 17 --method mmap --force -t 20 -i 0 --json \
	>"$tap_tmp/int.json" 2>"$tap_tmp/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
[ $? -eq 0 ]; ok $? "SIGINT: exit 0"
jq -e '[.warnings[].code] | index("interrupted") != null' "$tap_tmp/int.json" >/dev/null
ok $? "SIGINT: warning interrupted"
[ "$(le32 "$pi/dev/gpiomem" 4)" = "$fsel1" ]; ok $? "SIGINT: GPFSEL1 restored"

# --- Raspberry Pi 4 on a plain kernel: only /dev/mem ---
pi4=$(tree pi4 dt-rpi4 pinctrl-bcm2711 58)
truncate -s $((0xfe201000)) "$pi4/dev/mem"
expect_exit 1 "/dev/mem without --allow-mmap" "$bp" gpio --root "$pi4" --line 4 --method mmap --force
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -qF "gpio: error: --method mmap: no /dev/gpiomem here" <<<"$err" &&
	grep -qF "pass --allow-mmap" <<<"$err"; ok $? "one line that says to pass --allow-mmap"
expect_exit 0 "/dev/mem with --allow-mmap" "$bp" gpio --root "$pi4" --line 4 --method mmap \
	--force --allow-mmap -t 0.2 --json
jq -e '(.params["mmap.path"] | startswith("BCM2711 registers at 0xfe200000 via /dev/mem")) and
       .params.allow_mmap == true' <<<"$out" >/dev/null; ok $? "BCM2711 at 0xfe200000 via /dev/mem"

# --- Orange Pi PC: sunxi, read-modify-write of DAT ---
opi=$(tree opi dt-orangepi-pc 1c20800.pinctrl 224)
truncate -s $((0x01c21000)) "$opi/dev/mem"
pg=$((0x01c20800 + 6 * 0x24))
le32 "$opi/dev/mem" $pg $((0x77777777))
le32 "$opi/dev/mem" $((pg + 0x10)) $((0x5a))
expect_exit 0 "H3 PG7 --readback" "$bp" gpio --root "$opi" --line 199 --method mmap --force \
	--allow-mmap --readback -t 0.2 --json
jq -e '.params["mmap.path"] == "Allwinner H3 PIO at 0x01c20800 via /dev/mem: PG_DAT read-modify-write per write, no set/clear registers (PG7)" and
       .params["mmap.soc"] == "allwinner,sun8i-h3"' <<<"$out" >/dev/null; ok $? "params: the H3's PIO, RMW"
checks=$(metric mmap.readback.checks) bad=$(metric mmap.readback.mismatches)
[ "$checks" -gt 100 ] && [ "$bad" -eq 0 ]; ok $? "readback from DAT: $bad of $checks mismatched"
[ "$(le32 "$opi/dev/mem" $pg)" = $((0x77777777)) ]; ok $? "PG_CFG0 restored"
[ "$(le32 "$opi/dev/mem" $((pg + 0x10)))" = $((0x5a)) ]; ok $? "PG_DAT: the other pins as they were"
expect_exit 1 "PB0 on an H3" "$bp" gpio --root "$opi" --line 32 --method mmap --force --allow-mmap
grep -qF "gpio: error: --method mmap: line 32 is PB0: the Allwinner H3 has no port B" <<<"$err"
ok $? "one line: the H3 has no port B"

# --- QEMU virt: an SoC boardperf has no registers for ---
virt=$(tree virt dt-virt 9030000.pl061 8)
truncate -s 4096 "$virt/dev/mem"
expect_exit 1 "mmap on virt" "$bp" gpio --root "$virt" --line 3 --method mmap --force --allow-mmap --json
jq -e '.error.code == "unsupported" and .error.message == "--method mmap: SoC '"'linux,dummy-virt'"' is not one boardperf knows (BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20)"' \
	<<<"$out" >/dev/null; ok $? "error unsupported, naming the SoC and the known ones"
expect_exit 1 "mmap on virt, text" "$bp" gpio --root "$virt" --line 3 --method mmap --force --allow-mmap
[ "$err" = "boardperf gpio: error: --method mmap: SoC 'linux,dummy-virt' is not one boardperf knows (BCM2835/6/7, BCM2711, Allwinner H3/H2+, A20)" ]
ok $? "text: the one line"

tap_done
