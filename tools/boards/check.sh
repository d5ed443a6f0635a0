#!/usr/bin/env bash
# Checks, from the host, what each emulated board printed on its console (tools/boards/run.sh
# wrote DIR/BOARD.console): every check exited 0 with boardperf/1 JSON whose figures are
# present and above zero (speeds under emulation mean nothing: only that they are figures),
# info named the emulated board, and disk ran on the virtual disk. Writes TAP per board to
# DIR/meson-logs/testlog.json in the form of Meson's log, for tests/summary.sh to count.
# The GPIO checks (gpio_tests) read their runs' JSON and the kernel's own view of the line
# (@@GPIO lines, from sysfs) the same way.
#   usage: tools/boards/check.sh DIR BOARD...
set -uo pipefail
. "$(dirname "$0")/../../tests/columns.sh"
dir=${1:?usage: check.sh DIR BOARD...}
shift
# What each board must report: DT model (exact), SoC ("" for none), the core summary.
declare -A model=([raspi3b]="Raspberry Pi 3 Model B" [virt-a15]="linux,dummy-virt" [virt-a53]="linux,dummy-virt"
	[orangepi-pc]="Xunlong Orange Pi PC" [raspi2b]="Raspberry Pi 2 Model B")
declare -A soc=([raspi3b]="Broadcom BCM2837" [virt-a15]="" [virt-a53]="" [orangepi-pc]="Allwinner H3"
	[raspi2b]="Broadcom BCM2836")
declare -A cores=([raspi3b]="4x Cortex-A53" [virt-a15]="2x Cortex-A15" [virt-a53]="2x Cortex-A53"
	[orangepi-pc]="4x Cortex-A7" [raspi2b]="4x Cortex-A7")
# The board's GPIO (init.sh's gpio_checks): the controller's label and line count, the methods
# it has, the line the kernel holds (the power key, gpio-keys) and what that consumer is
# called, the SoC mmap must name. QEMU's orangepi-pc has no PIO model: its GPIO writes are
# dropped and reads give 0, so there readback must report mismatches ("drops").
declare -A gchip=([raspi3b]=pinctrl-bcm2835 [raspi2b]=pinctrl-bcm2835 [virt-a15]=9030000.pl061
	[virt-a53]=9030000.pl061 [orangepi-pc]=1c20800.pinctrl)
declare -A glines=([raspi3b]=54 [raspi2b]=54 [virt-a15]=8 [virt-a53]=8 [orangepi-pc]=224)
declare -A gmethods=([raspi3b]="chardev sysfs mmap" [raspi2b]="chardev sysfs mmap" [virt-a15]="chardev sysfs"
	[virt-a53]="chardev sysfs" [orangepi-pc]="chardev sysfs mmap")
declare -A gbusy=([virt-a15]=3 [virt-a53]=3)
declare -A gsoc=([raspi3b]="brcm,bcm2837" [raspi2b]="brcm,bcm2836" [orangepi-pc]="allwinner,sun8i-h3")
declare -A gdrops=([orangepi-pc]=1)
# The kernel's view of the mmap line before the run (after init.sh's gpio_high).
declare -A gmmap=([raspi3b]="in 1" [raspi2b]="in 1" [orangepi-pc]="out 0")
# The kernel's view of the SIGINT line once init.sh made it an output driven high through
# sysfs and unexported it: the PL061 keeps it; BCM2835 pinctrl makes a freed pin an input
# again (its gpio_disable_free), so there only the direction is compared; on the H3 the
# write of 1 was dropped.
declare -A gset=([virt-a15]="out 1" [virt-a53]="out 1" [raspi3b]="in" [raspi2b]="in" [orangepi-pc]="out 0")
# Boards that run only info and the GPIO checks (run.sh's checks=gpio).
declare -A brief=([raspi2b]=1 [virt-a15]=1 [virt-a53]=1)
# A check's key figures (each must be a number above zero).
declare -A figures=([cpu]="rsa2048.sign ecdsa-p256.sign" [mem]="memcpy.bandwidth memset.bandwidth"
	[disk]="reads.rate writes.rate fsyncs.rate" [tcp]="sender.bytes receiver.bytes receiver.bitrate"
	[udp]="sender.packets receiver.packets receiver.bitrate" [rr]="transactions transactions.rate"
	[sctp]="sender.bytes receiver.bytes receiver.bitrate")

# A section's lines, less the kernel's own on the same console ("[   30.023825] rcu: INFO:
# rcu_sched self-detected stall", which a guest starved by its host prints in the middle of a
# JSON document: CI's raspi2b on 2026-12-04, every check of its info then failing to parse).
section() { awk -v n="$1" '{ sub(/\r$/, "") } /^\[ *[0-9]+\.[0-9]+\] / { next } $0 == "@@BEGIN " n { on = 1; next } index($0, "@@END " n " ") == 1 { on = 0 } on' "$2"; }
endrc() { tr -d '\r' <"$2" | sed -n "s/^@@END $1 //p" | head -1; }

figure() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' 2>/dev/null; }
gpio_state() { tr -d '\r' <"$con" | sed -n "s/^@@GPIO $1 //p" | head -1; }

# The GPIO checks of board $b (console $con), in the subshell of the board's TAP (ok, n).
gpio_tests() {
	local chip=${gchip[$b]} lines=${glines[$b]} json m v c msg
	json=$(section gpio-list "$con")
	[ "$(endrc gpio-list "$con")" = 0 ]; ok $? "gpio --list exits 0"
	jq -e --arg l "$chip" --argjson n "$lines" '.test == "gpio-list" and
		any(.chips[]; .label == $l and .lines == $n and (.lines_info | length) == $n)' <<<"$json" >/dev/null 2>&1
	ok $? "gpio --list: chip \"$chip\" with $lines lines"
	jq -e --arg l "$chip" --argjson n "$lines" 'any(.env.inventory.gpio[]; .label == $l and .lines == $n)' \
		<<<"$(section info "$con")" >/dev/null 2>&1
	ok $? "info: env.inventory.gpio lists \"$chip\""
	for m in ${gmethods[$b]}; do
		json=$(section "gpio-$m" "$con")
		[ "$(endrc "gpio-$m" "$con")" = 0 ] && jq -e '.schema == "boardperf/1" and .error == null' \
			<<<"$json" >/dev/null 2>&1
		ok $? "gpio --method $m exits 0 without an error"
		v=$(figure "$m.periods.rate" <<<"$json")
		awk -v v="$v" 'BEGIN { exit !(v != "" && v + 0 > 0) }'; ok $? "gpio $m: periods.rate = ${v:-missing} Hz > 0"
		c=$(figure "$m.readback.checks" <<<"$json")
		v=$(figure "$m.readback.mismatches" <<<"$json")
		if [ -n "${gdrops[$b]:-}" ]; then
			# every write of 1 reads back 0 (QEMU's reads give 0): exactly half the checks
			awk -v c="$c" -v v="$v" 'BEGIN { exit !(c + 0 > 0 && v * 2 == c) }' &&
				jq -e 'any(.warnings[]; .code == "readback-mismatch")' <<<"$json" >/dev/null 2>&1
			ok $? "gpio $m: the dropped writes are reported ($v of $c readbacks, the writes of 1; readback-mismatch)"
		else
			awk -v c="$c" -v v="$v" 'BEGIN { exit !(c + 0 > 0 && v != "" && v + 0 == 0) }' &&
				! jq -e 'any(.warnings[]; .code == "readback-mismatch")' <<<"$json" >/dev/null 2>&1
			ok $? "gpio $m: readback verified (${v:-missing} mismatches of ${c:-missing} checks)"
		fi
		[ "$m" = mmap ] || continue
		v=$(jq -r '.params["mmap.soc"] // empty' <<<"$json" 2>/dev/null)
		[ "$v" = "${gsoc[$b]}" ]; ok $? "gpio mmap: SoC '$v' from the device tree (expected '${gsoc[$b]}')"
		# The kernel's view (sysfs, through the pinctrl driver: GPLEV on the Pis) before and
		# after: on the Pis the pin was made high, then freed (an input again, level 1), so the
		# level after shows mmap's restore, its last write having been a low.
		v=$(gpio_state mmap-before) c=$(gpio_state mmap-after)
		[ "$v" = "${gmmap[$b]}" ] && [ "$c" = "$v" ]
		ok $? "gpio mmap: the kernel's view of the line restored ('$c', was '$v', expected '${gmmap[$b]}')"
	done
	# gpio --method all as text with no terminal and no COLUMNS (init.sh): 80 columns at most
	# (tests/columns.sh), each method the board has in it
	v=$(section gpio-text "$con")
	c=$(widest <<<"$v")
	msg=
	for m in ${gmethods[$b]}; do grep -q "\b$m\b" <<<"$v" || msg="$msg $m"; done
	[ "$(endrc gpio-text "$con")" = 0 ] && [ "$c" -le 80 ] && [ -z "$msg" ]
	ok $? "gpio --method all as text: $(grep -c . <<<"$v") lines, the widest $c columns (80 at most)${msg:+, missing:$msg}"
	[ "$c" -le 80 ] || wide_lines <(echo "$v")
	# A line past the chip's last: exit 1 and one line naming it and the chip's range.
	msg="line 999: gpiochip[0-9]+ \"$chip\" has lines 0\\.\\.$((lines - 1))"
	# (the lines are read whole first: grep -q ending a pipe fails it with SIGPIPE, as above)
	v=$(tr -d '\r' <"$con" | grep -a '^@@ERR .*line 999')
	[ "$(endrc gpio-badline "$con")" = 1 ] && [ "$(grep -c . <<<"$v")" = 1 ] &&
		grep -qE "^@@ERR boardperf gpio: error: $msg\$" <<<"$v"
	ok $? "gpio --line 999: exit 1, one line naming the chip's range"
	if [ -n "${gbusy[$b]:-}" ]; then
		c=$(jq -r --arg l "$chip" --argjson n "${gbusy[$b]}" '.chips[] | select(.label == $l) |
			.lines_info[$n] | select(.used) | .consumer' <<<"$(section gpio-list "$con")" 2>/dev/null)
		[ -n "$c" ]; ok $? "gpio --list: line ${gbusy[$b]} is used by '$c'"
		json=$(section gpio-busy "$con")
		[ "$(endrc gpio-busy "$con")" = 1 ] && jq -e --arg c "in use by \"$c\"" \
			'.error.code == "line-busy" and (.error.message | contains($c))' <<<"$json" >/dev/null 2>&1
		ok $? "gpio --line ${gbusy[$b]}: refused, exit 1, line-busy naming '$c'"
	fi
	json=$(section gpio-sigint "$con")
	v=$(figure chardev.periods.rate <<<"$json")
	[ "$(endrc gpio-sigint "$con")" = 0 ] && jq -e 'any(.warnings[]; .code == "interrupted")' <<<"$json" \
		>/dev/null 2>&1 && awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'
	ok $? "gpio SIGINT mid-loop: exit 0, warning interrupted, periods.rate = ${v:-missing}"
	# an input's value is whatever drives it: only an output's value is compared
	v=$(gpio_state sigint-before) c=$(gpio_state sigint-after)
	[ "${v%% *}" = in ] && v=in && c=${c%% *}
	[ "$v" = "${gset[$b]}" ]; ok $? "gpio SIGINT: the line before the run: '$v' (expected '${gset[$b]}')"
	[ -n "$v" ] && [ "$c" = "$v" ]; ok $? "gpio SIGINT: direction and value restored ('$c', was '$v')"
}

# The results database on the board (init.sh: history after the checks, a run without a
# home), in the board's TAP subshell.
store_tests() {
	local json v
	json=$(section history "$con" 2>/dev/null)
	[ "$(endrc history "$con")" = 0 ] && jq -e '[.[].test] as $t | all("info", "cpu", "mem",
		"disk", "tcp", "udp", "rr"; . as $w | $t | index($w))' <<<"$json" >/dev/null 2>&1
	ok $? "history lists the checks the board saved ($(jq -r '[.[].test] | join(" ")' <<<"$json" 2>/dev/null))"
	json=$(section nohome "$con" 2>/dev/null)
	v=$(tr -d '\r' <"$con" | sed -n 's/^@@NOHOME //p')
	[ "$(endrc nohome "$con")" = 0 ] && [ "$(figure sha256.16 <<<"$json")" != "" ] &&
		[ "$(grep -c . <<<"$v")" = 1 ] && grep -q "warning: not saved: .*HOME" <<<"$v"
	ok $? "without a home: the result printed, exit 0, one line on stderr ('$v')"
}

# The disk and rr checks of a board that ran them (in the board's TAP subshell).
disk_tests() {
	local disk
	disk=$(section disk "$con" 2>/dev/null)
	# grep reads the file itself: grep -q at the end of a pipe would make the pipe fail
	# (SIGPIPE, under pipefail) whenever it stopped reading first.
	grep -aqE $'^@@DISK /dev/[a-z0-9]+ ext4\r?$' "$con" 2>/dev/null
	ok $? "the virtual disk's filesystem was mounted in the guest"
	jq -e '.params.folder | startswith("/mnt/")' <<<"$disk" >/dev/null 2>&1
	ok $? "disk ran on the virtual disk's filesystem (/mnt)"
	[ "$(jq -r '[.metrics[] | select(.name == "failures")][0].value' <<<"$(section rr "$con")" 2>/dev/null)" = 0 ]
	ok $? "rr: no failures"
}

mkdir -p "$dir/meson-logs"
log=$dir/meson-logs/testlog.json
: >"$log"
rc=0
for b in "$@"; do
	con=$dir/$b.console
	tap=$(
		n=0 bad=0
		ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $b: $2"; else echo "not ok $n - $b: $2"; bad=1; fi; }
		grep -aq '^@@DONE' "$con" 2>/dev/null; ok $? "the guest ran every check and reached poweroff"
		tests="info cpu mem disk tcp udp rr sctp"
		[ -n "${brief[$b]:-}" ] && tests=info
		for t in $tests; do
			json=$(section "$t" "$con" 2>/dev/null)
			[ "$(endrc "$t" "$con" 2>/dev/null)" = 0 ]; ok $? "$t exits 0"
			jq -e '.schema == "boardperf/1" and (.error == null)' <<<"$json" >/dev/null 2>&1
			ok $? "$t prints boardperf/1 JSON without an error"
			[ "$t" = info ] && continue
			jq -e '(.metrics | length > 0) and all(.metrics[]; .value == null or (.value | type) == "number")' \
				<<<"$json" >/dev/null 2>&1
			ok $? "$t: every figure is a number"
			for f in ${figures[$t]}; do
				v=$(jq -r --arg n "$f" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$json" 2>/dev/null)
				awk -v v="$v" 'BEGIN { exit !(v != "" && v + 0 > 0) }'; ok $? "$t: $f = ${v:-missing} > 0"
			done
		done
		info=$(section info "$con" 2>/dev/null)
		inv() { jq -r ".env.inventory.$1 // \"\"" <<<"$info" 2>/dev/null; }
		got=$(inv board.model); [ "$got" = "${model[$b]}" ]; ok $? "info: model '$got' (expected '${model[$b]}')"
		got=$(inv board.soc); [ "$got" = "${soc[$b]}" ]; ok $? "info: SoC '$got' (expected '${soc[$b]}')"
		got=$(inv cpu.summary); [ "$got" = "${cores[$b]}" ]; ok $? "info: cores '$got' (expected '${cores[$b]}')"
		[ -n "${brief[$b]:-}" ] || disk_tests
		[ -n "${brief[$b]:-}" ] || store_tests
		gpio_tests
		echo "1..$n"
		exit $bad
	)
	res=$?
	[ "$res" = 0 ] && r=OK || { r=FAIL; rc=1; }
	echo "$tap" | grep '^not ok' >&2
	echo "$b: $(grep -c '^ok' <<<"$tap") passed, $(grep -c '^not ok' <<<"$tap") failed"
	jq -cn --arg name "board-$b" --arg r "$r" --arg out "$tap" \
		--argjson secs "$(cat "$dir/$b.seconds" 2>/dev/null || echo 0)" \
		'{name: $name, result: $r, duration: $secs, stdout: $out}' >>"$log"
done
exit $rc
