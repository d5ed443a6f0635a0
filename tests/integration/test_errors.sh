#!/usr/bin/env bash
# Failures and Ctrl-C as scripts see them (docs/json.md, "JSON result contract" and the exit
# status): every failure after parsing still prints the document, with error.code and
# error.message beside what was measured, exit 1; after SIGINT a test that measured
# something exits 0 with the warning "interrupted", one that measured nothing exits 1 with
# the error "interrupted"; the server's log says how long a cut test really ran.
# Timed sections (tap.sh, "Parts"): every SIGINT at a set time into a test (after 1 s, the
# spans the server logs for it under 3 s, a cut at 2 s, a repeat 50 ms or 600 ms after the
# first and the exit within 1 s of it). The plain part signals on events instead (a client
# connected, its handler in place, its data flowing): failures, refusals, a server killed
# mid-test, SIGINT before anything was measured.
# Loopback only. Usage: [BP_PART=all|plain|timed] test_errors.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

pids=()
# CONT too: a server left stopped by cut_twice (below) would never act on the TERM.
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done
	wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT

# The test's ports (tap.sh): port stays closed (checked before use), sport and sport + 1 a
# server and its HTTP responder, gport a server that goes away.
bp_ports 4
port=$BP_PORT sport=$((BP_PORT + 1)) gport=$((BP_PORT + 3))
is_closed() { ! timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
# is_error FILE CODE: the document parses, error has the code and a message, nothing else odd
is_error() {
	jq -e --arg c "$2" '.schema == "boardperf/1" and .error.code == $c and
		(.error.message | type == "string" and length > 0) and (.metrics | type == "array")' \
		"$1" >/dev/null
}

# interrupted NAME WHEN CMD...: runs CMD --json and sends it SIGINT WHEN: after a number of
# seconds, or on an event: "connected:PORT" once it is connected to PORT, "caught:S" S seconds
# after its SIGINT handler is in place; leaves $rc, $tap_tmp/NAME.json
interrupted() {
	local name=$1 when=$2
	shift 2
	timeout 30 "$bp" "$@" --json >"$tap_tmp/$name.json" 2>"$tap_tmp/$name.err" &
	local pid=$!
	case $when in
	connected:*) connected "${when#connected:}" ;;
	caught:*) caught "$pid"; sleep "${when#caught:}" ;;
	*) sleep "$when" ;;
	esac
	kill -INT "$pid"
	wait "$pid"; rc=$?
}
# connected PORT: true once a TCP connection from here to PORT is established, within 10 s
connected() {
	for _ in $(seq 100); do
		[ -n "$(ss -Htn state established "dport = :$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}
# caught PID: true once the command `timeout` (PID) runs handles SIGINT, within 10 s (a
# process that has not yet put its handler in place would die of the signal)
caught() {
	local c m
	for _ in $(seq 200); do
		c=$(pgrep -P "$1" | head -1)
		m=$(awk '/^SigCgt:/ { print $2 }' "/proc/${c:-0}/status" 2>/dev/null)
		[ -n "$m" ] && (( 0x$m & 2 )) && return 0
		sleep 0.05
	done
	return 1
}
measured_ok() { # FILE: exit 0 and the rule's marks
	[ "$rc" = 0 ] && jq -e '.error == null and (.metrics | length) > 0 and
		([.warnings[].code] | index("interrupted"))' "$1" >/dev/null
}

if plain; then
	# --- (a) a closed port: the JSON carries the error, exit 1 --------------------------------
	is_closed "$port"; ok $? "port $port on 127.0.0.1 is closed"
	for cmd in tcp udp rr crr http rfc2544; do
		case $cmd in
		http) args=(http "http://127.0.0.1:$port/" -t 1) ;;
		rfc2544) args=(rfc2544 -c 127.0.0.1 -p "$port" --max 1G) ;;
		*) args=("$cmd" -c 127.0.0.1 -p "$port" -t 1) ;;
		esac
		timeout 20 "$bp" "${args[@]}" --json >"$tap_tmp/a.json" 2>"$tap_tmp/a.err"; rc=$?
		[ "$rc" = 1 ] && is_error "$tap_tmp/a.json" connect-refused
		ok $? "$cmd --json, closed port: exit 1, error connect-refused with a message (exit $rc)"
		[ "$(wc -l <"$tap_tmp/a.err")" = 1 ] && grep -q "Connection refused" "$tap_tmp/a.err"
		ok $? "$cmd --json, closed port: the one error line on stderr too"
	done
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --csv >"$tap_tmp/a.csv" 2>/dev/null; rc=$?
	[ "$rc" = 1 ] && grep -q '^tcp,error,,,connect-refused,,,,connect 127.0.0.1:[0-9]*: Connection refused$' \
		"$tap_tmp/a.csv" && [ "$(head -1 "$tap_tmp/a.csv")" = "test,scope,start,end,name,value,unit,better,message" ]
	ok $? "tcp --csv, closed port: header and a row of scope error (exit $rc)"
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 >"$tap_tmp/a.txt" 2>"$tap_tmp/a.err"; rc=$?
	[ "$rc" = 1 ] && [ ! -s "$tap_tmp/a.txt" ] && [ "$(wc -l <"$tap_tmp/a.err")" = 1 ]
	ok $? "tcp text, closed port: nothing on stdout, one line on stderr (exit $rc)"
	timeout 10 "$bp" tcp -c 127.0.0.1 -p "$port" -t 0 --json >"$tap_tmp/u.json" 2>/dev/null; rc=$?
	[ "$rc" = 2 ] && [ ! -s "$tap_tmp/u.json" ]
	ok $? "a usage error stays a plain stderr line, no JSON (exit $rc)"

	# --- a server that refuses, a server gone mid-test ----------------------------------------
	"$bp" serve -B 127.0.0.1 -p "$gport" --max-duration 5 2>"$tap_tmp/gone.log" &
	gpid=$!
	pids+=($gpid)
	wait_log "$tap_tmp/gone.log" listening
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$gport" -t 8 --json >"$tap_tmp/r.json" 2>/dev/null; rc=$?
	[ "$rc" = 1 ] && is_error "$tap_tmp/r.json" server-refused &&
		jq -e '.error.message | test("max-duration")' "$tap_tmp/r.json" >/dev/null
	ok $? "a server that refuses (-t 8 over --max-duration 5): error server-refused (exit $rc)"
	timeout 20 "$bp" tcp -c 127.0.0.1 -p "$gport" -t 5 --json >"$tap_tmp/g.json" 2>/dev/null &
	cpid=$!
	wait_flowing "$gport"  # mid-test: its data under way
	kill -KILL "$gpid"
	wait "$gpid" 2>/dev/null  # reaped here, so bash does not report the kill
	wait "$cpid"; rc=$?
	[ "$rc" = 1 ] && is_error "$tap_tmp/g.json" peer-gone
	ok $? "the server killed mid-test: error peer-gone, exit 1 (exit $rc, $(jq -c .error "$tap_tmp/g.json" 2>&1))"

	# --- SIGINT before anything was measured: exit 1, error interrupted -----------------------
	# A listener that never accepts: the kernel completes the handshake, no server ever answers,
	# so the client is still waiting for PARAM_EXCHANGE when the signal comes (once connected).
	python3 -c 'import signal, socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); signal.pause()' >"$tap_tmp/silent.port" &
	pids+=($!)
	for _ in $(seq 100); do [ -s "$tap_tmp/silent.port" ] && break; sleep 0.1; done
	qport=$(cat "$tap_tmp/silent.port")
	for cmd in tcp rr; do
		interrupted "$cmd-0" "connected:$qport" "$cmd" -c 127.0.0.1 -p "$qport" -t 5
		[ "$rc" = 1 ] && is_error "$tap_tmp/$cmd-0.json" interrupted &&
			jq -e '(.metrics | length) == 0' "$tap_tmp/$cmd-0.json" >/dev/null
		ok $? "$cmd: SIGINT while the server never answered: exit 1, error interrupted (exit $rc)"
	done
	interrupted http-0 "connected:$qport" http "http://127.0.0.1:$qport/" -t 5 -c 1
	[ "$rc" = 1 ] && is_error "$tap_tmp/http-0.json" interrupted
	ok $? "http: SIGINT before any response: exit 1, error interrupted (exit $rc)"
	# The first item alone takes its -t of 5 s, so a signal 0.5 s after the handler is in place
	# comes before any figure.
	interrupted cpu-0 caught:0.5 cpu --algo sha256 -t 5
	[ "$rc" = 1 ] && is_error "$tap_tmp/cpu-0.json" interrupted &&
		jq -e '(.metrics | length) == 0' "$tap_tmp/cpu-0.json" >/dev/null
	ok $? "cpu: SIGINT inside the first item: exit 1, error interrupted, metrics [] (exit $rc)"
fi

if timed; then
	slog="$tap_tmp/serve.log"
	"$bp" serve -B 127.0.0.1 -p "$sport" --http "$((sport + 1))" --idle-timeout 3 2>"$slog" &
	spid=$!
	wait_log "$slog" "listening on 127.0.0.1" && wait_log "$slog" "http: listening"
	pids+=($spid)
	kill -0 "$spid" 2>/dev/null && grep -q "http: listening" "$slog"
	ok $? "server listens on $sport (and HTTP on $((sport + 1)))"

	# --- (b) SIGINT after about 1 s: measured, so exit 0 with the warning ---------------------
	# log_secs KIND: the duration in the server's last log line for that kind
	log_secs() { grep ": $1[ ,]" "$slog" | tail -1 | sed -n 's/.*, \([0-9.]*\) s: .*/\1/p'; }
	work=$(mktemp -d "/var/tmp/bp-$BP_RUN-errors-XXXXXX")
	for cmd in tcp udp rr crr http cpu mem disk; do
		case $cmd in
		http) args=(http "http://127.0.0.1:$((sport + 1))/1k" -t 10 -c 2) ;;
		cpu) args=(cpu --algo sha256 -t 0.2) ;;
		# --size: the default follows the last-level cache (8x: 256 MiB on a 32 MiB EPYC),
		# whose first pass alone can outlast the second; 16M measures within it anywhere
		mem) args=(mem -t 0.2 --size 16M) ;;
		disk) args=(disk --dir "$work" --size 16M --files 4 -t 10) ;;
		*) args=("$cmd" -c 127.0.0.1 -p "$sport" -t 10) ;;
		esac
		nlog=$(grep -c ": $cmd[ ,]" "$slog")
		interrupted "$cmd" 1 "${args[@]}"
		measured_ok "$tap_tmp/$cmd.json"
		ok $? "$cmd: SIGINT after 1 s: exit 0, metrics, warning interrupted, error null (exit $rc)"
		case $cmd in
		tcp|udp|rr|crr)
			for _ in $(seq 30); do
				[ "$(grep -c ": $cmd[ ,]" "$slog")" -gt "$nlog" ] && break
				sleep 0.1
			done
			s=$(log_secs "$cmd")
			awk -v s="$s" 'BEGIN { exit !(s != "" && s < 3) }'
			ok $? "$cmd: the server logs the span it ran, not -t 10 ($s s)" ;;
		esac
	done
	[ -z "$(ls -A "$work")" ]; ok $? "disk: SIGINT left its folder as found"
	rmdir "$work"

	# --- (c) a client cut at 2 s: the server's log says under 3 s -----------------------------
	for cmd in tcp rr; do
		nlog=$(grep -c ": $cmd[ ,]" "$slog")
		interrupted "$cmd-2s" 2 "$cmd" -c 127.0.0.1 -p "$sport" -t 10
		for _ in $(seq 30); do
			[ "$(grep -c ": $cmd[ ,]" "$slog")" -gt "$nlog" ] && break
			sleep 0.1
		done
		s=$(log_secs "$cmd")
		measured_ok "$tap_tmp/$cmd-2s.json" && awk -v s="$s" 'BEGIN { exit !(s >= 1.5 && s < 3) }'
		ok $? "$cmd cut at 2 s of -t 10: exit 0 and the server logs $s s (< 3 s; client: $(jq -r \
			'[.warnings[] | select(.code == "interrupted") | .message][0]' "$tap_tmp/$cmd-2s.json"))"
	done

	# --- one Ctrl-C delivered twice lets the results exchange finish; a second press cuts it ---
	# The server is stopped (SIGSTOP) while the client ends, so the client is surely waiting for
	# the server's results when the next signal comes. A repeat 50 ms after the first (as
	# `timeout` forwards one SIGINT to the child and to its group) is the same request: the
	# server's figures arrive once it runs on. One 600 ms later is a second press: the client
	# leaves at once with what it measured, the server's figures marked missing, none made up.
	# cut_twice NAME GAP: crr -t 10 stopped after 1 s, SIGINT again GAP s later, the server
	# resumed 1.2 s after the first; leaves $rc, $gone_ms (second signal to exit), $tap_tmp/NAME.json
	cut_twice() {
		local name=$1 gap=$2 pid t2
		"$bp" crr -c 127.0.0.1 -p "$sport" -t 10 --json >"$tap_tmp/$name.json" \
			2>"$tap_tmp/$name.err" &
		pid=$!
		pids+=($pid)
		sleep 1
		kill -STOP "$spid"
		kill -INT "$pid"
		sleep "$gap"
		t2=$(date +%s%N)
		kill -INT "$pid"
		for _ in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
		gone_ms=$((($(date +%s%N) - t2) / 1000000))
		sleep "$(awk -v g="$gap" 'BEGIN { d = 1.2 - g; print (d > 0 ? d : 0) }')"
		kill -CONT "$spid"
		wait "$pid"; rc=$?
	}
	nlog=$(grep -c ": crr[ ,]" "$slog")
	cut_twice crr-dup 0.05
	for _ in $(seq 30); do
		[ "$(grep -c ": crr[ ,]" "$slog")" -gt "$nlog" ] && break
		sleep 0.1
	done
	measured_ok "$tap_tmp/crr-dup.json" &&
		jq -e '[.metrics[] | select(.name == "server.transactions") | .value][0] > 0' \
			"$tap_tmp/crr-dup.json" >/dev/null &&
		[ "$(grep -c ": crr[ ,]" "$slog")" -gt "$nlog" ]
	ok $? "crr: SIGINT repeated after 50 ms while the server was stopped: exit $rc, server.transactions \
$(jq -c '[.metrics[] | select(.name == "server.transactions") | .value][0]' "$tap_tmp/crr-dup.json"), \
the server logs the test ($(grep ": crr[ ,]" "$slog" | tail -1 | sed 's/.*: crr/crr/'))"
	cut_twice crr-two 0.6
	measured_ok "$tap_tmp/crr-two.json" && [ "$gone_ms" -lt 1000 ] &&
		jq -e '([.metrics[] | select(.name == "server.transactions")] | length) == 0 and
			.cpu.remote == null and
			([.warnings[] | select(.code == "interrupted") | .message][0] |
			 test("server.s figures are missing"))' "$tap_tmp/crr-two.json" >/dev/null
	ok $? "crr: a second SIGINT 600 ms later: exit $rc $gone_ms ms after it, no server.transactions, \
warning '$(jq -r '[.warnings[] | select(.code == "interrupted") | .message][0]' "$tap_tmp/crr-two.json")'"
fi

tap_done
