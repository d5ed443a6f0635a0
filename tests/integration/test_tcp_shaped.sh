#!/usr/bin/env bash
# Ground truth for boardperf tcp: test hosts in network namespaces joined by a veth pair
# shaped with tbf to a known rate. The receiver's goodput must read 93-99 % of the shaped
# rate (TCP/IP headers leave at most 1448/1514 = 95.6 % for payload), in each direction.
# Usage: test_tcp_shaped.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=("100mbit upload" "100mbit reverse" "1gbit upload" "1gbit reverse"
	"unreachable host" "unreachable host: one line in time")
if ! rig_require; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }

# shaped RATE_NAME RATE_BITS: one rig, a server in it, an upload and a reverse test.
shaped() {
	local name=$1 bits=$2 dir j v pct
	rig_up --rate "$name"
	rig_bg server "$bp" serve -p 5201 --idle-timeout 5 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
	rig_wait_port server 5201 5  # port-ok: in the test's own namespaces
	for dir in upload reverse; do
		j=$(rig_exec client "$bp" tcp -c "$RIG_SERVER_IP" -t 4 -O 1 -i 1 --json \
			$([ "$dir" = reverse ] && echo -R) 2>"$tap_tmp/err")
		check_rates "$j" "$name $dir"
		v=$(metric receiver.bitrate "$j")
		pct=$(awk -v v="${v:-0}" -v b="$bits" 'BEGIN { printf "%.2f", v / b * 100 }')
		echo "# $name $dir: receiver $v bit/s = $pct % of the shaped rate"
		awk -v p="$pct" 'BEGIN { exit !(p >= 93 && p <= 99) }'
		ok $? "$name $dir: receiver goodput $pct % of $name (93-99 %)"
	done
	rig_down
}

shaped 100mbit 100000000
shaped 1gbit 1000000000

# A host that does not answer (its link is down, so ARP fails): one line, within the
# connect timeout, exit 1.
rig_up
rig_exec server ip link set "$RIG_SERVER_IF" down
t0=$(date +%s%N)
rig_exec client "$bp" tcp -c "$RIG_SERVER_IP" -t 1 --connect-timeout 2 >/dev/null 2>"$tap_tmp/err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" -eq 1 ]; ok $? "unreachable host exits 1 (got $rc)"
err=$(cat "$tap_tmp/err")
[ "$ms" -le 4000 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "$RIG_SERVER_IP" <<<"$err"
ok $? "unreachable host: one line after $ms ms: $err"
rig_down
tap_done
