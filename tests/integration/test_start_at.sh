#!/usr/bin/env bash
# --start-at (issue 37, core/start_at.h): a test starts measuring at a wall-clock instant.
# The ground truth is the system calls' own clock: strace -ttt stamps tcp's connect to the
# server before the instant (it connects first, within the 2 s lead) and its first data
# write at or after it; cpu (no peer) and the suite together start at the instant, as their
# env.start says, and the command waited; rr, crr, udp and http record the start too. Ctrl-C ends a wait at once;
# bad instants, and --repeat beside one, are usage errors naming the value; a command that
# does not measure refuses the option. The clock warning follows the kernel's own state.
# Then three udp testers at one instant with --share K/3 of one rate.
# Usage: test_start_at.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
[ -n "${EPOCHREALTIME:-}" ] || { echo "1..0 # SKIP needs bash 5 (EPOCHREALTIME)"; exit 0; }
export LC_ALL=C  # EPOCHREALTIME's and strace's decimal points

# now+S as epoch seconds with microseconds
after() { awk -v n="$EPOCHREALTIME" -v s="$1" 'BEGIN { printf "%.6f", n + s }'; }

if plain; then
	expect_exit 2 "an instant in the past" "$bp" cpu --start-at 2020-01-01T00:00:00Z
	grep -q "start-at '2020-01-01T00:00:00Z': [0-9.]* s in the past; expected an instant within the next day" <<<"$err"
	ok $? "the past is refused, naming the value"
	expect_exit 2 "more than a day ahead" "$bp" cpu --start-at "$(after 90000)"
	grep -q "h ahead; expected an instant within the next day" <<<"$err"; ok $? "a day ahead is the limit"
	expect_exit 2 "not an instant" "$bp" tcp -c 127.0.0.1 --start-at 'next tuesday'
	grep -q "start-at 'next tuesday': expected an instant as RFC 3339" <<<"$err"; ok $? "a bad instant names itself"
	expect_exit 2 "with --repeat" "$bp" cpu --start-at "$(after 60)" --repeat 3
	grep -q -- "--start-at with --repeat" <<<"$err"; ok $? "--repeat beside it is refused"
	expect_exit 2 "info takes none" "$bp" info --start-at "$(after 60)"
	grep -q -- "--start-at is not an option of this command" <<<"$err"; ok $? "a command that measures nothing refuses it"

	# cpu: held until the instant, which its result records with the clock's facts
	at=$(after 1.5) t0=$EPOCHREALTIME
	"$bp" cpu --algo sha256 --sizes 64 -t 0.2 --no-save --json --start-at "$at" >"$tap_tmp/cpu.json"
	t1=$EPOCHREALTIME
	sync_state=$(jq -r '.env.start.clock.synchronized' "$tap_tmp/cpu.json")
	jq -e --argjson at "$at" '.error == null and (.env.start.at_epoch_s - $at | fabs) < 1e-5
		and .env.start.actual_epoch_s >= $at and .env.start.late_ms >= 0
		and (.env.start.at | test("^20[0-9-]+T[0-9:]+\\.[0-9]{6}Z$"))' "$tap_tmp/cpu.json" >/dev/null &&
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.4) }'
	ok $? "cpu waited for the instant and records it ($(jq -c '.env.start | {at, late_ms}' "$tap_tmp/cpu.json"); $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s)"
	# a suite: together's tests start at the instant (run's do the same, test_run.sh)
	at=$(after 1.5) t0=$EPOCHREALTIME
	"$bp" together "cpu --algo sha256 --sizes 64" "cpu --algo sha1 --sizes 64" --no-alone \
		--repeat 1 -t 0.2 --no-save --json --start-at "$at" >"$tap_tmp/together.json"
	t1=$EPOCHREALTIME
	jq -e --argjson at "$at" '.error == null and (.env.start.at_epoch_s - $at | fabs) < 1e-5
		and .env.start.actual_epoch_s >= $at and (.results | length) >= 2' \
		"$tap_tmp/together.json" >/dev/null &&
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.4) }'
	ok $? "together waited for the instant and records it ($(jq -c '.env.start | {at, late_ms}' "$tap_tmp/together.json"); $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s)"
	# the warning is the kernel's state: unsynchronised here unless a daemon disciplines it
	w=$(jq '[.warnings[] | select(.code == "clock-unsynced")] | length' "$tap_tmp/cpu.json")
	{ [ "$sync_state" = false ] && [ "$w" = 1 ]; } || { [ "$sync_state" = true ] &&
		[ "$w" = "$(jq '(.env.start.clock.maxerror_us > 1000) | if . then 1 else 0 end' "$tap_tmp/cpu.json")" ]; }
	ok $? "clock-unsynced follows the kernel's clock state (synchronized $sync_state, $w warning)"

	# Ctrl-C ends the wait at once
	"$bp" cpu -t 1 --no-save --start-at "$(after 30)" >/dev/null 2>"$tap_tmp/int.err" &
	pid=$!
	sleep 0.5
	t0=$EPOCHREALTIME
	kill -INT "$pid"
	wait "$pid"; rc=$?
	t1=$EPOCHREALTIME
	[ "$rc" = 1 ] && grep -q "interrupted while waiting for --start-at" "$tap_tmp/int.err" &&
		awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 2) }'
	ok $? "Ctrl-C ends the wait (exit $rc after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s: $(head -c 200 "$tap_tmp/int.err"))"
fi

if plain; then
	bp_ports 2; sport=$BP_PORT hport=$((BP_PORT + 1))
	"$bp" serve -p "$sport" --http "$hport" --idle-timeout 10 2>"$tap_tmp/serve.log" &
	server=$!
	trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
	for _ in $(seq 50); do grep -qs listening "$tap_tmp/serve.log" && break; sleep 0.1; done

	# tcp: its connect (the control connection) before the instant, within the lead; its
	# first data on a data stream (more than the 37-byte cookie each stream opens with) at
	# or after it; strace's clock is the same wall clock
	if command -v strace >/dev/null; then
		at=$(after 3)
		strace -f -ttt -e trace=connect,write,sendto,sendmsg -o "$tap_tmp/strace.txt" \
			"$bp" tcp -c 127.0.0.1 -p "$sport" -t 1 --no-save --json --start-at "$at" \
			>"$tap_tmp/tcp.json" 2>/dev/null
		c=$(awk '/connect\(/ && /sin_port=htons\('"$sport"'\)/ { print $2; exit }' "$tap_tmp/strace.txt")
		# the data streams' sockets: those connected after the first (the control one)
		d=$(awk '{ split($3, a, "("); f = a[2]; sub(/,.*/, "", f) }
			/connect\(/ && /htons\('"$sport"'\)/ { if (++n > 1) fd[f] = 1; next }
			/ (write|sendto|sendmsg)\(/ && fd[f] && $NF + 0 > 1000 { print $2; exit }' "$tap_tmp/strace.txt")
		awk -v c="$c" -v d="$d" -v at="$at" 'BEGIN { exit !(c != "" && d != "" && c < at && c >= at - 2.5 && d >= at) }' &&
			jq -e '.error == null and .env.start.late_ms >= 0' "$tap_tmp/tcp.json" >/dev/null
		ok $? "tcp connects before the instant and sends from it (connect $(awk -v c="$c" -v at="$at" 'BEGIN { printf "%.3f", c - at }') s, first data $(awk -v d="$d" -v at="$at" 'BEGIN { printf "%.4f", d - at }') s from it)"
	else
		skip "tcp connects before the instant and sends from it" "no strace"
	fi
	for t in rr crr udp http; do
		at=$(after 2.2)
		case $t in
		http) args=(http "http://127.0.0.1:$hport/1k" -t 0.5 -c 1) ;;
		udp) args=(udp -c 127.0.0.1 -p "$sport" -t 0.5 -b 1M) ;;
		*) args=("$t" -c 127.0.0.1 -p "$sport" -t 0.5) ;;
		esac
		"$bp" "${args[@]}" --no-save --json --start-at "$at" >"$tap_tmp/$t.json" 2>/dev/null
		jq -e --argjson at "$at" '.error == null and (.env.start.at_epoch_s - $at | fabs) < 1e-5
			and .env.start.actual_epoch_s >= $at' "$tap_tmp/$t.json" >/dev/null
		ok $? "$t records its start at the instant ($(jq -c '.env.start.late_ms' "$tap_tmp/$t.json") ms late)"
	done
	# The server counts its side from the streams' arrival, so they open at the instant,
	# not 2 s before it: each receiver's span is the test's -t, not the wait as well
	jq -s -e 'all(.[]; ([.metrics[] | select(.name == "receiver.span")][0].value / 1e9) as $s
		| $s > .params.time * 0.9 and $s < .params.time + 0.3)' \
		"$tap_tmp/tcp.json" "$tap_tmp/udp.json" >/dev/null
	ok $? "tcp and udp: the receiver's span is the test's, not the wait ($(jq -s -c '[.[] | [.metrics[] | select(.name == "receiver.span")][0].value / 1e9]' "$tap_tmp/tcp.json" "$tap_tmp/udp.json") s)"

	# Three testers at once, one instant, shares of one rate (--share, core/share.h): the
	# shares add up to the rate exactly, each offers its own (within 5 %, or below it and
	# naming its lost CPU, as tap.sh's below_named accepts: four ASan processes on a busy
	# 2-core host, fresh-clone run 90, one sender read 5.8 % low), and all start at the
	# instant
	at=$(after 2.2)
	pids=()
	for k in 1 2 3; do
		"$bp" udp -c 127.0.0.1 -p "$sport" -t 1 -b 10000001 --share "$k/3" --no-save --json \
			--start-at "$at" >"$tap_tmp/share$k.json" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	jq -s -e --argjson at "$at" '[.[].params.share_bitrate] as $s | ($s | add) == 10000001
		and ($s | sort) == [3333333, 3333334, 3333334]
		and all(.[]; .error == null and (.env.start.at_epoch_s - $at | fabs) < 1e-5
			and (.params.share | test("^[123]/3$")) and
			([.warnings[]? | select(.code == "tester-cpu-starved" or .code == "busy-machine"
				or .code == "tester-cpu-bound")] | length > 0) as $named |
			([.metrics[] | select(.name == "sender.bitrate")][0].value / .params.share_bitrate
			 | . < 1.05 and (. > 0.95 or (. > 0 and $named))))' \
		"$tap_tmp"/share{1,2,3}.json >/dev/null
	ok $? "three testers' shares add up to -b exactly and each offers its own ($(jq -s -c '[.[] | [.params.share, .params.share_bitrate, ([.metrics[] | select(.name == "sender.bitrate")][0].value | floor), ([.warnings[]?.code | select(test("^(tester-cpu-|busy-machine)"))] | join(","))]]' "$tap_tmp"/share{1,2,3}.json))"
fi
tap_done
