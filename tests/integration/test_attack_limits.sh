#!/usr/bin/env bash
# Issue 16, item 3: a server bounded by default. On loopback, as an attacker would: the
# issue's `tcp -R -t 86400 -P 128` (from boardperf and from a stock iperf3) is refused by
# the default --max-duration with a line naming it, and admitted only under an explicit
# higher limit (checked by its 129 connections, then stopped by PID); one address cannot
# hold more than --max-per-client tests at once while another address still gets in;
# --max-streams and --max-rate refuse with their values. Every refusal is one log line.
# Usage: test_attack_limits.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

if ! command -v iperf3 >/dev/null || ! command -v ss >/dev/null; then
	echo "1..0 # SKIP iperf3 or ss not installed"
	exit 0
fi

bp_ports 3; port=$BP_PORT  # port .. port + 2 (tap.sh)
hport=$((port + 1))  # a server with higher limits
sport=$((port + 2))  # a server with small stream and rate limits
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT

# established PORT: the server side's established TCP connections on PORT
established() { ss -Htn state established "( sport = :$1 )" | wc -l; }
# wait_established PORT N: until the server holds N connections on PORT (at most 10 s)
wait_established() {
	for _ in $(seq 100); do [ "$(established "$1")" -ge "$2" ] && return 0; sleep 0.1; done
	return 1
}
# start_server PORT LOG ARGS...
start_server() {
	local p=$1 log=$2
	shift 2
	"$bp" serve -B 127.0.0.1 -p "$p" --idle-timeout 3 "$@" 2>"$log" &
	pids+=($!)
	wait_log "$log" listening; ok $? "serve $* listens on $p"
}
# log_lines LOG TEXT: how many lines of LOG contain TEXT
log_lines() { grep -cF -- "$2" "$1"; }

# --- the defaults, as `serve --help` states them ---
help=$(COLUMNS=1000 "$bp" serve --help)  # one line per option
grep -q -- "--max-duration S .*(0: no limit) \[default: 600\]" <<<"$help"
ok $? "serve --help: --max-duration defaults to 600 s, 0 for no limit"
grep -q -- "--max-per-client N .*(0: no limit) \[default: 4\]" <<<"$help"
ok $? "serve --help: --max-per-client defaults to 4, 0 for no limit"
grep -q -- "--max-streams N .*\[default: 128\]" <<<"$help"
ok $? "serve --help: --max-streams defaults to 128"
grep -q -- "--max-rate RATE .*(0: no limit) \[default: 0\]" <<<"$help"
ok $? "serve --help: --max-rate is open by default"
expect_exit 2 "serve --max-per-client -1" "$bp" serve --max-per-client -1
grep -q "max-per-client" <<<"$err"; ok $? "the error names the option: $err"
expect_exit 2 "serve --max-streams 129" "$bp" serve --max-streams 129
grep -q "max-streams" <<<"$err"; ok $? "the error names the option: $err"

# --- the issue's test against the defaults ---
log="$tap_tmp/serve.log"
start_server "$port" "$log"
expect_exit 1 "tcp -R -t 86400 -P 128 against the defaults" \
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$port" -R -t 86400 -P 128
grep -qF "test of 86400 s exceeds the server's --max-duration 600 s" <<<"$err"
ok $? "the client's line names the limit and its value: $err"
[ "$(grep -c . <<<"$err")" -eq 1 ]; ok $? "one line at the client"
expect_exit 1 "stock iperf3 -R -t 86400 -P 128 against the defaults" \
	timeout 20 iperf3 -c 127.0.0.1 -p "$port" -R -t 86400 -P 128
grep -q "iperf3: error - test duration too long" <<<"$err"
ok $? "iperf3 prints its text for the duration refusal: $err"
[ "$(log_lines "$log" "exceeds the server's --max-duration 600 s")" -eq 2 ]
ok $? "the server logged one line for each of the two refusals"
[ "$(established "$port")" -eq 0 ]; ok $? "no connection of the refused tests is left open"

# --- the same under an explicit higher limit: admitted (129 connections), stopped by PID ---
hlog="$tap_tmp/high.log"
start_server "$hport" "$hlog" --max-duration 86400
# Paced (-b 1M a stream) so that holding 128 streams for a moment does not load the machine.
"$bp" tcp -c 127.0.0.1 -p "$hport" -R -t 86400 -P 128 -b 1M -i 0 -q >/dev/null 2>&1 &
long=$!
wait_established "$hport" 129
ok $? "-t 86400 -P 128 admitted under --max-duration 86400: control + 128 streams ($(established "$hport") connections)"
kill -INT "$long"; wait "$long" 2>/dev/null
for _ in $(seq 50); do [ "$(established "$hport")" -eq 0 ] && break; sleep 0.1; done
[ "$(established "$hport")" -eq 0 ]; ok $? "the interrupted test's connections are all closed"
# Interrupted, the client ends the test early; the server logs the span it really ran.
wait_log "$hlog" "127.0.0.1:.*tcp reverse, 128 streams, [0-9.]* s:"
ok $? "the server logged the interrupted test: $(grep -o "tcp reverse, 128 streams, [0-9.]* s" "$hlog")"
! grep -q "max-duration" "$hlog"; ok $? "no duration refusal under the higher limit"

# --- one address holds at most --max-per-client (4) tests; another address still gets in ---
holders=()
for i in 1 2 3 4; do
	"$bp" tcp -c 127.0.0.1 -p "$port" -t 5 -b 100M -i 0 -q --json >"$tap_tmp/h$i.json" 2>&1 &
	holders+=($!)
done
wait_established "$port" 8
ok $? "4 tests from 127.0.0.1 admitted at once (control + stream each: $(established "$port"))"
expect_exit 1 "a 5th test from 127.0.0.1" timeout 20 "$bp" tcp -c 127.0.0.1 -p "$port" -t 1
# The retry time: the earliest of the four -t 5 ends, a second or more away.
grep -qE "server busy for 127\.0\.0\.1: 4 tests from this address running \(--max-per-client 4\); try again in [1-6] s" <<<"$err"
ok $? "the client's line names --max-per-client, its value and when to retry: $err"
expect_exit 1 "a stock iperf3 from 127.0.0.1 over the cap" \
	timeout 20 iperf3 -c 127.0.0.1 -p "$port" -t 1
grep -q "iperf3: error - the server is busy" <<<"$err"; ok $? "iperf3 says the server is busy: $err"
[ "$(log_lines "$log" "(--max-per-client 4)")" -eq 2 ]
ok $? "the server logged one line for each of the two refusals"
# 127.0.0.2 is loopback too, but another address: its test is not counted with the four.
expect_exit 0 "a test from 127.0.0.2 beside the four" \
	timeout 20 iperf3 -B 127.0.0.2 -c 127.0.0.1 -p "$port" -t 1 -b 100M
grep -q "127.0.0.2:.*tcp upload" "$log"; ok $? "the server ran it from 127.0.0.2"
running=0
for p in "${holders[@]}"; do kill -0 "$p" 2>/dev/null && running=$((running + 1)); done
[ "$running" -eq 4 ]; ok $? "the four from 127.0.0.1 were still running meanwhile ($running)"
fails=0
for p in "${holders[@]}"; do wait "$p" || fails=$((fails + 1)); done
[ "$fails" -eq 0 ]; ok $? "the four admitted tests completed ($fails failed)"
expect_exit 0 "127.0.0.1 admitted again once its tests ended" \
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -q

# --- --max-streams and --max-rate, set small ---
slog="$tap_tmp/small.log"
start_server "$sport" "$slog" --max-streams 8 --max-rate 1G
expect_exit 1 "-P 9 over --max-streams 8" timeout 20 "$bp" tcp -c 127.0.0.1 -p "$sport" -P 9 -t 1
grep -qF "9 parallel streams exceed the server's --max-streams 8" <<<"$err"; ok $? "$err"
expect_exit 1 "stock iperf3 -P 9 over --max-streams 8" \
	timeout 20 iperf3 -c 127.0.0.1 -p "$sport" -P 9 -t 1
grep -q "iperf3: error - number of parallel streams too large" <<<"$err"; ok $? "$err"
# -b is per stream: 4 streams at 300M ask 1.2G in total.
expect_exit 1 "-P 4 -b 300M over --max-rate 1G" \
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$sport" -P 4 -b 300M -t 1
grep -qF "rate 1.20 Gbit/s (4 streams at -b 300 Mbit/s) exceeds the server's --max-rate 1.00 Gbit/s" <<<"$err"
ok $? "$err"
expect_exit 1 "stock iperf3 -P 4 -b 300M over --max-rate 1G" \
	timeout 20 iperf3 -c 127.0.0.1 -p "$sport" -P 4 -b 300M -t 1
grep -q "iperf3: error - total required bandwidth is larger than server limit" <<<"$err"
ok $? "$err"
[ "$(log_lines "$slog" "the server's --max-")" -eq 4 ]
ok $? "the server logged one line for each of the four refusals"
expect_exit 0 "-P 8 -b 100M within both" timeout 20 "$bp" tcp -c 127.0.0.1 -p "$sport" -P 8 -b 100M -t 1 -q

tap_done
