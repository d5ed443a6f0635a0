#!/usr/bin/env bash
# Checks, from the host, what each emulated board printed on its console (tools/boards/run.sh
# wrote DIR/BOARD.console): every check exited 0 with boardperf/1 JSON whose figures are
# present and above zero (speeds under emulation mean nothing: only that they are figures),
# info named the emulated board, and disk ran on the virtual disk. Writes TAP per board to
# DIR/meson-logs/testlog.json in the form of Meson's log, for tests/summary.sh to count.
#   usage: tools/boards/check.sh DIR BOARD...
set -uo pipefail
dir=${1:?usage: check.sh DIR BOARD...}
shift
# What each board must report: DT model (exact), SoC ("" for none), the core summary.
declare -A model=([raspi3b]="Raspberry Pi 3 Model B" [virt-a15]="linux,dummy-virt" [virt-a53]="linux,dummy-virt")
declare -A soc=([raspi3b]="Broadcom BCM2837" [virt-a15]="" [virt-a53]="")
declare -A cores=([raspi3b]="4x Cortex-A53" [virt-a15]="2x Cortex-A15" [virt-a53]="2x Cortex-A53")
# A check's key figures (each must be a number above zero).
declare -A figures=([cpu]="rsa2048.sign ecdsa-p256.sign" [mem]="memcpy.bandwidth memset.bandwidth"
	[disk]="reads.rate writes.rate fsyncs.rate" [tcp]="sender.bytes receiver.bytes receiver.bitrate"
	[udp]="sender.packets receiver.packets receiver.bitrate" [rr]="transactions transactions.rate")

section() { awk -v n="$1" '{ sub(/\r$/, "") } $0 == "@@BEGIN " n { on = 1; next } index($0, "@@END " n " ") == 1 { on = 0 } on' "$2"; }
endrc() { tr -d '\r' <"$2" | sed -n "s/^@@END $1 //p" | head -1; }

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
		for t in info cpu mem disk tcp udp rr; do
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
		disk=$(section disk "$con" 2>/dev/null)
		# grep reads the file itself: grep -q at the end of a pipe would make the pipe fail
		# (SIGPIPE, under pipefail) whenever it stopped reading first.
		grep -aqE $'^@@DISK /dev/[a-z0-9]+ ext2\r?$' "$con" 2>/dev/null
		ok $? "the virtual disk was formatted and mounted in the guest"
		jq -e '.params.folder | startswith("/mnt/")' <<<"$disk" >/dev/null 2>&1
		ok $? "disk ran on the virtual disk's filesystem (/mnt)"
		[ "$(jq -r '[.metrics[] | select(.name == "failures")][0].value' <<<"$(section rr "$con")" 2>/dev/null)" = 0 ]
		ok $? "rr: no failures"
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
