#!/usr/bin/env bash
# Issue 31, item 8, "Garbage in range": figures each inside its own domain but impossible
# together, from either end (attack_figures.py, python3, loopback only; ~10 s, side by side:
# nothing here is timed, each run is -t 1 at 1-50 Mbit/s).
#  - a fake server answers real clients with lost > sent (udp: errors 2^53 of ~100
#    datagrams, once 1.05e16 % loss), 8 PiB received in 1e-300 s (tcp: once "inf"), and
#    streams as arrays (tcp: once read as 0 B, exit 0). The client flags the first
#    (peer-figures-inconsistent, the server's lost and the loss left out, exit 0) and refuses
#    the others (one line naming the stream, exit 1); it never prints inf or a loss > 100 %.
#  - a forging client sends a real `boardperf serve` 56 datagrams, then seq 0xffffffff and
#    timestamps years off (once 4.3e9 lost of 57 and 36,523,122 s of jitter): the server's
#    results keep lost and jitter bounded and say peer-figures-inconsistent, as its log does;
#    so do they when 200 honest datagrams come from a client whose results claim 10 sent.
#  - real udp (-P 2, -R) and tcp clients of the same server are not flagged.
# Usage: test_attack_figures.sh BOARDPERF
set -u
bp=$1
here=$(dirname "$0")
. "$here/tap.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT

bp_ports 2; fport=$BP_PORT; sport=$((BP_PORT + 1))

# The fake server: one client per kind, in this order.
flog="$tap_tmp/fake.log"
python3 "$here/attack_figures.py" server "$fport" lost-gt-sent tiny-span streams-array \
	>"$flog" 2>&1 &
pids+=($!)
wait_log "$flog" "listening"
ok $? "the fake server listens on 127.0.0.1:$fport"

# run NAME ARGS...: the client against the fake server; stdout, stderr, exit status.
run() {
	local name=$1; shift
	timeout 30 "$bp" "$@" -c 127.0.0.1 -p "$fport" -t 1 --no-save \
		>"$tap_tmp/$name.json" 2>"$tap_tmp/$name.err"
	echo $? >"$tap_tmp/$name.rc"
}

run lost udp -b 1M -l 1000 -J
rc=$(cat "$tap_tmp/lost.rc")
[ "$rc" = 0 ] && jq -e '[.warnings[] | select(.code == "peer-figures-inconsistent")]
	| length >= 1' "$tap_tmp/lost.json" >/dev/null
ok $? "lost > sent: flagged peer-figures-inconsistent, exit 0 (exit $rc)"
jq -e '[(.metrics[] | {key: .name, value}), (.. | objects | to_entries[])
	| select(.key | test("loss.percent$|loss_percent$")) | select(.value > 100)]
	| length == 0' "$tap_tmp/lost.json" >/dev/null
ok $? "lost > sent: no loss above 100 % printed (totals, intervals, streams)"
jq -e '[.metrics[] | select(.name == "lost.packets" or .name == "loss.percent")]
	| length == 0' "$tap_tmp/lost.json" >/dev/null
ok $? "lost > sent: the server's lost and the loss are left out"
jq -r '.warnings[] | select(.code == "peer-figures-inconsistent") | "#   " + .message' \
	"$tap_tmp/lost.json" 2>/dev/null

# refused CASE PATTERN WHAT: the client's run of CASE exited 1 with PATTERN on stderr.
refused() {
	local rc
	rc=$(cat "$tap_tmp/$1.rc")
	[ "$rc" = 1 ] && grep -q "$2" "$tap_tmp/$1.err"
	ok $? "$3 (exit $rc)"
	sed 's/^/#   /' "$tap_tmp/$1.err" | head -n 2
}
run span tcp -b 10M
refused span 'streams\[0\]: 9007199254740992 bytes, 0 datagrams in 1e-300 s' \
	"8 PiB in 1e-300 s: refused, exit 1, the line names the stream"
! grep -qiw 'inf' "$tap_tmp/span.json"
ok $? "8 PiB in 1e-300 s: no inf printed (text)"

run array tcp -b 10M
refused array 'streams\[0\]: expected an object' \
	"streams as arrays: refused, exit 1, streams[0]: expected an object"
! grep -qs '^[a-z-]*: ' "$flog"
ok $? "the fake server spoke to every client to the end"
grep -s ': ' "$flog" | sed 's/^/#   /'

# The forging client against a real server.
slog="$tap_tmp/serve.log"
"$bp" serve -B 127.0.0.1 -p "$sport" 2>"$slog" &
pids+=($!)
wait_log "$slog" "listening on 127.0.0.1"
ok $? "server listens on 127.0.0.1:$sport"
timeout 30 python3 "$here/attack_figures.py" client "$sport" >"$tap_tmp/forged.json" \
	2>"$tap_tmp/forged.err"
jq -e '.streams[0] | .errors <= 60 and .errors >= 0 and .jitter < 10' \
	"$tap_tmp/forged.json" >/dev/null
ok $? "seq 0xffffffff and forged stamps: the server's lost and jitter stay bounded"
printf '#   %s\n' "$(jq -c '.streams[0] | {packets, errors, jitter, bp_implausible}' \
	"$tap_tmp/forged.json" 2>/dev/null || cat "$tap_tmp/forged.err")"
jq -e '[.bp_warnings[]? | select(.code == "peer-figures-inconsistent")] | length == 1' \
	"$tap_tmp/forged.json" >/dev/null
ok $? "the server's results say peer-figures-inconsistent"
wait_log "$slog" "peer-figures-inconsistent: stream"
ok $? "the server's log says peer-figures-inconsistent"
grep -s "peer-figures-inconsistent" "$slog" | sed 's/^/#   /'
# 200 honest datagrams, the client's results claiming 10 sent: the server flags that too.
timeout 30 python3 "$here/attack_figures.py" client "$sport" undercount \
	>"$tap_tmp/under.json" 2>"$tap_tmp/under.err"
jq -e '[.bp_warnings[]? | select(.code == "peer-figures-inconsistent")
	| select(.message | test("the client says it sent 10$"))] | length == 1' \
	"$tap_tmp/under.json" >/dev/null
ok $? "200 datagrams, 10 claimed sent: the server's results say peer-figures-inconsistent"
wait_log "$slog" "the client says it sent 10"
ok $? "200 datagrams, 10 claimed sent: the server's log says so"

# Real clients of the same server: honest figures are never flagged.
for t in "udp -b 10M -P 2" "tcp -b 50M" "udp -b 10M -R"; do
	# shellcheck disable=SC2086  # the words of $t are the command line
	out=$(timeout 30 "$bp" $t -c 127.0.0.1 -p "$sport" -t 1 -J --no-save 2>"$tap_tmp/real.err")
	rc=$?
	[ "$rc" = 0 ] && jq -e '[.warnings[] | select(.code == "peer-figures-inconsistent")]
		| length == 0' <<<"$out" >/dev/null
	ok $? "a real $t: measured, not flagged (exit $rc)"
done
tap_done
