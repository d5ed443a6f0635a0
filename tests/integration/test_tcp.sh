#!/usr/bin/env bash
# boardperf serve + boardperf tcp on loopback: every direction, parallel streams, interval
# sums, many clients at once, a killed client, the server's limits, errors, the daemon.
# Timed sections (tap.sh, "Parts"): the upload's rates (above 100 Mbit/s; the two ends'
# counts within 5 %, a control message apart), --max-rate (an upload above it stopped, the
# server's sending paced to ±20 %) and a closed port's refusal within 3 s. The upload runs in
# both parts (2 s): its counts, intervals and CPU figures are checked in the plain one, whose
# runs are paced (-b): they check forms and counts, and leave the CPU to the tests beside them.
# Usage: [BP_PART=all|plain|timed] test_tcp.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 5; port=$BP_PORT  # port .. port + 4 (tap.sh)
pids=()
cleanup_servers() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup_servers; rm -rf "$tap_tmp"' EXIT

# start_server PORT ARGS...: a server in the background, ready when it logs "listening".
start_server() {
	local p=$1 log="$tap_tmp/serve-$1.log"
	shift
	"$bp" serve -p "$p" "$@" 2>"$log" &
	pids+=($!)
	wait_log "$log" listening
}
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# Sixteen clients at once from 127.0.0.1 below: more than the default --max-per-client 4.
start_server "$port" --idle-timeout 2 --max-per-client 16; ok $? "server listens on $port"

# The upload feeds both parts: checked (exit status, rates over spans) in the plain one,
# run silently for its rates when the timed part runs alone.
if plain; then
	# Paced: its counts, intervals and CPU figures, not its rates (the timed part's own run).
	expect_exit 0 "upload" "$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -b 2G --json
	up=$out
else
	up=$("$bp" tcp -c 127.0.0.1 -p "$port" -t 2 --json 2>/dev/null)
fi
s=$(metric sender.bytes "$up"); r=$(metric receiver.bytes "$up")
if timed; then
	# Both ends count what reached the receiving TCP, each over its own span (the receiver's
	# ends a control message later, later still on a busy machine): close, not equal.
	awk -v s="$s" -v r="$r" 'BEGIN { d = r - s; if (d < 0) d = -d; exit !(s > 0 && d <= s * 0.05) }'
	ok $? "received and sent within 5 % of each other (sent $s, received $r)"
	gt "$(metric receiver.bitrate "$up")" 1e8; ok $? "loopback reads above 100 Mbit/s"
fi

if plain; then
	gt "$r" 0 && gt "$s" 0; ok $? "both ends counted bytes (sent $s, received $r)"
	n=$(jq '[.intervals[] | select(.metrics.omitted == null)] | length' <<<"$up")
	[ "$n" -ge 2 ] && [ "$n" -le 3 ]; ok $? "about one interval per second ($n)"
	sum=$(jq '[.intervals[] | select(.metrics.omitted == null) | .metrics["sender.bytes"]] | add' <<<"$up")
	awk -v a="$sum" -v b="$s" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.005) }'
	ok $? "sender intervals sum to the sender total within 0.5 % ($sum vs $s)"
	sum=$(jq '[.intervals[] | select(.metrics.omitted == null) | .metrics["receiver.bytes"] // 0] | add' <<<"$up")
	awk -v a="$sum" -v b="$r" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.005) }'
	ok $? "receiver intervals sum to the receiver total within 0.5 % ($sum vs $r)"
	jq -e '.cpu.local.total_percent > 0 and .cpu.remote.total_percent > 0' <<<"$up" >/dev/null
	ok $? "CPU use of both ends reported"
	jq -e '[.warnings[] | select(.code == "loopback") | .message][0]
		| test("^server 127\\.0\\.0\\.1:[0-9]+ is on this machine: ")' <<<"$up" >/dev/null
	ok $? "a server on 127.0.0.1 warned as this machine's (loopback)"

	# The runs below check forms and counts, not rates: paced (-b, per stream) so that they
	# leave the CPU to the tests beside them (unpaced, tcp took ~30 CPU-s in ASan).
	expect_exit 0 "reverse" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G -R --json
	gt "$(metric receiver.bytes "$out")" 0 && gt "$(metric sender.bytes "$out")" 0
	ok $? "reverse: server sent, client received"
	expect_exit 0 "bidir" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G --bidir --json
	gt "$(metric up.receiver.bytes "$out")" 0 && gt "$(metric down.receiver.bytes "$out")" 0
	ok $? "bidir: both directions moved data"
	expect_exit 0 "4 parallel streams" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 250M -P 4 --json
	gt "$(metric receiver.bytes "$out")" 0; ok $? "-P 4 moved data"
	expect_exit 0 "IPv6" "$bp" tcp -c ::1 -p "$port" -t 1 -b 1G -6 --json
	expect_exit 0 "omit" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G -O 1 --json
	jq -e '.intervals[0].metrics.omitted == 1 and (.intervals[-1].metrics.omitted == null)' \
		<<<"$out" >/dev/null; ok $? "-O marks the first interval omitted"
	expect_exit 0 "text output" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G
	grep -q "receiver.bitrate" <<<"$out"; ok $? "text shows the receiver bitrate"

	# Sixteen clients at the same moment: none refused, none blocked.
	for i in $(seq 16); do
		"$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -b 100M -i 0 -q --json >"$tap_tmp/c$i.json" 2>&1 &
		cpids[$i]=$!
	done
	fails=0
	for i in $(seq 16); do wait "${cpids[$i]}" || fails=$((fails + 1)); done
	[ "$fails" -eq 0 ]; ok $? "16 clients at once all succeed ($fails failed)"
	for i in $(seq 16); do check_rates "$(cat "$tap_tmp/c$i.json")" "client $i of 16"; done

	# A client killed mid-test (once its data flows): the server drops it and serves the next one.
	"$bp" tcp -c 127.0.0.1 -p "$port" -t 30 -b 100M -q >/dev/null 2>&1 &
	victim=$!
	wait_flowing "$port"
	kill -9 "$victim"; wait "$victim" 2>/dev/null
	expect_exit 0 "next client after a SIGKILLed one" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G -q
	wait_log "$tap_tmp/serve-$port.log" "127.0.0.1.*\(abandoned\|dropped\)"
	ok $? "server logged the killed client's test as abandoned"

	# Limits refuse with a message, and the server keeps serving.
	lport=$((port + 1))
	start_server "$lport" --max-clients 1 --max-duration 3 --idle-timeout 2
	"$bp" tcp -c 127.0.0.1 -p "$lport" -t 3 -b 1G -q >/dev/null 2>&1 &
	holder=$!
	wait_flowing "$lport"  # admitted and under way
	expect_exit 1 "second client over --max-clients" "$bp" tcp -c 127.0.0.1 -p "$lport" -t 1
	grep -q "server busy" <<<"$err"; ok $? "refusal says the server is busy: $err"
	wait "$holder"; ok $? "the admitted client finished"
	expect_exit 1 "test over --max-duration" "$bp" tcp -c 127.0.0.1 -p "$lport" -t 5
	grep -q "max-duration" <<<"$err"; ok $? "refusal names --max-duration"
	expect_exit 0 "server still serves after refusals" "$bp" tcp -c 127.0.0.1 -p "$lport" -t 1 -b 1G -q
fi

if timed; then
	# --max-rate: a client's upload above it is stopped with the reason (an upload that a busy
	# machine kept below 200 Mbit/s would not be); what the server sends is paced to it.
	rport=$((port + 4))
	start_server "$rport" --max-rate 200M --idle-timeout 2
	expect_exit 1 "upload above --max-rate" "$bp" tcp -c 127.0.0.1 -p "$rport" -t 3
	grep -q "max-rate 200 Mbit/s: stopped" <<<"$err"; ok $? "stopped with the reason: $err"
	expect_exit 0 "reverse under --max-rate" "$bp" tcp -c 127.0.0.1 -p "$rport" -t 2 -R --json
	v=$(metric receiver.bitrate "$out")
	awk -v v="$v" 'BEGIN { exit !(v > 160e6 && v < 240e6) }'; ok $? "server paced its sending to 200 Mbit/s ±20 % ($v)"

	# A closed port: refused in one line, within seconds.
	closed=$((port + 2))
	t0=$(date +%s)
	expect_exit 1 "closed port" "$bp" tcp -c 127.0.0.1 -p "$closed" -t 1
	[ $(( $(date +%s) - t0 )) -le 3 ] && [ "$(wc -l <<<"$err")" -eq 1 ] \
		&& grep -q "connect 127.0.0.1:$closed: Connection refused" <<<"$err"
	ok $? "closed port: one line within seconds: $err"
fi

if plain; then
	# The socket options reach the sockets, and a bad one is named.
	expect_exit 0 "-w -M -N -C reno -Z" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G -w 256K -M 1200 -N \
		-C reno -Z --json
	jq -e '.params.window == 262144 and .params["set-mss"] == 1200 and .params.congestion == "reno"
		and (.params.send_mode == "send" or .params.send_mode == "msg_zerocopy")' <<<"$out" >/dev/null
	ok $? "options recorded with the mode that ran"
	expect_exit 1 "unknown congestion control" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -C nosuchcc
	grep -q "nosuchcc.*available" <<<"$err"; ok $? "bad -C lists what is available: $err"

	# A peer of a newer protocol version gets a clear refusal, not a hang; garbage is dropped
	# and the server goes on serving.
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	raw_send 3 'abcdefghijklmnopqrstuvwxyz234567abcd\0'
	st=$(timeout 3 head -c1 <&3 | od -An -tu1 | tr -d ' ')
	[ "$st" = 9 ]; ok $? "raw client: PARAM_EXCHANGE after the cookie (got '$st')"
	msg='{"tcp":true,"time":1,"bp_version":99}'
	raw_send 3 "\\x00\\x00\\x00\\x$(printf %02x ${#msg})%s" "$msg"
	reply=$(timeout 3 cat <&3 | od -An -c | tr -d '\n')
	grep -q "updatetheolderside" <<<"$(tr -d ' ' <<<"$reply")"
	ok $? "newer protocol version refused with a reason"
	exec 3>&-
	exec 3<>"/dev/tcp/127.0.0.1/$port"
	raw_send 3 'GET / HTTP/1.0\r\n\r\n%.0s' 1 2 3
	timeout 3 cat <&3 >/dev/null 2>&1
	exec 3>&-
	expect_exit 0 "server serves after garbage" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G -q

	# Errors: bad flags (a closed port: timed, above).
	expect_exit 2 "no -c" "$bp" tcp -t 1
	expect_exit 2 "-R with --bidir" "$bp" tcp -c 127.0.0.1 -R --bidir
	# port-ok: out of range, refused before any connect
	expect_exit 2 "bad port" "$bp" tcp -c 127.0.0.1 -p 70000
	expect_exit 2 "serve: bad max-rate" "$bp" serve --max-rate fast

	# The daemon: writes its pidfile, serves, removes the pidfile when stopped.
	dport=$((port + 3))
	pidfile="$tap_tmp/serve.pid"
	expect_exit 0 "serve -D" "$bp" serve -D -p "$dport" --pidfile "$pidfile"
	dpid=$(cat "$pidfile" 2>/dev/null)
	[ -n "$dpid" ] && kill -0 "$dpid" 2>/dev/null; ok $? "daemon is running as PID $dpid"
	expect_exit 0 "test against the daemon" "$bp" tcp -c 127.0.0.1 -p "$dport" -t 1 -b 1G -q
	kill "$dpid" 2>/dev/null
	for _ in $(seq 100); do [ -e "$pidfile" ] || break; sleep 0.1; done
	[ ! -e "$pidfile" ]; ok $? "pidfile removed when the daemon stops"
	expect_exit 1 "serve -D on a port in use" "$bp" serve -D -p "$port"
	grep -qi "in use" <<<"$err"; ok $? "port in use is reported by the parent: $err"
fi

tap_done
