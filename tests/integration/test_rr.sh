#!/usr/bin/env bash
# boardperf rr and crr against boardperf serve on loopback: counts both ends agree on,
# open-loop rates held, latency percentiles in order and close to sockperf's ping-pong,
# connection capacity with --concurrent, refusals and bad flags.
# Timed sections (tap.sh, "Parts"): the open-loop rates held to 1-3 %, a shared worker's
# answer time and a 3 s test's end within 4.5 s. The figures part: p50 against sockperf's,
# in the optimised build (under ASan rr's p50 has two modes, 19.7 and 24.6 us, against
# sockperf's 18: a round-to-round placement the sanitizer's cost magnifies).
# Usage: [BP_PART=all|plain|timed|figures] test_rr.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 7; port=$BP_PORT  # port .. port + 6 (tap.sh)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT

metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
# near A B PCT: |A - B| <= PCT % of B
near() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d
	exit !(b > 0 && d <= b * p / 100) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

slog="$tap_tmp/serve.log"
"$bp" serve -p "$port" --idle-timeout 3 2>"$slog" &
pids+=($!)
wait_log "$slog" listening; ok $? "server listens on $port"

if plain; then
	# --- rr over TCP, closed loop ---
	# --timeout 10 where a timeout is not what is checked: over TCP one transaction past it
	# ends the test, and a machine busy with sanitizer builds stalled serve past the 1 s
	# default once (CI run 61)
	expect_exit 0 "rr TCP" "$bp" rr -c 127.0.0.1 -p "$port" -t 2 -l 64 --timeout 10 --json
	tx=$(metric transactions "$out"); srv=$(metric server.transactions "$out")
	ge "$tx" 2000; ok $? "rr: thousands of transactions ($tx)"
	[ "$srv" -ge "$tx" ] && [ "$srv" -le $((tx + 1)) ]
	ok $? "the server answered what the client counted (client $tx, server $srv)"
	[ "$(metric failures "$out")" = 0 ]; ok $? "rr: no failures"
	jq -e '.latency.transaction | .min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and
		.p99 <= ."p99.9" and ."p99.9" <= .max and .count > 0' <<<"$out" >/dev/null
	ok $? "latency percentiles in order"
	jq -e '[.warnings[].code] | index("loopback") != null' <<<"$out" >/dev/null
	ok $? "rr: a server on this machine warned (loopback)"
	rate=$(metric transactions.rate "$out")
	near "$rate" "$(awk -v t="$tx" 'BEGIN { print t / 2 }')" 2; ok $? "transactions/s is the count over 2 s ($rate)"
	sum=$(jq '[.intervals[] | .metrics["transactions.rate"] * (.end - .start)] | add' <<<"$out")
	near "$sum" "$tx" 1; ok $? "interval rates add up to the total ($sum vs $tx)"

	# --csv: every scope it writes, cpu included, is named in docs/json.md, "CSV (`--csv`)", and
	# each cpu row's name ends in a unit suffix that section explains.
	expect_exit 0 "rr --csv" "$bp" rr -c 127.0.0.1 -p "$port" -t 0.3 --timeout 10 --csv
	manual=$(dirname "$0")/../../docs/json.md
	csv_doc=$(sed -n '/^## CSV (`--csv`)/,/^## /p' "$manual")
	scopes=$(tail -n +2 <<<"$out" | cut -d, -f2 | sort -u)
	grep -qx cpu <<<"$scopes"; ok $? "rr --csv has cpu rows"
	missing=""
	for s in $scopes; do grep -qF "\`$s\`" <<<"$csv_doc" || missing="$missing $s"; done
	[ -z "$missing" ]; ok $? "docs/json.md's CSV section names every scope (missing:${missing:- none})"
	bad=""
	for n in $(grep '^rr,cpu,' <<<"$out" | cut -d, -f5); do
		suffix=_${n##*_}
		grep -qF "\`$suffix\`" <<<"$csv_doc" || bad="$bad $n"
	done
	[ -z "$bad" ]; ok $? "docs/json.md's CSV section gives the unit of every cpu row (not:${bad:- none})"

	expect_exit 0 "rr TCP -P 4 -l 64,1K" "$bp" rr -c 127.0.0.1 -p "$port" -t 1 -P 4 -l 64,1K --timeout 10 --json
	jq -e '.params.workers == 2 or .params.workers == 1' <<<"$out" >/dev/null
	ok $? "flows spread over per-core workers"
	[ "$(metric failures "$out")" = 0 ]; ok $? "four flows, no failures"

	# --- rr over UDP ---
	# counted as the server counted them (a rate floor failed under ASan in CI's busiest step)
	expect_exit 0 "rr UDP" "$bp" rr -c 127.0.0.1 -p "$port" -t 1 --udp -l 64,512 --json
	tx=$(metric transactions "$out"); srv=$(metric server.transactions "$out")
	[ "$tx" -gt 0 ] && [ "$srv" -ge "$tx" ] && [ "$srv" -le $((tx + 1)) ]
	ok $? "rr UDP: transactions counted (client $tx, server $srv)"
	[ "$(metric failures "$out")" = 0 ]; ok $? "rr UDP on loopback: none lost"
	expect_exit 0 "rr UDP without -l (8 bytes, the sequence number)" "$bp" rr -c 127.0.0.1 \
		-p "$port" -t 0.2 --udp --json
	jq -e '.params.request == 8 and .params.response == 8' <<<"$out" >/dev/null
	ok $? "rr --udp takes 8-byte requests and answers by default"
	expect_exit 2 "rr UDP with a 4-byte request" "$bp" rr -c 127.0.0.1 -p "$port" --udp -l 4
	grep -q "8 bytes carry the sequence number" <<<"$err"; ok $? "says why: $err"

fi

if timed; then
	# --- open loop: the offered rate is held, latency counts from the due time ---
	expect_exit 0 "rr --rate 2000" "$bp" rr -c 127.0.0.1 -p "$port" -t 2 -P 2 --rate 2000 --timeout 10 --json
	rate=$(metric transactions.rate "$out")
	near "$rate" 2000 1; ok $? "rr --rate 2000 delivers 2000 ± 1 %/s ($rate)"
	[ "$(metric offered.rate "$out")" = 2000 ]; ok $? "offered rate recorded"

	# --- a responder waiting alone in recv hands its worker back at once ---
	# A server with one data worker: a UDP rr flow has the worker to itself and waits for each
	# request inside recv (its fast path). A TCP rr test arriving meanwhile shares the worker
	# and must be answered as if the other were not waiting: its requests, 1000/s, wait
	# microseconds for their answers (a worker still blocked in the other's recv would answer
	# them between its 10 ms slices, ~5 ms late on average, the median as late). The waiting
	# test must not be held up either, at its end or before. The median is the discriminating
	# figure: on a busy host the p90 moves with the scheduler (CI's ASan host: 4.6 ms; here
	# beside two busy loops 0.19-61 ms, the median 0.14-0.16 ms), so a p90 over 2 ms passes
	# only where the result names the tester's lost CPU.
	port1=$((port + 4)); slog1="$tap_tmp/serve1.log"
	"$bp" serve -p "$port1" --workers 1 2>"$slog1" &
	pids+=($!)
	wait_log "$slog1" listening; ok $? "a one-worker server listens on $port1"
	t0=$(date +%s%N)
	"$bp" rr -c 127.0.0.1 -p "$port1" -t 3 --udp -l 64 --json >"$tap_tmp/alone.json" 2>"$tap_tmp/alone.err" &
	alone_pid=$!
	sleep 1
	expect_exit 0 "rr TCP --rate 1000 beside it" "$bp" rr -c 127.0.0.1 -p "$port1" -t 1 -l 64 \
		--rate 1000 --json
	p50=$(jq '.latency.transaction.p50' <<<"$out"); p90=$(jq '.latency.transaction.p90' <<<"$out")
	what="the TCP test sharing the worker is answered at once (p50 $p50 ns, p90 $p90 ns, $(metric transactions.rate "$out")/s; $(tester_cpu_named "$out"))"
	# A median over 1 ms where the result names the tester's lost CPU cannot tell a blocked
	# worker from a host that ran something else (fresh-clone run 91 under ASan: p50 3.8 ms,
	# tester-cpu-starved; quiet, 0.16-0.22 ms): that is a skip, never a pass
	if ! ge 1000000 "$p50" && [ -n "$(tester_cpu_named "$out")" ]; then
		skip "$what" "the tester lost its CPU: the median cannot discriminate"
	else
		ge 1000000 "$p50" && { ge 2000000 "$p90" || [ -n "$(tester_cpu_named "$out")" ]; } &&
			near "$(metric transactions.rate "$out")" 1000 2
		ok $? "$what"
	fi
	wait "$alone_pid"; rc=$?
	t1=$(date +%s%N)
	[ "$rc" = 0 ]; ok $? "the UDP test waiting alone finished (exit $rc: $(cat "$tap_tmp/alone.err"))"
	out=$(cat "$tap_tmp/alone.json")
	ge "$(metric transactions "$out")" 3000 && [ "$(metric failures "$out")" = 0 ]
	ok $? "it kept answering before, during and after ($(metric transactions "$out"), no failures)"
	ms=$(( (t1 - t0) / 1000000 ))
	[ "$ms" -ge 3000 ] && [ "$ms" -lt 4500 ]; ok $? "a 3 s test took $ms ms from start to result"

fi

if plain; then
	# --- crr: a new connection per transaction ---
	expect_exit 0 "crr -P 4" "$bp" crr -c 127.0.0.1 -p "$port" -t 2 -P 4 --json
	cps=$(metric connections.rate "$out"); tx=$(metric transactions "$out")
	ge "$cps" 300; ok $? "crr: connections/s on loopback ($cps)"
	[ "$(metric failures "$out")" = 0 ] && [ "$(metric pass "$out")" = 1 ]
	ok $? "crr: no failures, PASS"
	srv=$(metric server.transactions "$out")
	[ "$srv" -ge "$tx" ] && [ "$srv" -le $((tx + 4)) ]
	ok $? "server answered every counted connection (client $tx, server $srv)"
	jq -e '.latency.connect.count > 0 and .latency.connect.p50 <= .latency.connect_request_response_close.p50' \
		<<<"$out" >/dev/null; ok $? "connect latency below the whole transaction's"
	# The server closes first: TIME_WAIT sockets sit on its side (source port $port), not on
	# the client's (destination port $port), whose ephemeral ports come free at once. Only the
	# at most 4 (-P) transactions the end cut short were closed by the client.
	client_tw=$(ss -Htan state time-wait "dport = :$port" | wc -l)
	server_tw=$(ss -Htan state time-wait "sport = :$port" | wc -l)
	[ "$client_tw" -le 4 ] && [ "$server_tw" -gt 1000 ]
	ok $? "TIME_WAIT on the server's side ($server_tw), at most the 4 cut short on the client's ($client_tw)"

fi

if timed; then
	# Open loop: a stall of the (shared, noisy) machine is made up afterwards, so each
	# second's rate may wobble; the sustained total may not.
	expect_exit 0 "crr --rate 1000 --ramp 1" "$bp" crr -c 127.0.0.1 -p "$port" -t 3 -P 8 \
		--rate 1000 --ramp 1 --json
	near "$(metric connections.rate "$out")" 1000 3
	ok $? "crr --rate 1000 holds 1000 ± 3 %/s after the ramp ($(metric connections.rate "$out"))"
	jq -e '[.intervals[] | select(.metrics.omitted == 1)] | length >= 1' <<<"$out" >/dev/null
	ok $? "the ramp is marked omitted"

fi

if plain; then
	expect_exit 0 "crr --concurrent 500" "$bp" crr -c 127.0.0.1 -p "$port" -t 1 -P 8 \
		--concurrent 500 --json
	[ "$(metric concurrent.established "$out")" = 500 ] &&
		[ "$(metric concurrent.alive "$out")" = 500 ] && [ "$(metric pass "$out")" = 1 ]
	ok $? "500 connections held and still answering after the hold"
	# The last request on a held connection carries the client's FIN: the server closes first
	# there too, and its 500 connections leave no TIME_WAIT socket on the client's side.
	client_tw=$(ss -Htan state time-wait "dport = :$port" | wc -l)
	[ "$client_tw" -le 4 ]; ok $? "after --concurrent 500: at most the 4 cut short earlier in TIME_WAIT on the client's side ($client_tw)"

fi

# --- crr --connect-only: handshake and close, to any TCP listener (here iperf2's server) ---
# Short runs: this side closes first, so each connection leaves a TIME_WAIT socket here for
# 60 s (the DUT rig test checks the count against the DUT's; this checks the mode runs).
ip2_port=$((port + 6))
if command -v iperf >/dev/null; then
	iperf -s -p "$ip2_port" -B 127.0.0.1 >/dev/null 2>&1 &
	pids+=($!)
	for _ in $(seq 50); do ss -Hltn "sport = :$ip2_port" | grep -q . && break; sleep 0.1; done
	if plain; then
		expect_exit 0 "crr --connect-only to iperf2's server" "$bp" crr -c 127.0.0.1 -p "$ip2_port" \
			--connect-only -t 0.2 --json
		tx=$(metric transactions "$out")
		ge "$tx" 500 && [ "$(metric failures "$out")" = 0 ] && [ "$(metric pass "$out")" = 1 ]
		ok $? "connect-only: $tx connections in 0.2 s ($(metric connections.rate "$out")/s), no failures, PASS"
		jq -e '.latency.connect.count > 0 and .latency.connect.p50 > 0 and .params["connect-only"] == true
			and (.metrics | map(.name) | index("server.transactions") | not)
			and (.latency | keys == ["connect"])
			and (.cpu | has("remote") | not)' <<<"$out" >/dev/null
		ok $? "connect-only: connect latency, no server figures (no control connection to get them)"
	fi
	if timed; then
		expect_exit 0 "crr --connect-only --rate 1000 -P 4" "$bp" crr -c 127.0.0.1 -p "$ip2_port" \
			--connect-only -t 2 -P 4 --rate 1000 --json
		near "$(metric connections.rate "$out")" 1000 2
		ok $? "connect-only --rate 1000 holds 1000 ± 2 %/s ($(metric connections.rate "$out"))"
	fi
else
	skip "crr --connect-only to iperf2's server" "iperf (iperf2) not installed"
fi
if plain; then
	expect_exit 1 "crr --connect-only to a closed port" "$bp" crr -c 127.0.0.1 -p "$((port + 2))" \
		--connect-only -t 1
	grep -q "connect 127.0.0.1:$((port + 2)): Connection refused" <<<"$err"; ok $? "one line at once: $err"
	expect_exit 2 "crr --connect-only -l 64" "$bp" crr -c 127.0.0.1 -p "$port" --connect-only -l 64
	grep -q -- "-l does not apply to --connect-only" <<<"$err"; ok $? "says why: $err"
	expect_exit 2 "crr --connect-only --concurrent 10" "$bp" crr -c 127.0.0.1 -p "$port" \
		--connect-only --concurrent 10
	grep -q -- "--concurrent does not apply to --connect-only" <<<"$err"; ok $? "says why: $err"

	# --- errors ---
	closed=$((port + 2))
	expect_exit 1 "crr to a closed port" "$bp" crr -c 127.0.0.1 -p "$closed" -t 1
	grep -q "Connection refused" <<<"$err"; ok $? "one line: $err"
	# -R, --bidir, --iperf3 are tcp/udp options: rr and crr neither offer nor take them, and
	# refuse them as any unknown option, in one line.
	for c in rr crr; do
		expect_exit 0 "$c --help" env COLUMNS=1000 "$bp" "$c" --help
		for o in -R --reverse --bidir --iperf3; do
			! grep -qE -- "(^|[ ,])$o( |,|$)" <<<"$out"; ok $? "$c --help does not offer $o"
			expect_exit 2 "$c $o" "$bp" "$c" -c 127.0.0.1 -p "$port" "$o"
			[ "$(wc -l <<<"$err")" -eq 1 ] && grep -qF "unknown option '$o'" <<<"$err"
			ok $? "$c $o: refused as an unknown option, one line: $err"
		done
	done
	expect_exit 2 "crr --ramp without --rate" "$bp" crr -c 127.0.0.1 -p "$port" --ramp 2
	expect_exit 2 "rr -l garbage" "$bp" rr -c 127.0.0.1 -p "$port" -l 64,x
	grep -q "REQ\[,RESP\]" <<<"$err"; ok $? "bad -l names the expected form: $err"
	grep -q "crr, 8 flows" "$slog"; ok $? "server logged the crr test"
fi

if figures; then
	# --- latency against sockperf's ping-pong (same size, one flow, interleaved, ratios) ---
	# Both pairs run on one CPU: on loopback the round trip costs ~12 us when client and server
	# share a CPU and ~40 us when a wake-up crosses to the other (an IPI to an idle vCPU), and
	# the scheduler places two single-threaded processes differently from two thread pools.
	if command -v sockperf >/dev/null && command -v taskset >/dev/null; then
		sport=$((port + 1)); bport=$((port + 3))
		taskset -c 0 "$bp" serve -p "$bport" 2>"$tap_tmp/pinned.log" &
		pids+=($!)
		taskset -c 0 sockperf server --tcp -p "$sport" >/dev/null 2>&1 &
		pids+=($!)
		wait_log "$tap_tmp/pinned.log" listening
		sleep 0.3
		bps=(); sps=()
		# Eight rounds of one second each, alternating, the same windows for both tools
		# (sockperf's -t takes whole seconds): the host slows this CPU for seconds at a time.
		for _ in 1 2 3 4 5 6 7 8; do
			bps+=("$(taskset -c 0 "$bp" rr -c 127.0.0.1 -p "$bport" -t 1 -l 64 --json |
				jq '.latency.transaction.p50')")
			# --full-rtt: sockperf reports half the round trip unless asked. --mps=max: a
			# closed loop as rr's; its default 10,000 messages/s leaves the CPU idle between
			# them and adds a wake-up from idle to some round trips (26 us against 20 once).
			sps+=("$(taskset -c 0 sockperf ping-pong --tcp -i 127.0.0.1 -p "$sport" -t 1 -m 64 \
				--full-rtt --mps=max 2>&1 | awk '/percentile 50.000/ { print $NF * 1000 }')")
		done
		# Each tool's best round: a round here reads either near 8 us or near 11.5 us, both
		# tools alike (boardperf 8.0, 8.0, 8.9, 11.6, 8.0, 11.4, 8.3, 11.7, 11.4, 11.0 in ten
		# half-second runs; sockperf near 11.5 in four rounds of five in CI run 73, near 7.9 in
		# all five of run 74 while boardperf was near 11.5 in four of its): the host slows
		# this CPU for seconds at a time, and a round's pair does not share its windows (run
		# 74's median ratio 1.45), as before (session 20: both 25 us against 19 in a round).
		# A host only takes speed away: the fastest round is each tool undisturbed.
		best() { printf '%s\n' "$@" | awk '$1 > 0' | sort -g | head -1; }
		b=$(best "${bps[@]}") s=$(best "${sps[@]}")
		r=$(awk -v b="${b:-0}" -v s="${s:-0}" 'BEGIN { if (b > 0 && s > 0) printf "%.4f", b / s }')
		awk -v r="${r:-0}" 'BEGIN { exit !(r >= 0.8 && r <= 1.2) }'
		ok $? "rr p50 within ±20 % of sockperf ping-pong's (best rounds ${b:-none} / ${s:-none} ns, ratio ${r:-none}; rounds ${bps[*]} / ${sps[*]} ns)"
	else
		skip "rr p50 within ±20 % of sockperf ping-pong's" "sockperf or taskset not installed"
	fi
fi

tap_done
