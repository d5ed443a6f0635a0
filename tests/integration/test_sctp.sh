#!/usr/bin/env bash
# --sctp (tcp, rr, crr, serve). On a kernel without SCTP (these build machines'): the one
# line and exit 1, before anything is sent; serve refuses a stock iperf3 --sctp client with
# the same line in its log. On a kernel with SCTP: both ways on loopback, each side's count
# against the other's. Bad input everywhere. The full SCTP checks (stock iperf3 both ways,
# rr, crr) run in the x86-64 VM with Debian's kernel (tools/vm/run.sh, make test-vm).
# Usage: test_sctp.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 1; port=$BP_PORT  # tap.sh
"$bp" serve -p "$port" --idle-timeout 3 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
wait_log "$tap_tmp/serve.log" listening
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
missing="SCTP is not available in this kernel (module sctp not loaded or not built)"

# Bad input: exit 2, one line naming the option, whatever the kernel has.
expect_exit 2 "--nstreams without --sctp" "$bp" tcp -c 127.0.0.1 -p "$port" --nstreams 4
grep -q -- "--nstreams 4 needs --sctp" <<<"$err"
ok $? "--nstreams without --sctp: one line ($err)"
expect_exit 2 "--nstreams 70000" "$bp" tcp --sctp -c 127.0.0.1 --nstreams 70000
expect_exit 2 "tcp --sctp -C cubic" "$bp" tcp --sctp -C cubic -c 127.0.0.1
grep -q -- "-C is TCP's: not with --sctp" <<<"$err"; ok $? "-C with --sctp: one line ($err)"
expect_exit 2 "tcp --sctp -Z" "$bp" tcp --sctp -Z -c 127.0.0.1
expect_exit 2 "rr --sctp --udp" "$bp" rr --sctp --udp -c 127.0.0.1
expect_exit 2 "udp has no --sctp" "$bp" udp --sctp -c 127.0.0.1
expect_exit 2 "crr has no --nstreams" "$bp" crr --sctp --nstreams 2 -c 127.0.0.1

if ! python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132).close()' 2>/dev/null; then
	# This kernel has no SCTP: one line, exit 1, and nothing reaches the server.
	for cmd in "tcp --sctp" "tcp --sctp -R" "rr --sctp" "crr --sctp"; do
		# shellcheck disable=SC2086
		expect_exit 1 "$cmd without SCTP in the kernel" "$bp" $cmd -c 127.0.0.1 -p "$port" -t 1
		[ "$(wc -l <<<"$err")" = 1 ] && grep -qF "$missing" <<<"$err"
		ok $? "$cmd: the one line ($err)"
	done
	expect_exit 1 "tcp --sctp --json without SCTP" "$bp" tcp --sctp -c 127.0.0.1 -p "$port" -t 1 --json
	jq -e --arg m "$missing" '.error.message | contains($m)' <<<"$out" >/dev/null 2>&1
	ok $? "the JSON result carries the error"
	! grep -q "127.0.0.1" "$tap_tmp/serve.log"; ok $? "no client reached the server"
	# A stock iperf3 --sctp client: boardperf serve refuses the test with the line.
	if command -v iperf3 >/dev/null; then
		timeout 20 iperf3 --sctp -c 127.0.0.1 -p "$port" -t 1 >"$tap_tmp/iperf3.out" 2>&1
		[ $? -ne 0 ]; ok $? "stock iperf3 --sctp is refused ($(tail -1 "$tap_tmp/iperf3.out"))"
		wait_log "$tap_tmp/serve.log" "$missing"; ok $? "serve's log says why: $missing"
	else
		skip "stock iperf3 --sctp is refused" "no iperf3"
		skip "serve's log says why" "no iperf3"
	fi
	# the server still serves TCP afterwards
	expect_exit 0 "tcp after the refusal" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.5 --json
else
	for cmd in "tcp --sctp" "tcp --sctp -R"; do
		skip "$cmd without SCTP in the kernel" "this kernel has SCTP"
	done
	# shellcheck disable=SC2043
	for dir in "" "-R"; do
		# shellcheck disable=SC2086
		expect_exit 0 "tcp --sctp $dir" "$bp" tcp --sctp $dir -c 127.0.0.1 -p "$port" -t 1 --json
		s=$(metric sender.bytes "$out") r=$(metric receiver.bytes "$out")
		awk -v s="$s" -v r="$r" 'BEGIN { exit !(s > 0 && r / s > 0.9 && r / s < 1.1) }'
		ok $? "tcp --sctp $dir: received $r within 10 % of sent $s"
	done
	grep -q "listening for SCTP" "$tap_tmp/serve.log"; ok $? "serve opened its SCTP listener"
fi
tap_done
