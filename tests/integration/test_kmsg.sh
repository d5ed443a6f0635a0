#!/usr/bin/env bash
# The kernel's complaints in the result (issue 36, board/kmsg.h): a warning line written to
# /dev/kmsg while a tcp test runs through a rig's veth (once its first interval is out, so
# the test is surely under way) appears in that test's result, quoted in the warning
# `kernel-messages` and in monitor.kernel_messages, marked on the path since it names the
# rig's bpc0; an info line beside it does not; a flood of 30 keeps 20 and counts 10; a test
# with none says an empty list and no warning; and as a user who may not read the log
# (kernel.dmesg_restrict=1), null and one line on stderr. Writing to /dev/kmsg reaches every
# other test's result that runs meanwhile: this one runs alone. Needs root; skips otherwise.
# Usage: test_kmsg.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=("a warning written to /dev/kmsg during tcp is in its result, on the path"
	"an info line beside it is not kept"
	"a flood keeps 20 and counts the rest"
	"a test with no message: an empty list, no warning"
	"without the right to read the log: null, and one line on stderr")
if [ "$(id -u)" != 0 ] || ! [ -w /dev/kmsg ] || ! rig_require jq; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi
tag="bptest-$BP_RUN-$$"

# kmsg_during N LINE...: tcp through the rig for 2 s, the LINEs written to /dev/kmsg once its
# first interval is out (N: how many times each); the end document into $tap_tmp/r.json
kmsg_during() {
	local n=$1 line i written=0
	shift
	rig_exec client "$bp" tcp -c "$RIG_SERVER_IP" -t 2 -i 0.5 -b 20M --json-stream 2>/dev/null |
		while IFS= read -r ev; do
			if [ "$written" = 0 ] && [[ $ev == '{"event":"interval"'* ]]; then
				for line in "$@"; do
					for ((i = 0; i < n; i++)); do echo "$line" >/dev/kmsg; done
				done
				written=1
			fi
			[[ $ev == '{"event":"end"'* ]] && jq -c .data <<<"$ev"
		done >"$tap_tmp/r.json"
}

# the kernel lets programs write 10 lines per 5 s to /dev/kmsg (printk_devkmsg=ratelimit):
# the flood needs it off for its few seconds, and the setting back however the test ends
# (rig_up keeps this trap and runs its own before it)
devkmsg=$(sysctl -n kernel.printk_devkmsg 2>/dev/null)
trap 'sysctl -q -w kernel.printk_devkmsg="$devkmsg" 2>/dev/null; rm -rf "$tap_tmp"' EXIT
rig_up
rig_bg server "$bp" serve -p 5201 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
rig_wait_port server 5201  # port-ok: in the test's own namespaces

kmsg_during 1 "<4>$tag: bpc0: a warning the test wrote" "<6>$tag: an info line"
msgs=$(jq -c --arg t "$tag" '[.monitor.kernel_messages[] | select(.text | startswith($t))]' \
	"$tap_tmp/r.json")
jq -e --arg t "$tag" 'length == 1 and .[0].text == "\($t): bpc0: a warning the test wrote"
	and .[0].level == "warning" and .[0].kernel == false and .[0].on_path == true' \
	<<<"$msgs" >/dev/null &&
	jq -e --arg t "$tag" '[.warnings[] | select(.code == "kernel-messages"
		and (.message | contains("\($t): bpc0: a warning the test wrote")))] | length == 1' \
		"$tap_tmp/r.json" >/dev/null
ok $? "${checks[0]} ($msgs)"
jq -e --arg t "$tag" '[.monitor.kernel_messages[] | select(.text | contains("info line"))]
	| length == 0' "$tap_tmp/r.json" >/dev/null
ok $? "${checks[1]}"

if sysctl -q -w kernel.printk_devkmsg=on 2>/dev/null; then
	kmsg_during 30 "<3>$tag: flood"
	sysctl -q -w kernel.printk_devkmsg="$devkmsg"
	jq -e '(.monitor.kernel_messages | length) == 20 and .monitor.kernel_messages_more >= 10' \
		"$tap_tmp/r.json" >/dev/null
	ok $? "${checks[2]} ($(jq -c '[(.monitor.kernel_messages | length), .monitor.kernel_messages_more]' "$tap_tmp/r.json"))"
else
	skip "${checks[2]}" "kernel.printk_devkmsg is fixed at boot ($devkmsg): programs may write 10 lines per 5 s"
fi

# (another test's message could land in this one's: the check is on the shape, and on ours)
kmsg_during 0
jq -e --arg t "$tag" '(.monitor.kernel_messages | type) == "array" and
	([.monitor.kernel_messages[] | select(.text | startswith($t))] | length) == 0 and
	(.monitor.kernel_messages | length > 0) == ([.warnings[] | select(.code == "kernel-messages")] | length > 0)' \
	"$tap_tmp/r.json" >/dev/null
ok $? "${checks[3]} ($(jq -c '.monitor.kernel_messages' "$tap_tmp/r.json" | head -c 200))"
rig_down

if [ "$(sysctl -n kernel.dmesg_restrict 2>/dev/null)" = 1 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$bp" mem -t 0.2 --json --no-save \
		>"$tap_tmp/u.json" 2>"$tap_tmp/u.err"
	n=$(grep -c 'kmsg' "$tap_tmp/u.err")
	jq -e '.monitor | has("kernel_messages") and .kernel_messages == null' "$tap_tmp/u.json" \
		>/dev/null && [ "$n" = 1 ]
	ok $? "${checks[4]} ($n lines: $(head -c 200 "$tap_tmp/u.err"))"
else
	skip "${checks[4]}" "kernel.dmesg_restrict is not 1 here, or no setpriv"
fi
tap_done
