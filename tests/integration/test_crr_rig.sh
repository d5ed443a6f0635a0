#!/usr/bin/env bash
# Ground truth for boardperf rr and crr through a device under test (issue 7): client and
# server namespaces with a routing DUT namespace between them (tests/rig/rig.sh, rig_up --dut).
#   (a) without rules, rr (TCP and UDP) and crr cross the DUT with no failure;
#   (b) an nftables rule in the DUT's forward chain admits NEW connections to the server's port
#       at N/s (`limit rate N/second burst 5 packets`) and rejects the rest with a TCP reset;
#       crr offered 2N/s must count what the rule admitted (its counter, less those in flight
#       at the end), count the rest as failures.refused
#       (= offered - admitted and = the reject rule's own counter, within 3 %) and say FAIL;
#   (c) the same limit, the rest dropped: the excess shows up as failures.timeout instead;
#   (d) a client namespace with 100 ephemeral ports asked to hold 150 connections: the rest
#       are failures.no_port with a warning that names the port range;
#   (e) crr --connect-only: each counted connection is one the DUT forwarded (its counter),
#       and under the reject limit it measures what was admitted and counts the refusals as in (b); in the
#       100-port namespace its own TIME_WAIT sockets are said (time-wait-bound) and, once
#       they hold every port, explained (port-exhaustion) (f, run before the others leave
#       TIME_WAIT sockets in the client's namespace).
# The nft counters in the DUT are the ground truth for (b) and (c).
# Needs root, nft (with nf_tables + conntrack) and jq; otherwise the whole script is skipped.
# Usage: test_crr_rig.sh BOARDPERF
set -u
bp=$(realpath "$1")
here=$(dirname "$0")
. "$here/tap.sh"
. "$here/../rig/rig.sh"

if ! rig_require nft jq; then
	echo "1..0 # SKIP $RIG_SKIP_REASON"
	exit 0
fi
# rig_up chains its own rig_down --all in front of this (and turns INT/TERM into an exit);
# set here too so that the rig goes even if a later edit moves rig_up.
# shellcheck disable=SC2154 # tap_tmp comes from tap.sh
trap 'rig_down --all; rm -rf "$tap_tmp"' EXIT

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // 0' <<<"$2"; }
# within A B PCT: |A - B| <= PCT % of B (B > 0)
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d
	exit !(b > 0 && d <= b * p / 100) }'; }
# admitted_ok CONNECTIONS RATE ADMITTED FLOWS: the connections counted are the ones the DUT's
# limit admitted (its counter), less at most one per flow that the end cut short and the
# control or probe connection, and the rate is that count over the T seconds. The counter, not
# the nominal N/s, is the truth: on a loaded machine the attempts arrive in clumps and the
# limit's 5-packet burst admits fewer than N/s.
admitted_ok() { in_flight "$1" "$3" "$4" &&
	within "$2" "$(awk -v c="$1" -v t="$T" 'BEGIN { print c / t }')" 1; }
# in_flight COUNTED DUT FLOWS: the DUT's counter exceeds what the client counted by 0 to FLOWS + 2
in_flight() { local d=$((${2:-0} - $1)); [ "$d" -ge 0 ] && [ "$d" -le $(($3 + 2)) ]; }
# nft_count COMMENT: the packet counter ("counter packets N") of the rule with that comment
nft_count() {
	rig_exec dut nft list table inet crr | awk -v c="\"$1\"" '$0 ~ ("comment " c) {
		for (i = 1; i + 2 <= NF; i++) if ($i == "counter" && $(i + 1) == "packets") print $(i + 2) }'
}

N=200          # admitted new connections per second
T=5            # seconds of each limited run
port=5201

rig_up --dut || { echo "Bail out! rig_up --dut failed"; exit 1; }
rig_bg server "$bp" serve -p "$port" --idle-timeout 5 --logfile "$tap_tmp/serve.log"
rig_wait_port server "$port" 5 || echo "# the server did not come up: $(cat "$tap_tmp/serve.log")"
echo "# rig: $RIG_CLIENT_IP -> DUT $RIG_DUT_NS -> $RIG_SERVER_IP:$port"

# ---- (a) plain routing: nothing may fail ------------------------------------------------
out=$(rig_exec client "$bp" rr -c "$RIG_SERVER_IP" -p "$port" -t 2 -l 64 --json 2>"$tap_tmp/err")
tx=$(metric transactions "$out")
[ "$tx" -gt 1000 ] && [ "$(metric failures "$out")" = 0 ]
rr_p50=$(jq -r '.latency.transaction.p50 // 0' <<<"$out")
ok $? "rr TCP across the DUT: $tx transactions ($(metric transactions.rate "$out")/s, p50 $rr_p50 ns), 0 failures"

out=$(rig_exec client "$bp" rr -c "$RIG_SERVER_IP" -p "$port" -t 2 -l 64 --udp --json 2>"$tap_tmp/err")
tx=$(metric transactions "$out")
[ "$tx" -gt 1000 ] && [ "$(metric failures "$out")" = 0 ]
ok $? "rr UDP across the DUT: $tx transactions ($(metric transactions.rate "$out")/s), 0 failures"

out=$(rig_exec client "$bp" crr -c "$RIG_SERVER_IP" -p "$port" -t 2 -P 4 --json 2>"$tap_tmp/err")
tx=$(metric transactions "$out")
[ "$tx" -gt 500 ] && [ "$(metric failures "$out")" = 0 ] && [ "$(metric pass "$out")" = 1 ] &&
	[ "$(metric server.transactions "$out")" -ge "$tx" ] &&
	# every transaction's latency contains its connect, so no percentile of the connects can
	# exceed the same percentile of the transactions (an order, not a timing)
	jq -e '.latency.connect.p50 <= .latency.connect_request_response_close.p50 and
		.latency.connect.p99 <= .latency.connect_request_response_close.p99' <<<"$out" >/dev/null
ok $? "crr across the DUT: $tx connections ($(metric connections.rate "$out")/s), 0 failures, PASS, connect p50 $(jq -r .latency.connect.p50 <<<"$out") <= transaction p50 $(jq -r .latency.connect_request_response_close.p50 <<<"$out") ns"

# ---- (f) --connect-only's own TIME_WAIT: said, and explained once it holds every port ------
# Before anything else leaves TIME_WAIT sockets in the client's namespace (whole crr
# transactions leave them on the server). --connect-only closes first, so its sockets stay
# here; with 100 ports, 60 connections hold more than half of them: time-wait-bound. A closed
# loop then runs out of them: failures.no_port, and the warning says it is this side's.
range=$(rig_exec client sysctl -n net.ipv4.ip_local_port_range)
rig_exec client sysctl -qw net.ipv4.ip_local_port_range="40000 40099"
out=$(rig_exec client "$bp" crr --connect-only -c "$RIG_SERVER_IP" -p "$port" -t 1 --rate 60 \
	--json 2>"$tap_tmp/err")
[ "$(metric transactions "$out")" -ge 55 ] && [ "$(metric failures "$out")" = 0 ] &&
	jq -e '[.warnings[] | select(.code == "time-wait-bound")] | length == 1' <<<"$out" >/dev/null
ok $? "connect-only: $(metric transactions "$out") connections, their TIME_WAIT sockets over half the 100 ports: time-wait-bound ($(cat "$tap_tmp/err"))"
out=$(rig_exec client "$bp" crr --connect-only -c "$RIG_SERVER_IP" -p "$port" -t 1 \
	--json 2>"$tap_tmp/err")
noport=$(metric failures.no_port "$out")
[ "$noport" -gt 0 ] && jq -e '[.warnings[] | select(.code == "port-exhaustion" and
		(.message | test("--connect-only closes first")))] | length == 1' <<<"$out" >/dev/null
ok $? "connect-only out of ports: $(metric transactions "$out") connections, $noport failures.no_port, explained ($(cat "$tap_tmp/err"))"
rig_exec client sysctl -qw net.ipv4.ip_local_port_range="$range"

# ---- (b) N new connections/s admitted, the rest rejected with a TCP reset ---------------
# nft 1.0 one-line syntax: `;` before every `}`. Established packets (the answers, the FINs)
# pass; only a connection's first packet meets the limit. The control connection is one NEW
# connection too, taken from the burst before the load starts.
limited() { # limited reject|drop
	local verdict="reject with tcp reset"
	[ "$1" = drop ] && verdict=drop
	rig_exec dut nft delete table inet crr 2>/dev/null
	rig_nft "table inet crr { chain forward { type filter hook forward priority 0; policy accept; ct state established,related accept; tcp dport $port ct state new limit rate $N/second burst 5 packets counter accept comment \"admitted\"; tcp dport $port ct state new counter $verdict comment \"excess\"; }; }"
}

if limited reject 2>"$tap_tmp/nft.err"; then
	# Open loop at 2N/s: the refusals come back at once (RST), so 32 flows keep the rate.
	out=$(rig_exec client "$bp" crr -c "$RIG_SERVER_IP" -p "$port" -t "$T" -P 32 \
		--rate $((2 * N)) --ramp 0 -i 0 --json 2>"$tap_tmp/err")
	cps=$(metric connections.rate "$out") tx=$(metric transactions "$out")
	refused=$(metric failures.refused "$out") fails=$(metric failures "$out")
	offered=$(awk -v r="$(metric offered.rate "$out")" -v t="$T" 'BEGIN { printf "%.0f", r * t }')
	admitted=$(nft_count admitted) excess=$(nft_count excess)
	echo "# reject: offered $offered, connections/s $cps, transactions $tx, failures.refused $refused (all failures $fails); nft admitted $admitted, rejected $excess"
	admitted_ok "$tx" "$cps" "$admitted" 32
	ok $? "reject: crr measures what the DUT admitted: $tx connections, its counter ${admitted:-?} (32 flows in flight at the end), $cps/s (limit $N/s)"
	within "$refused" $((offered - tx)) 3 && [ "$fails" = "$refused" ]
	ok $? "reject: the rest counts as failures.refused: $refused = offered $offered - admitted $tx = $((offered - tx)) within 3 % (no other failures: $fails)"
	within "$refused" "${excess:-0}" 3
	ok $? "reject: failures.refused $refused = the DUT's reject counter ${excess:-?} within 3 %"
	[ "$(metric pass "$out")" = 0 ] && jq -e '.warnings[] | select(.code == "threshold-exceeded")' <<<"$out" >/dev/null
	ok $? "reject: the verdict is FAIL (pass = $(metric pass "$out"), failure_ratio $(metric failure_ratio "$out") %)"
else
	for d in "reject: crr measures the admitted rate" "reject: failures.refused" \
		"reject: the DUT's reject counter" "reject: FAIL verdict"; do
		ok 1 "$d (the nft ruleset did not load: $(cat "$tap_tmp/nft.err"))"
	done
fi

# ---- (c) the same limit, the rest dropped: a timeout per dropped SYN ---------------------
# --timeout 0.25 s, under the kernel's 1 s SYN retransmission, so that every dropped SYN is one
# failed attempt (with the default 2 s the retransmission could get through). Each flow waits
# out its timeouts, so -P 128 (the maximum): a flow's period, 128 / 2N = 0.32 s, stays above
# the timeout and no flow falls behind its schedule (which would bunch its SYNs up and waste
# the limiter's tokens). Attempts still waiting when the run ends are not counted: about
# (2N - N) x 0.25 s of the DUT's drops.
to=0.25
if limited drop 2>"$tap_tmp/nft.err"; then
	out=$(rig_exec client "$bp" crr -c "$RIG_SERVER_IP" -p "$port" -t "$T" -P 128 \
		--rate $((2 * N)) --ramp 0 --timeout "$to" -i 0 --json 2>"$tap_tmp/err")
	cps=$(metric connections.rate "$out") tx=$(metric transactions "$out")
	tmo=$(metric failures.timeout "$out") fails=$(metric failures "$out")
	offered=$(awk -v r="$(metric offered.rate "$out")" -v t="$T" 'BEGIN { printf "%.0f", r * t }')
	admitted=$(nft_count admitted) excess=$(nft_count excess)
	cut=$(awk -v n="$N" -v t="$to" 'BEGIN { printf "%.0f", n * t }')
	echo "# drop: offered $offered, connections/s $cps, transactions $tx, failures.timeout $tmo (all failures $fails); nft admitted $admitted, dropped $excess (about $cut of them still waiting at the end)"
	admitted_ok "$tx" "$cps" "$admitted" 128
	ok $? "drop: crr measures what the DUT admitted: $tx connections, its counter ${admitted:-?} (128 flows in flight at the end), $cps/s (limit $N/s)"
	within "$tmo" $(("${excess:-0}" - cut)) 5 && [ "$fails" = "$tmo" ]
	ok $? "drop: the rest counts as failures.timeout: $tmo = DUT drops ${excess:-?} - $cut still waiting within 5 % (no other failures: $fails)"
	[ "$(metric pass "$out")" = 0 ]
	ok $? "drop: the verdict is FAIL"
else
	for d in "drop: crr measures the admitted rate" "drop: failures.timeout" "drop: FAIL verdict"; do
		ok 1 "$d (the nft ruleset did not load: $(cat "$tap_tmp/nft.err"))"
	done
fi

# ---- (d) the client runs out of ephemeral ports: counted and explained -----------------
# The port range is per network namespace: 100 ports in the client's (others than (f)'s,
# which its TIME_WAIT sockets still hold), and --concurrent asks for 150 connections held at
# once. The DUT's rules go first (a flush of the table).
rig_exec dut nft delete table inet crr 2>/dev/null
rig_exec client sysctl -qw net.ipv4.ip_local_port_range="41000 41099"
out=$(rig_exec client "$bp" crr -c "$RIG_SERVER_IP" -p "$port" -t 1 -P 8 --concurrent 150 \
	--json 2>"$tap_tmp/err")
held=$(metric concurrent.established "$out") noport=$(metric failures.no_port "$out")
[ "$held" -le 100 ] && [ "$noport" -ge 50 ] &&
	jq -e '[.warnings[] | select(.code == "port-exhaustion" and
		(.message | test("ip_local_port_range 41000\\s+41099")))] | length == 1' <<<"$out" >/dev/null
ok $? "port exhaustion: $held held, $noport failures.no_port, explained by a port-exhaustion warning"
rig_exec client sysctl -qw net.ipv4.ip_local_port_range="$range"

# ---- (e) --connect-only: the handshake and the close only (iperf2's connect-only) ----------
# Without limits every connection the client counts is one NEW connection the DUT forwarded;
# the DUT also sees the probe connect-only makes first and the at most -P connections the end
# cut short. A connection is counted once: its conntrack entry is marked at its first SYN, so
# a retransmitted SYN (a full accept queue on the server) is not counted again. With the
# reject limit, the admitted rate and the refusals as in (b).
rig_exec dut nft delete table inet crr 2>/dev/null
if rig_nft "table inet crr { chain forward { type filter hook forward priority 0; policy accept; tcp dport $port ct state new ct mark 0 ct mark set 1 counter accept comment \"new\"; }; }" 2>"$tap_tmp/nft.err"; then
	out=$(rig_exec client "$bp" crr --connect-only -c "$RIG_SERVER_IP" -p "$port" -t 2 -P 2 \
		--json 2>"$tap_tmp/err")
	tx=$(metric transactions "$out") new=$(nft_count new)
	extra=$((${new:-0} - tx))
	[ "$tx" -gt 500 ] && [ "$(metric failures "$out")" = 0 ] && [ "$extra" -ge 1 ] && [ "$extra" -le 3 ]
	ok $? "connect-only across the DUT: $tx connections counted, the DUT forwarded ${new:-?} new ones (the probe and $((extra - 1)) cut short by the end)"
	jq -e '.latency.connect.count > 0 and (.metrics | map(.name) | index("server.transactions") | not)' \
		<<<"$out" >/dev/null
	ok $? "connect-only reports connect latency, and no server counts (there is no control connection)"
	# Time that noise cannot stretch: each of the -P 2 flows makes its connections one after
	# another, so the connect times it records add up to at most its share of the run: the
	# sum (count x mean) stays within 2 x 2 s (0.1 s of slack for the connection the end cut
	# short). A connect latency in the wrong unit, or one that also counted the close or the
	# wait between connections, breaks it. (Comparing its p50 with rr's round trip from
	# another run was a timing race: 25 vs 16.5 us on a loaded machine.)
	csum=$(jq -r '(.latency.connect.count // 0) * (.latency.connect.mean // 0)' <<<"$out")
	awk -v s="$csum" 'BEGIN { exit !(s > 0 && s <= 2 * 2.1e9) }'
	ok $? "connect-only: the connect times add up to $(awk -v s="$csum" 'BEGIN { printf "%.2f", s / 1e9 }') s, within the 2 flows x 2 s they ran"
else
	ok 1 "connect-only across the DUT (the nft ruleset did not load: $(cat "$tap_tmp/nft.err"))"
	ok 1 "connect-only reports connect latency"
	ok 1 "connect-only: the connect times add up to within the flows' run"
fi
if limited reject 2>"$tap_tmp/nft.err"; then
	out=$(rig_exec client "$bp" crr --connect-only -c "$RIG_SERVER_IP" -p "$port" -t "$T" -P 32 \
		--rate $((2 * N)) -i 0 --json 2>"$tap_tmp/err")
	cps=$(metric connections.rate "$out") refused=$(metric failures.refused "$out")
	excess=$(nft_count excess) admitted=$(nft_count admitted) tx=$(metric transactions "$out")
	echo "# connect-only, reject: connections/s $cps, failures.refused $refused; nft admitted $admitted, rejected $excess"
	admitted_ok "$tx" "$cps" "$admitted" 32
	ok $? "connect-only, reject: measures what the DUT admitted: $tx connections, its counter ${admitted:-?} (32 flows in flight at the end), $cps/s (limit $N/s)"
	in_flight "$refused" "$excess" 32 && [ "$(metric pass "$out")" = 0 ]
	ok $? "connect-only, reject: failures.refused $refused vs the DUT's reject counter ${excess:-?} (0 to 34 more: refusals in flight at the end), FAIL"
else
	ok 1 "connect-only, reject: admitted rate (the nft ruleset did not load: $(cat "$tap_tmp/nft.err"))"
	ok 1 "connect-only, reject: refusals"
fi

rig_down
[ "$SECONDS" -lt 60 ]
ok $? "whole test under 60 s (${SECONDS} s)"
tap_done
