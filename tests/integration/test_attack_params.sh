#!/usr/bin/env bash
# Issue 16, item 1, as an attacker plays it: the exact control bytes that once aborted a
# UBSan server ({"tcp":true,"time":10000000000}: 10^10 s times 10^9 overflowed) or gave a
# test that never ended ("omit":-1e18; "omit" with no maximum) go to a running
# `boardperf serve` from a small client of our own (python3, loopback). Each is refused at
# once with iperf3's SERVER_ERROR and the error number a stock iperf3 client prints; a
# boardperf-dialect client gets the line naming key, value and range; the server's log has
# that line; no test starts (no data, the connection closes); and the server keeps serving
# a real test afterwards. Usage: test_attack_params.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT


slog="$tap_tmp/serve.log"
bp_ports 1; port=$BP_PORT  # tap.sh: this test's alone, so one try
"$bp" serve -B 127.0.0.1 -p "$port" 2>"$slog" &
spid=$!
wait_log "$slog" "listening on 127.0.0.1"
pids+=($spid)
kill -0 "$spid" 2>/dev/null
ok $? "server listens on 127.0.0.1:$port"

# send_params JSON: one control connection as iperf3 opens it (cookie, PARAM_EXCHANGE,
# 4-byte length + the JSON as given, byte for byte). Prints what came back:
#   iperf3 STATE CODE ERRNO      (SERVER_ERROR with iperf3's two numbers)
#   json STATE MESSAGE           (SERVER_ERROR with boardperf's {"error": ...})
#   state STATE                  (anything else)
# then "closed AFTER_S BYTES": the server closed the connection after so many seconds,
# having sent so many bytes more (a refused test sends nothing more and closes at once).
send_params() {
	python3 - "$port" "$1" <<'EOF'
import json, socket, struct, sys, time
port, body = int(sys.argv[1]), sys.argv[2].encode()
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"abcdefghijklmnopqrstuvwxyz2345672345\0")

def read(n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf

state = read(1)[0]
if state != 9:
    print("state", state); sys.exit(0)
s.sendall(struct.pack(">I", len(body)) + body)
state = struct.unpack("b", read(1))[0]
if state != -2:
    print("state", state)
else:
    head = read(4)
    first = read(1)
    if first == b"{":
        msg = json.loads(first + read(struct.unpack(">I", head)[0] - 1))
        print("json", state, msg["error"])
    else:
        code = struct.unpack(">I", head)[0]
        err = struct.unpack(">I", first + read(3))[0]
        print("iperf3", state, code, err)
t0, more = time.monotonic(), 0
try:
    while True:
        got = s.recv(65536)
        if not got:
            break
        more += len(got)
except (socket.timeout, ConnectionResetError):
    pass
print("closed %.2f %d" % (time.monotonic() - t0, more))
EOF
}

# expect_refusal JSON WANT_FIRST_LINE LOG_LINE WHAT
expect_refusal() {
	local got first last
	# A refusal's log line goes through the server's rate limiter (a burst of five, then one
	# a second): a second apart, every one of these is logged.
	sleep 1
	got=$(send_params "$1" 2>&1)
	first=$(head -n1 <<<"$got"); last=$(tail -n1 <<<"$got")
	[ "$first" = "$2" ]
	ok $? "$4: refused ($first)"
	[ "$first" = "$2" ] || printf '#   got: %s\n' "${got//$'\n'/ | }"
	[[ $last =~ ^closed\ 0\.[0-9]+\ 0$ ]]
	ok $? "$4: nothing more sent, connection closed at once ($last)"
	wait_log "$slog" "$3"
	ok $? "$4: the server's log names it: $3"
	kill -0 "$spid" 2>/dev/null
	ok $? "$4: the server is still running"
}

# The issue's bytes, byte for byte. SERVER_ERROR is -2; iperf3's numbers: 5 IEDURATION,
# 12 IEOMIT.
expect_refusal '{"tcp":true,"time":10000000000}' "iperf3 -2 5 0" \
	"time 10000000000: expected an integer in 1..86400" "time=10^10 s (signed overflow)"
expect_refusal '{"tcp":true,"omit":-1e18}' "iperf3 -2 12 0" \
	"omit -1e18: expected an integer in 0..3600" "omit=-1e18 (a never-ending test)"
expect_refusal '{"tcp":true,"time":2,"omit":1e9}' "iperf3 -2 12 0" \
	"omit 1000000000.0: expected an integer in 0..3600" "time=2 omit=1e9 (no maximum)"
# The same through boardperf's own keys: the client reads the line itself.
expect_refusal '{"tcp":true,"bp_version":1,"bp_test":"tcp","bp_time_ns":-1}' \
	"json -2 bad parameters: bp_time_ns -1: expected an integer in 1..86400000000000" \
	"bp_time_ns -1: expected" "bp_time_ns=-1"
expect_refusal '{"udp":true,"bp_version":1,"bp_test":"udp","bp_omit_ns":-1000000000000000000}' \
	"json -2 bad parameters: bp_omit_ns -1000000000000000000: expected an integer in 0..3600000000000" \
	"bp_omit_ns -1000000000000000000: expected" "bp_omit_ns=-10^18"
expect_refusal '{"tcp":true,"parallel":1e300}' "iperf3 -2 6 0" \
	"parallel 1e300: expected an integer in 1..128" "parallel=1e300"

# Still serving: a real test after the attack, both dialects' clients.
out=$("$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -J 2>"$tap_tmp/err")
rc=$?
[ "$rc" = 0 ] && jq -e '.metrics | map(select(.name == "receiver.bytes")) | .[0].value > 0' \
	<<<"$out" >/dev/null
ok $? "a real tcp test after the attack measures (exit $rc)"
[ "$rc" = 0 ] || printf '#   %s\n' "$(cat "$tap_tmp/err")"
if command -v iperf3 >/dev/null; then
	timeout 20 iperf3 -c 127.0.0.1 -p "$port" -t 1 -J >"$tap_tmp/i3.json" 2>&1
	jq -e '.end.sum_received.bytes > 0' "$tap_tmp/i3.json" >/dev/null
	ok $? "a stock iperf3 client after the attack measures"
	# A stock client's own -O 600 (its maximum) is still accepted.
	timeout 20 iperf3 -c 127.0.0.1 -p "$port" -t 1 -O 1 -J >"$tap_tmp/i3o.json" 2>&1
	jq -e '.end.sum_received.bytes > 0' "$tap_tmp/i3o.json" >/dev/null
	ok $? "a stock iperf3 client with -O 1 is accepted"
else
	skip "a stock iperf3 client after the attack measures" "no iperf3"
	skip "a stock iperf3 client with -O 1 is accepted" "no iperf3"
fi
tap_done
