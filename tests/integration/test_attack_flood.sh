#!/usr/bin/env bash
# The attacker of issue 16, items 5 and 7, on loopback: connections that never send a cookie
# (attack_flood.py), held and reopened as the server sheds them, with slow clients beside
# them, while real tests (tcp, udp, rr, a stock iperf3) must pass with byte counts that agree.
#  A. `ulimit -n 256` and bounds above it (--max-pending 1000): the flood meets the fd limit;
#     the server must not spin (CPU from /proc/PID/stat over the flood), must log within the
#     limiter's bound over all peers (20 lines a second, docs/server.md "What the server
#     logs") and sum what it left out, and must keep descriptors for tests and its responder.
#  B. The default fd limit and bounds: 1,000 junk connections and slowloris (a cookie, then the
#     parameters' length, a byte a second) dropped at the idle timeout, measured; afterwards
#     the server's descriptors (/proc/PID/fd) and VmRSS are back to their start.
#  C. Connections that did send a cookie, then nothing: sessions in set-up, bounded per
#     address as the connections before it are (C1: 300 hold 32, tests pass); with bounds
#     above `ulimit -n 256` (C2) the fd limit sheds the oldest of them, without a spin.
# Usage: test_attack_flood.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
attacker="$here/attack_flood.py"

if ! command -v python3 >/dev/null || ! command -v jq >/dev/null; then
	echo "1..0 # SKIP python3 or jq not installed"
	exit 0
fi
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT
bp_ports 5; port=$BP_PORT  # port .. port + 4 (tap.sh)
tck=$(getconf CLK_TCK)
idle=3

# serve NAME FDLIMIT ARGS...: a server with that fd limit; $spid, $slog; ready when listening.
serve() {
	local name=$1 lim=$2
	shift 2
	slog=$tap_tmp/serve-$name.log
	# Under ASan, freed memory sits in its quarantine (resident): keep that small here, so
	# VmRSS after the flood says what the server holds (ignored by a build without ASan).
	(ulimit -n "$lim" && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 \
		exec "$bp" serve --idle-timeout "$idle" "$@" 2>"$slog") &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 50); do grep -q "listening on" "$slog" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
stop_server() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
nfds() { ls "/proc/$1/fd" | wc -l; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
lines() { wc -l <"$slog"; }

# attack NAME MODE COUNT SECONDS [SOURCE]: the attacker in the background ($apid), back
# once it has COUNT connections up; its JSON summary lands in $tap_tmp/NAME.json.
attack() {
	local name=$1
	rm -f "$tap_tmp/$name.ready"
	python3 "$attacker" "$2" 127.0.0.1 "$sport" "$3" "$4" "$tap_tmp/$name.ready" ${5:+"$5"} \
		>"$tap_tmp/$name.json" &
	apid=$!
	pids+=("$apid")
	for _ in $(seq 100); do [ -s "$tap_tmp/$name.ready" ] && return 0; sleep 0.1; done
	return 1
}

# cpu_over PID SECONDS: the percentage of one core PID used over the next SECONDS.
cpu_over() {
	local t0 t1 w0 w1
	t0=$(cpu_ticks "$1"); w0=$(date +%s%N)
	sleep "$2"
	t1=$(cpu_ticks "$1"); w1=$(date +%s%N)
	awk -v d=$((t1 - t0)) -v hz="$tck" -v ns=$((w1 - w0)) 'BEGIN { printf "%.1f", 100 * d / hz / (ns / 1e9) }'
}

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }

# real_tests WHAT: tcp, udp, rr and a stock iperf3 against the server, each with byte counts
# that hold: tcp's two ends within 1 % of each other (what was in flight at the end), udp's
# datagrams all accounted for, rr's transactions answered, iperf3's sent = received.
real_tests() {
	local what=$1 out s r
	expect_exit 0 "$what: tcp" "$bp" tcp -c 127.0.0.1 -p "$sport" -t 2 --json
	s=$(metric sender.bytes "$out"); r=$(metric receiver.bytes "$out")
	awk -v s="${s:-0}" -v r="${r:-0}" 'BEGIN { d = s - r; if (d < 0) d = -d; exit !(s > 0 && r > 0 && d <= 0.01 * s) }'
	ok $? "$what: tcp sent $s B, the server received $r B"
	expect_exit 0 "$what: udp" "$bp" udp -c 127.0.0.1 -p "$sport" -t 2 -b 50M -l 1000 --json
	# A client that lost the CPU (ASan lanes beside the ARM builds) sends less, and says so.
	jq -e '([.warnings[]?.code] | index("tester-below-rate")) as $behind |
		[.metrics[] | {(.name): .value}] | add |
		(.["sender.packets"] > 5000 or ($behind != null and .["sender.packets"] > 0)) and
		.["receiver.packets"] + .["lost.packets"] == .["sender.packets"] and
		.["receiver.bytes"] == 1000 * .["receiver.packets"]' <<<"$out" >/dev/null
	ok $? "$what: udp sent $(metric sender.packets "$out") datagrams, received $(metric receiver.packets "$out"), lost $(metric lost.packets "$out")"
	jq -r '.warnings[]? | "#   udp warning: \(.code): \(.message)"' <<<"$out" 2>/dev/null
	# --timeout 10: a 1 s answer is no failure here (CI run 69 under ASan, the machine 86 %
	# busy: one answer took longer and ended the test); the flood's effect is the count
	expect_exit 0 "$what: rr" "$bp" rr -c 127.0.0.1 -p "$sport" -t 2 --timeout 10 --json
	jq -e '[.metrics[] | {(.name): .value}] | add | .transactions > 1000 and .failures == 0 and
		.["server.transactions"] - .transactions <= 1 and .["server.transactions"] >= .transactions' \
		<<<"$out" >/dev/null
	ok $? "$what: rr $(metric transactions "$out") transactions, the server answered $(metric server.transactions "$out")"
	if command -v iperf3 >/dev/null; then
		out=$(timeout 20 iperf3 -c 127.0.0.1 -p "$sport" -t 2 -J 2>&1)
		jq -e '.end.sum_sent.bytes as $s | .end.sum_received.bytes as $r | $s > 0 and
			$r <= $s and $s - $r <= 0.01 * $s' <<<"$out" >/dev/null
		ok $? "$what: stock iperf3 sent $(jq .end.sum_sent.bytes <<<"$out" 2>/dev/null) B, the server received $(jq .end.sum_received.bytes <<<"$out" 2>/dev/null) B (within 1 %)"
		jq -e .end.sum_sent <<<"$out" >/dev/null 2>&1 || printf '#   iperf3: %s\n' "$(head -c 300 <<<"$out")"
	else
		skip "$what: stock iperf3" "needs iperf3"
	fi
}

# warm_up: a test of each kind, unchecked, so that the worker pool and the heap have their
# steady size before the descriptors and VmRSS are taken as the start.
warm_up() {
	"$bp" tcp -c 127.0.0.1 -p "$sport" -t 1 -q >/dev/null 2>&1
	"$bp" udp -c 127.0.0.1 -p "$sport" -t 1 -b 10M -q >/dev/null 2>&1
	"$bp" rr -c 127.0.0.1 -p "$sport" -t 1 -q >/dev/null 2>&1
}

# http_answers PORT: a GET /1k from python gets its 1,024 bytes.
http_answers() {
	python3 -c '
import sys, urllib.request
b = urllib.request.urlopen("http://127.0.0.1:%s/1k" % sys.argv[1], timeout=3).read()
sys.exit(len(b) != 1024)' "$1" 2>/dev/null
}

# --- A: the fd limit reached by connections that never send a cookie ---------------------
sport=$port hport=$((port + 1))
serve A 256 -p "$sport" --http "$hport" --max-pending 1000 --max-pending-per-addr 1000
ok $? "A: server listens with ulimit -n 256"
warm_up
fd0=$(nfds "$spid")
attack A junk 300 18; ok $? "A: 300 junk connections up"
l0=$(lines); w0=$(date +%s%N)
cpu=$(cpu_over "$spid" 3)
fds=$(nfds "$spid")
awk -v c="$cpu" 'BEGIN { exit !(c < 30) }'; ok $? "A: server CPU during the flood $cpu % of a core (< 30 %)"
[ "$fds" -lt 256 ]; ok $? "A: server holds $fds descriptors of 256 during the flood"
http_answers "$hport"; ok $? "A: the HTTP responder answers during the flood"
real_tests "A (flood at the fd limit)"
l1=$(lines); w1=$(date +%s%N)
rate=$(awk -v n=$((l1 - l0)) -v ns=$((w1 - w0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')
awk -v r="$rate" 'BEGIN { exit !(r <= 20) }'
ok $? "A: log $((l1 - l0)) lines in $(( (w1 - w0) / 1000000 )) ms of flood ($rate/s, at most 20/s)"
wait "$apid" 2>/dev/null
wait_log "$slog" "lines from peers suppressed"; ok $? "A: a line sums the lines left out"
jq -c . "$tap_tmp/A.json" 2>/dev/null | sed 's/^/# attacker: /'
sleep 0.5
fd1=$(nfds "$spid")
[ "$fd1" -eq "$fd0" ]; ok $? "A: descriptors back to $fd0 after the flood ($fd1)"
grep -i "warning\|suppressed" "$slog" | head -4 | sed 's/^/#   /'
stop_server

# --- B: default fd limit and bounds, 1,000 junk connections and slowloris ----------------
sport=$((port + 2))
serve B "$(ulimit -n)" -p "$sport"; ok $? "B: server listens (ulimit -n $(ulimit -n), default bounds)"
warm_up
fd0=$(nfds "$spid"); rss0=$(rss_kb "$spid")
attack slow slowparams 4 "$((idle + 4))"
ok $? "B: 4 slow clients up (a cookie, then a byte a second)"
# slowloris on the cookie itself, from another loopback address (its own per-address bound)
attack loris slowloris 4 "$((idle + 4))" 127.0.0.2; ok $? "B: 4 slowloris clients on the cookie"
attack B junk 1000 20; ok $? "B: 1000 junk connections up"
l0=$(lines); w0=$(date +%s%N)
cpu=$(cpu_over "$spid" 3)
fds=$(nfds "$spid")
awk -v c="$cpu" 'BEGIN { exit !(c < 30) }'; ok $? "B: server CPU during the flood $cpu % of a core (< 30 %)"
[ "$fds" -le $((fd0 + 32 + 4 + 4 + 8)) ]
ok $? "B: server holds $fds descriptors during the flood (start $fd0; 32 per address pending)"
real_tests "B (1000 junk connections held)"
l1=$(lines); w1=$(date +%s%N)
rate=$(awk -v n=$((l1 - l0)) -v ns=$((w1 - w0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')
awk -v r="$rate" 'BEGIN { exit !(r <= 20) }'
ok $? "B: log $((l1 - l0)) lines in $(( (w1 - w0) / 1000000 )) ms of flood ($rate/s, at most 20/s)"
wait "$apid" 2>/dev/null
for s in slow loris; do
	jq -e --argjson t "$idle" '.drop_after_s | length == 4 and all(. >= $t - 0.1 and . <= $t + 1.5)' \
		"$tap_tmp/$s.json" >/dev/null
	ok $? "B: $s clients dropped at the idle timeout ($idle s) despite a byte a second: $(jq -c .drop_after_s "$tap_tmp/$s.json") s"
done
jq -c . "$tap_tmp/B.json" 2>/dev/null | sed 's/^/# attacker: /'
for _ in $(seq 20); do [ "$(nfds "$spid")" -eq "$fd0" ] && break; sleep 0.2; done
fd1=$(nfds "$spid"); rss1=$(rss_kb "$spid")
[ "$fd1" -eq "$fd0" ]; ok $? "B: descriptors back to $fd0 after the flood ($fd1)"
# ASan's allocator keeps caches of its own (resident): a wider margin there (the symbol,
# not ldd: clang links its ASan runtime into the binary)
margin=2048; grep -qa __asan_init "$bp" && margin=8192
[ "$rss1" -le $((rss0 + margin)) ]; ok $? "B: VmRSS $rss1 kB after the flood, $rss0 kB before (within $margin kB)"
stop_server

# --- C: connections that sent a cookie and then nothing (sessions in set-up) -------------
# C1, the default bounds: a session in set-up counts against --max-pending-per-addr as a
# connection before its cookie does, so 300 from one address hold no more than 32 of the
# server's descriptors, and real tests pass meanwhile.
sport=$((port + 3))
serve C1 256 -p "$sport"; ok $? "C1: server listens with ulimit -n 256"
attack C1 cookie 300 "$((idle + 6))" 127.0.0.2; ok $? "C1: 300 connections from 127.0.0.2 that sent a cookie up"
fds=$(nfds "$spid")
[ "$fds" -lt 100 ]; ok $? "C1: the server holds $fds descriptors (32 sessions in set-up and its own, < 100)"
grep -q "in set-up with .* shed (bound)" "$slog"; ok $? "C1: the server says it sheds sessions in set-up"
real_tests "C1 (a flood of cookies)"
wait "$apid" 2>/dev/null
jq -c . "$tap_tmp/C1.json" 2>/dev/null | sed 's/^/# attacker: /'
stop_server
# C2, bounds above the fd limit (as A): at EMFILE, with no connection before its cookie to
# shed, the oldest session in set-up goes; the listener never spins, and a test passes.
sport=$((port + 4))
serve C2 256 -p "$sport" --max-pending 1000 --max-pending-per-addr 1000
ok $? "C2: server listens with ulimit -n 256 and bounds above it"
attack C2 cookie 300 "$((idle + 6))" 127.0.0.2; ok $? "C2: 300 connections from 127.0.0.2 that sent a cookie up"
l0=$(lines); w0=$(date +%s%N)
# Here the server works: the attacker reopens each shed connection at once (up to 1,000 a
# second), and each is accepted, its cookie read, its session made and shed. What that costs
# depends on the machine (9.5 % of a core where this was first measured, 26-53 % on a later
# 2-vCPU VM for this build and the one before SCTP alike), so the CPU bound only catches a
# spin, which takes the whole core. The spin itself is counted: accept4 calls over 2 s
# (strace), a few per connection when the listener backs off at EMFILE, hundreds of
# thousands a second when it spins (the bug: 390,000 failed accepts a second).
cpu=$(cpu_over "$spid" 2)
awk -v c="$cpu" 'BEGIN { exit !(c < 90) }'; ok $? "C2: server CPU at the fd limit $cpu % of a core (< 90 %: no spin)"
calls=$(timeout -s INT 2 strace -f -c -e trace=accept4 -p "$spid" 2>&1 >/dev/null |
	awk '$NF == "accept4" { print $4; exit }')
[ -n "$calls" ] && [ "$calls" -lt 10000 ]
ok $? "C2: ${calls:-no} accept4 calls in 2 s at the fd limit (< 10,000: the listener backs off; a spin made 34,209 under strace)"
grep -q "Too many open files" "$slog"; ok $? "C2: the server says it is out of descriptors"
expect_exit 0 "C2: a tcp test during the flood" "$bp" tcp -c 127.0.0.1 -p "$sport" -t 1 --json
wait "$apid" 2>/dev/null
l1=$(lines); w1=$(date +%s%N)
rate=$(awk -v n=$((l1 - l0)) -v ns=$((w1 - w0)) 'BEGIN { printf "%.1f", n / (ns / 1e9) }')
awk -v r="$rate" 'BEGIN { exit !(r <= 20) }'
ok $? "C2: log $((l1 - l0)) lines in $(( (w1 - w0) / 1000000 )) ms at the fd limit ($rate/s, at most 20/s)"
jq -c . "$tap_tmp/C2.json" 2>/dev/null | sed 's/^/# attacker: /'
expect_exit 0 "C2: a tcp test once the attackers are gone" "$bp" tcp -c 127.0.0.1 -p "$sport" -t 1 --json
stop_server

tap_done
