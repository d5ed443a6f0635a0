#!/usr/bin/env bash
# Ground truth for boardperf tcp: test hosts in network namespaces joined by a veth pair
# shaped with tbf to a known rate. The receiver's goodput must read 93-99 % of the shaped
# rate (TCP/IP headers leave at most 1448/1514 = 95.6 % for payload), in each direction.
# And -b: the rate asked for within 2 %, over loopback and the veth pair.
# Usage: test_tcp_shaped.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

checks=("100mbit upload" "100mbit reverse" "1gbit upload" "1gbit reverse"
	"veth -b 1M" "veth -b 10M" "veth -b 100M" "veth -b 1G" "veth -b 100M -R"
	"unreachable host" "unreachable host: one line in time")
bp_ports 1; lo_port=$BP_PORT
lo_log="$tap_tmp/serve-lo.log"
"$bp" serve -B 127.0.0.1 -p "$lo_port" --idle-timeout 5 2>"$lo_log" &
lo_pid=$!
trap 'kill $lo_pid 2>/dev/null; rm -rf "$tap_tmp"' EXIT  # replaces tap.sh's, which removed it
wait_log "$lo_log" "listening"

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }

# TCP -b RATE: the receiver's payload over its own span within 2 % of the asked rate (issue
# 33), from 1 Mbit/s to 1 Gbit/s, and within 2 % of what the sender says it sent. The kernel
# paces the socket, and the sender never writes ahead of the rate (src/io/stream_data.c):
# before, loopback's first ~1.8 MB left at once (-b 1M read 2.40 Mbit/s over 10 s, 10M
# 11.36). A pacer makes up no time its sender lost: a busy loop on one of the two cores took
# 1M to 97.79 % and 10M to 96.55 % (session 20); quiet, 98.4-100 %. 1M, 10M, 100M and
# -R 100M side by side (a few % of a core together), then 1G alone.
# paced WHERE HOST PORT [PREFIX...]
paced() {
	local where=$1 host=$2 p=$3 c b bits j v pct why pids=()
	shift 3
	for c in "1M" "10M" "100M" "100M -R" "1G"; do
		[ "$c" = 1G ] && wait "${pids[@]}"
		# shellcheck disable=SC2086 # the case's words
		# 1M for 4 s: 2 s at 1 Mbit/s is 250 kB, and the span's edges (the first write,
		# the last ack) weigh 2 % of it (CI run 43, alone: 97.79 % without a warning)
		"$@" "$bp" tcp -c "$host" -p "$p" -t "$([ "$c" = 1M ] && echo 4 || echo 2)" -b $c --json >"$tap_tmp/paced.${c// /}" \
			2>"$tap_tmp/paced.${c// /}.err" &
		pids+=($!)
	done
	wait "${pids[@]}"
	for c in "1M" "10M" "100M" "1G" "100M -R"; do
		b=${c%% *}
		bits=$(numfmt --from=si "$b")
		j=$(cat "$tap_tmp/paced.${c// /}")
		v=$(metric receiver.bitrate "$j")
		pct=$(awk -v v="${v:-0}" -v b="$bits" 'BEGIN { printf "%.2f", v / b * 100 }')
		why=$(tester_cpu_named "$j")
		echo "# $where -b $c: receiver $v bit/s ($pct %), sender $(metric sender.bitrate "$j")${why:+, warned: $why}"
		# short of the rate only where the result says the tester lost its CPU (CI, a slow
		# host: veth -b 1G at 91.9 %): the pacer makes up no time its process was not run
		awk -v p="$pct" -v v="${v:-0}" -v s="$(metric sender.bitrate "$j")" -v w="$why" 'BEGIN {
			d = v - s; if (d < 0) d = -d
			exit !((p >= 98 || w != "") && p <= 102 && s > 0 && d <= 0.02 * s) }'
		ok $? "$where -b $c: receiver payload rate $pct % of the asked (98-102 %, or short with the tester's CPU named: ${why:-none}; within 2 % of the sender's) $(cat "$tap_tmp/paced.${c// /}.err")"
	done
}
paced loopback 127.0.0.1 "$lo_port"

if ! rig_require; then
	rig_tap_skip "${checks[@]}"
	tap_done
	exit
fi

# shaped RATE_NAME RATE_BITS: one rig, a server in it, an upload and a reverse test.
# The rig's bucket holds 40 ms of tokens, not the default one tick (4 ms at HZ 250): tbf
# adds tokens for the time since its last wake-up but keeps at most a bucketful, so a wake-up
# late by more than the bucket's time costs the link itself rate. A hypervisor taking 6 % of
# this VM's time (steal) held the default 100mbit rig at 91.2-92.9 % in every second (CPU hogs
# alone do not: 95.3-95.9 %), and CI run 71 read 92.70 % once. The bigger bucket's one extra
# burst at the start falls in the omitted second (-O 1), and a backlogged TCP queue keeps it
# empty after. The goodput checked is the median of the measured seconds (-t 4 -O 1: four),
# so one disturbed second does not decide; each second's rate is bytes*8 over its own span
# (check_rates), so a miscounted second still fails.
shaped() {
	local name=$1 bits=$2 dir j v pct each
	rig_up --rate "$name" --burst "$((bits / 8 / 25))"
	rig_bg server "$bp" serve -p 5201 --idle-timeout 5 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
	rig_wait_port server 5201 5  # port-ok: in the test's own namespaces
	for dir in upload reverse; do
		j=$(rig_exec client "$bp" tcp -c "$RIG_SERVER_IP" -t 4 -O 1 -i 1 --json \
			$([ "$dir" = reverse ] && echo -R) 2>"$tap_tmp/err")
		check_rates "$j" "$name $dir"
		v=$(metric receiver.bitrate "$j")
		each=$(jq -r --arg b "$bits" '[.intervals[].metrics | select(.omitted != 1)
			| ."receiver.bitrate" / ($b | tonumber) * 100 | . * 100 | round / 100] | join(" ")' <<<"$j")
		pct=$(tr ' ' '\n' <<<"$each" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] + 0 }')
		echo "# $name $dir: receiver $v bit/s; seconds at $each % of the shaped rate; warnings: $(jq -c .warnings <<<"$j")"
		awk -v p="$pct" 'BEGIN { exit !(p >= 93 && p <= 99) }'
		ok $? "$name $dir: receiver goodput, median second, $pct % of $name (93-99 %)"
	done
	rig_down
}

shaped 100mbit 100000000
shaped 1gbit 1000000000

# The same over the veth pair, unshaped (a 10 Gbit/s link and more here).
rig_up
rig_bg server "$bp" serve -p 5201 --idle-timeout 5 --logfile "$tap_tmp/serve.log"  # port-ok: in the test's own namespaces
rig_wait_port server 5201 5  # port-ok: in the test's own namespaces
paced veth "$RIG_SERVER_IP" 5201 rig_exec client  # port-ok: in the test's own namespaces

# A host that does not answer (its link is down, so ARP fails): one line, within the
# connect timeout, exit 1.
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
