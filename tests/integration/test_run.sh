#!/usr/bin/env bash
# `boardperf run` (the quick suite, twice, ~40 s): it ends with a summary table, one line per
# test with its headline figure; the server it runs in its own process keeps its log out of
# the user's output (shown with -v only); and client and server of a network test each
# report their own threads' CPU, not the process's twice: the two figures differ, and
# together they are what the whole process spent (cpu.process, from getrusage).
# Timed sections (tap.sh, "Parts"): the second run (--json -v) whole: its CPU shares against
# the process's (within 15 %, the http client's below 0.9 of it) and, as they come from that
# run, its -v log lines and JSON. The plain part is the first run: its summary, its quiet log,
# and the suite and its children saved as printed (show prints it again byte for byte).
# Usage: [BP_PART=all|plain|timed] test_run.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

# The server's lines: "listening on ADDR" and one per test ("127.0.0.1:PORT: tcp upload, ...").
server_line='listening on |127\.0\.0\.1:[0-9]+: (tcp|udp|rr|crr)|server: '

if plain; then
	# At 80 columns (the terminal's width when it has none: docs/results.md "Text output")
	# no line is wider; the summary is then a test a line, what is wider indented under it.
	expect_exit 0 "run" env COLUMNS=80 "$bp" run
	text=$out
	printf '%s\n' "$text" >"$tap_tmp/run80.txt"
	wide=$(wide_lines "$tap_tmp/run80.txt")
	[ -z "$wide" ]; ok $? "run: $(wc -l <"$tap_tmp/run80.txt") lines, none over 80 columns"
	[ -z "$wide" ] || echo "$wide"
	# Saved as printed (tap.sh's XDG_DATA_HOME: this test's own database): the suite and each
	# test a child of it, which `show` prints again byte for byte.
	db=$XDG_DATA_HOME/boardperf/results.db
	q() { sqlite3 "$db" "$1"; }
	sid=$(q "SELECT MAX(id) FROM results WHERE parent IS NULL")
	[ "$(q "SELECT test FROM results WHERE id = $sid")" = run ]; ok $? "the suite saved as run (#$sid)"
	! grep -Eq "$server_line" <<<"$text"; ok $? "no server log line on stdout"
	! grep -Eq "$server_line" <<<"$err"; ok $? "no server log line on stderr without -v"
	[ -z "$(grep -E "$server_line" <<<"$err$text")" ] ||
		grep -E "$server_line" <<<"$err$text" | sed 's/^/#   /'

	# The summary: after the last test's section, a header and one line per test run.
	summary=$(awk '/^summary$/ { on = 1; next } on' <<<"$text")
	children=$(grep -c '^=== ' <<<"$text")
	tests=$(grep -o '^[a-z0-9]\+' <<<"$summary" | paste -sd ' ')
	[ "$tests" = "cpu mem disk tcp udp rr crr http" ] && [ "$children" -eq 8 ]
	ok $? "summary has one line per test, in order ($tests; $children sections)"
	grep -v '^[a-z0-9]' <<<"$summary" | grep -qv '^  '
	[ $? -ne 0 ]; ok $? "summary: what does not fit a test's line is indented under it"
	[ "$(tail -1 <<<"$text")" = "$(tail -1 <<<"$summary")" ]; ok $? "the summary ends the output"
	for pair in cpu:rsa2048.sign mem:memcpy.bandwidth disk:reads.rate tcp:receiver.bitrate \
		udp:receiver.pps rr:transactions.rate crr:connections.rate http:requests.rate; do
		t=${pair%%:*} m=${pair#*:}
		# "tcp   ok   receiver.bitrate 37.6 Gbit/s ...": the figure with its unit
		grep -Eq "^$t +ok +(.*, )?$m [0-9.]+[kMG]? [A-Za-z/%]+" <<<"$summary"
		ok $? "summary: $t ok with $m"
	done
	sed 's/^/#   /' <<<"$summary"

	# (test_history.sh: the rest of the database's commands, on an imported suite)
	COLUMNS=80 "$bp" show "$sid" | cmp -s - "$tap_tmp/run80.txt"
	ok $? "show $sid: the run's text byte for byte"
	"$bp" show "$sid" --json >"$tap_tmp/run.json"
	[ "$(q "SELECT COUNT(*) FROM results WHERE parent = $sid")" = "$children" ] &&
		[ "$(jq '.results | length' "$tap_tmp/run.json")" = "$children" ]
	ok $? "each of its $children tests saved as a child of $sid"
	kid=$(q "SELECT id FROM results WHERE parent = $sid AND test = 'cpu'")
	"$bp" show "$kid" >"$tap_tmp/kid.txt" && grep -q 'sha256' "$tap_tmp/kid.txt"
	ok $? "show of a child: its text"
	"$bp" show "$kid" --json | jq -e --argjson d "$(jq -c '.results[] | select(.test == "cpu")' \
		"$tap_tmp/run.json")" '. == $d' >/dev/null; ok $? "show --json of a child: its document in the suite's"
fi

if timed; then
	# With -v the server's lines come on stderr, marked, and stdout stays a clean document.
	# at an instant 1.5 s ahead (--start-at): the suite's first test starts there
	at=$(awk -v t="$EPOCHREALTIME" 'BEGIN { printf "%.6f", t + 1.5 }')
	expect_exit 0 "run --json -v --start-at (1.5 s ahead)" "$bp" run --json -v --start-at "$at"
	json=$out
	jq -e --argjson at "$at" '(.env.start.at_epoch_s - $at | fabs) < 1e-5 and
		.env.start.actual_epoch_s >= $at' <<<"$json" >/dev/null
	ok $? "run started at the instant ($(jq -c '.env.start | {at, late_ms}' <<<"$json"))"
	grep -Eq 'server: listening on 127\.0\.0\.1:[0-9]+' <<<"$err"; ok $? "-v shows the server's log"
	grep -Eq 'server: 127\.0\.0\.1:[0-9]+: tcp upload, 2 streams' <<<"$err"
	ok $? "-v shows the server's line for the tcp test"
	jq -e . <<<"$json" >/dev/null; ok $? "stdout is one JSON document"
	# Without --peer the network steps measure this machine over loopback and say so; the
	# board steps do not (test_run_peer.sh: with --peer, none does).
	jq -e '[.results[] | select(.test | test("^(tcp|udp|rr|crr|http)$")) |
		([.warnings[]?.code] | index("loopback") != null) and (.params.client // "127.0.0.1") == "127.0.0.1"] |
		length == 5 and all' <<<"$json" >/dev/null &&
		jq -e '[.results[] | select(.test | test("^(cpu|mem|disk)$")) | [.warnings[]?.code] | index("loopback") == null] | all' \
		<<<"$json" >/dev/null
	ok $? "the five network steps say loopback, the board steps do not"

	# Each side's CPU: the client sends over loopback (its sends also run the receive path in
	# the kernel), the server's MSG_TRUNC receives are cheap, so the two figures differ; and
	# their sum over the test's span is what the process used over the child (set-up included:
	# within 15 %).
	for t in tcp udp; do
		c=$(jq -c --arg t "$t" '.results[] | select(.test == $t) | .cpu' <<<"$json")
		secs=$(jq -r --arg t "$t" '.results[] | select(.test == $t) | .params.time' <<<"$json")
		echo "# $t cpu: $c"
		jq -e '.local.total_percent != .remote.total_percent' <<<"$c" >/dev/null
		ok $? "$t: local and remote CPU are not the same figure"
		jq -e --argjson s "$secs" '((.local.total_percent + .remote.total_percent) / 100 * $s) as $sides
			| (.process.user_s + .process.system_s) as $p
			| $p > 0 and ($sides - $p | fabs) / $p < 0.15' <<<"$c" >/dev/null
		ok $? "$t: local + remote is the process's CPU (within 15 %)"
	done

	# http against the responder in this process: cpu.local is the client's threads alone, so
	# below what the whole process (client and responder, both busy) spent over the child.
	c=$(jq -c '.results[] | select(.test == "http") | .cpu' <<<"$json")
	echo "# http cpu: $c"
	jq -e '(.local.user_s + .local.system_s) as $l | (.process.user_s + .process.system_s) as $p
		| $l > 0 and $p > 0 and $l < 0.9 * $p' <<<"$c" >/dev/null
	ok $? "http: cpu.local is the client's own, below the process's (responder included)"
fi

tap_done
