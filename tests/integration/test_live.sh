#!/usr/bin/env bash
# Live output (issue 15, item 7): interval lines arrive as each interval ends, not all at the
# end; --json-stream prints JSON Lines (start, interval..., error?, end) as iperf3 3.17 does.
# Every line is stamped with its arrival time by a reader on the other end of a pipe (a pipe,
# not a terminal: stdout is then fully buffered, so only a flush per line gets it through).
# tcp, tcp -R, udp, rr, crr and http against `serve` on loopback, disk on a small file set.
# Timed sections (tap.sh, "Parts"): every 3 s run stamped through the pipe, each held to its
# first interval line arriving >= 1.5 s before the end; the checks on what those runs printed
# (interval lines under one header, events in order, live against end intervals) come from
# the same runs and go with them. Plain: the end document's keys against --json (a 1 s run
# of each form), -i 0, a refused connection, --json-stream's exclusions, cpu.
# Usage: [BP_PART=all|plain|timed] test_live.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
[ -n "${EPOCHREALTIME:-}" ] || { echo "1..0 # SKIP needs bash 5 (EPOCHREALTIME)"; exit 0; }

bp_ports 3; sport=$BP_PORT  # sport, hport, cport (closed) (tap.sh)
hport=$((sport + 1))
"$bp" serve -p "$sport" --http "$hport" --idle-timeout 3 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
for _ in $(seq 50); do grep -qs listening "$tap_tmp/serve.log" && break; sleep 0.1; done

# Each line prefixed with the time it arrived; then "TIME EOF" when the writer closed stdout
# (it exited). Bash's own clock (no date(1) per line), so that a slow reader on a busy
# machine neither delays the stamps nor makes a burst at the end look spread out.
export LC_ALL=C  # EPOCHREALTIME's decimal point
stamp() {
	local line
	while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done
	printf '%s EOF\n' "$EPOCHREALTIME"
}
# live NAME CMD...: runs CMD through the reader into $tap_tmp/NAME (stamped) and
# $tap_tmp/NAME.lines (as printed); rc is CMD's exit status.
live() {
	local name=$1
	shift
	"$@" 2>"$tap_tmp/$name.err" | stamp >"$tap_tmp/$name"
	rc=${PIPESTATUS[0]}
	grep -v ' EOF$' "$tap_tmp/$name" | cut -d' ' -f2- >"$tap_tmp/$name.lines"
}
# Seconds between the first line matching the ERE and the writer's end.
lead() {
	awk -v re="$2" '$0 ~ / EOF$/ { end = $1 } { t = $1; sub(/^[^ ]* /, "") }
		first == "" && $0 ~ re { first = t } END { if (first == "") print -1;
		else printf "%.2f\n", end - first }' "$1"
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# A text interval line: start and end in seconds, then the figures.
ivline='^ *[0-9]+\.[0-9][0-9] +[0-9]+\.[0-9][0-9]  '

# text NAME CMD...: the lines arrive live, the table is not printed a second time.
text() {
	local name=$1 n heads early
	shift
	live "$name" "$@"
	n=$(grep -cE "$ivline" "$tap_tmp/$name.lines")
	heads=$(grep -cE '^ *start +end ' "$tap_tmp/$name.lines")
	early=$(lead "$tap_tmp/$name" "$ivline")
	# the summary: the metric table, or the kind's own (disk's sysbench blocks)
	[ "$rc" = 0 ] && [ "$n" -ge 3 ] && [ "$n" -le 4 ] && [ "$heads" = 1 ] &&
		grep -qE '^(metric |File operations:$)' "$tap_tmp/$name.lines"
	ok $? "$name text: $n interval lines under one header, then the summary (exit $rc)"
	ge "$early" 1.5
	ok $? "$name text: the first interval line came ${early} s before the end (>= 1.5)"
}

# stream NAME CMD...: JSON Lines, live, as many intervals as the end document has.
stream() {
	local name=$1 events nlive nend early
	shift
	live "$name" "$@" --json-stream
	jq -e . "$tap_tmp/$name.lines" >/dev/null &&
		[ "$(wc -l <"$tap_tmp/$name.lines")" = "$(jq -c . "$tap_tmp/$name.lines" | wc -l)" ]
	ok $? "$name --json-stream: every line is one JSON object"
	events=$(jq -rs 'map(.event) | join(",")' "$tap_tmp/$name.lines")
	[[ $events =~ ^(start,)?(interval,)+end$ ]] && [ "$rc" = 0 ]
	ok $? "$name --json-stream: events in order (${events//interval,interval,/interval,...,}; exit $rc)"
	nlive=$(jq -s '[.[] | select(.event == "interval")] | length' "$tap_tmp/$name.lines")
	nend=$(jq -s '[.[] | select(.event == "end")][0].data.intervals | length' \
		"$tap_tmp/$name.lines")
	[ "$nlive" -ge 3 ] && [ "$nlive" = "$nend" ]
	ok $? "$name --json-stream: $nlive interval lines, $nend intervals in the end document"
	early=$(lead "$tap_tmp/$name" '"event":"interval"')
	ge "$early" 1.5
	ok $? "$name --json-stream: the first interval came ${early} s before the end (>= 1.5)"
	jq -se '[.[] | select(.event == "interval") | .data | (.start | type == "number") and
		(.end > .start) and (.metrics | type == "object" and length > 0)] | all' \
		"$tap_tmp/$name.lines" >/dev/null
	ok $? "$name --json-stream: each interval has start, end and metrics"
}

# same_keys NAME CMD...: the end document of CMD --json-stream has the keys CMD --json
# prints, in its order.
same_keys() {
	local name=$1 want got
	shift
	want=$("$@" --json 2>/dev/null | jq -c keys_unsorted)
	got=$("$@" --json-stream 2>/dev/null |
		jq -sc '[.[] | select(.event == "end")][0].data | keys_unsorted')
	[ -n "$want" ] && [ "$want" = "$got" ]
	ok $? "$name: the end document has the keys of --json ($got)"
}

c=(-c 127.0.0.1 -p "$sport")
u=http://127.0.0.1:$hport/1k
mkdir -p "$tap_tmp/disk-dir"
d=(--dir "$tap_tmp/disk-dir" --size 8M --files 8)
if timed; then
	text tcp "$bp" tcp "${c[@]}" -t 3 -i 1
	stream tcp "$bp" tcp "${c[@]}" -t 3 -i 1
	# The live line is what this side knows then: with -R it received, the sender's figures come
	# from the server at the end, and the final intervals have both.
	jq -se '[.[] | select(.event == "interval") | .data.metrics] | all(has("sender.bitrate"))' \
		"$tap_tmp/tcp.lines" >/dev/null
	ok $? "tcp: a sending client's live lines have its sender figures"
	stream tcp-R "$bp" tcp "${c[@]}" -t 3 -i 1 -R
	jq -se '([.[] | select(.event == "interval") | .data.metrics] |
			all(has("receiver.bitrate") and (has("sender.bitrate") | not))) and
		([.[] | select(.event == "end")][0].data.intervals |
			all(.metrics | has("receiver.bitrate") and has("sender.bitrate")))' \
		"$tap_tmp/tcp-R.lines" >/dev/null
	ok $? "tcp -R: live lines have what this side received; the end document both sides"

	text udp "$bp" udp "${c[@]}" -t 3 -i 1 -b 10M
	stream udp "$bp" udp "${c[@]}" -t 3 -i 1 -b 10M
	stream udp-R "$bp" udp "${c[@]}" -t 3 -i 1 -b 10M -R
	# iperf3's receiver line: jitter and lost of the datagrams expected, from its own counts.
	jq -se '[.[] | select(.event == "interval") | .data.metrics] |
		all(has("receiver.pps") and has("jitter") and has("lost") and has("loss.percent"))' \
		"$tap_tmp/udp-R.lines" >/dev/null
	ok $? "udp -R: live lines have packets/s, jitter, lost and loss percent"

	text rr "$bp" rr "${c[@]}" -t 3 -i 1
	stream rr "$bp" rr "${c[@]}" -t 3 -i 1
	stream crr "$bp" crr "${c[@]}" -t 3 -i 1 -P 2

	text http "$bp" http "$u" -t 3 -i 1 -c 4
	stream http "$bp" http "$u" -t 3 -i 1 -c 4

	text disk "$bp" disk "${d[@]}" -t 3 -i 1
	stream disk "$bp" disk "${d[@]}" -t 3 -i 1
fi

if plain; then
	same_keys tcp "$bp" tcp "${c[@]}" -t 1
	same_keys rr "$bp" rr "${c[@]}" -t 1
	same_keys http "$bp" http "$u" -t 1 -c 4
	same_keys disk "$bp" disk "${d[@]}" -t 1

	# -i 0: no interval lines, as iperf3; the text is today's (the table at the end, once).
	live i0 "$bp" tcp "${c[@]}" -t 1 -i 0 --json-stream
	[ "$rc" = 0 ] && [ "$(jq -rs 'map(.event) | join(",")' "$tap_tmp/i0.lines")" = start,end ]
	ok $? "tcp -i 0 --json-stream: start and end only (exit $rc)"

	# A failure: the error, then the document with it; exit 1, one line on stderr.
	cport=$((sport + 2))  # reserved, never listened on
	live refused "$bp" tcp -c 127.0.0.1 -p "$cport" -t 1 --json-stream
	[ "$rc" = 1 ] && [ "$(jq -rs 'map(.event) | join(",")' "$tap_tmp/refused.lines")" = start,error,end ] &&
		jq -se '.[1].data.code == "connect-refused" and .[2].data.error == .[1].data' \
			"$tap_tmp/refused.lines" >/dev/null && [ "$(wc -l <"$tap_tmp/refused.err")" = 1 ]
	ok $? "closed port --json-stream: start, error, end with that error (exit $rc)"

	# --json-stream excludes --json and --csv: one line, exit 2.
	for other in --json --csv; do
		expect_exit 2 "--json-stream $other" "$bp" tcp "${c[@]}" --json-stream "$other"
		[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == *"--json-stream and $other exclude"* ]]
		ok $? "--json-stream $other: one line naming both ($err)"
	done
	# cpu has no intervals: start and end, the end being the --json document's shape.
	live cpu "$bp" cpu --algo sha256 -t 0.2 --json-stream
	[ "$rc" = 0 ] && [ "$(jq -rs 'map(.event) | join(",")' "$tap_tmp/cpu.lines")" = start,end ]
	ok $? "cpu --json-stream: start and end (exit $rc)"
fi
tap_done
