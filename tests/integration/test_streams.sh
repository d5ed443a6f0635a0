#!/usr/bin/env bash
# Per-stream figures (-P N) on loopback: boardperf against its own server in every
# direction, tcp and udp, and against stock iperf3 both ways. Ground truth that load cannot
# move: the streams' bytes add up to the totals exactly, on each side, at the end and in
# every interval; the ids are iperf3's; every TCP sender reports its cwnd and rtt; and the
# per-stream bytes equal those stock iperf3 prints for the same streams in its own -J.
# Timed section (tap.sh, "Parts"): a stock iperf3 client against boardperf serve, whose check
# holds each stream's received bytes to >= 90 % of its sent (a loaded machine leaves more in
# flight at the end), with that run's other checks (~6 s); everything else is plain.
# Usage: [BP_PART=all|plain|timed] test_streams.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 2; port=$BP_PORT  # port, port + 1 (tap.sh)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tap_tmp"; }
trap cleanup EXIT

# start_server PORT: boardperf serve in the background, ready when it logs "listening".
start_server() {
	local log="$tap_tmp/serve-$1.log"
	"$bp" serve -p "$1" --idle-timeout 3 2>"$log" &
	pids+=($!)
	for _ in $(seq 50); do grep -qs listening "$log" && return 0; sleep 0.1; done
	return 1
}

# streams_add_up JSON PREFIX DIR: per-stream sums equal the totals of that direction, at the
# end and in every interval, for each side (exactly: both come from the same counters).
streams_add_up() {
	jq -e --arg p "$2" --arg d "$3" '
		def m($n): [.metrics[] | select(.name == $p + $n)][0].value;
		def per($s; $k): [.streams[] | select(.direction == $d) | .[$s][$k]] | add;
		(per("sender"; "bytes") == m("sender.bytes")) and
		(per("receiver"; "bytes") == m("receiver.bytes")) and
		([.intervals[] | . as $iv |
		  ([$iv.streams[] | select(.direction == $d) | .sender.bytes] | add) ==
		      $iv.metrics[$p + "sender.bytes"] and
		  ([$iv.streams[] | select(.direction == $d) | .receiver.bytes] | add) ==
		      $iv.metrics[$p + "receiver.bytes"]] | all) and
		(.intervals | length > 0)' <<<"$1" >/dev/null
}
# ids_are JSON IDS...: the streams' ids in order.
ids_are() {
	local want
	want=$(printf '%s,' "${@:2}")
	[ "$(jq -r '[.streams[].id | tostring] | join(",")' <<<"$1")," = "$want" ]
}
# tcp_info_known JSON: every TCP sender, at the end and in each interval, has cwnd and rtt.
tcp_info_known() {
	jq -e '([.streams[].sender | .snd_cwnd > 0 and .rtt > 0 and .rttvar >= 0 and .pmtu > 0]
		| all) and ([.intervals[].streams[].sender | .snd_cwnd > 0 and .rtt > 0] | all)' \
		<<<"$1" >/dev/null
}

start_server "$port"; ok $? "server listens on $port"

if plain; then
	# Counts, ids and TCP_INFO, not rates: each stream paced (-b) so that the runs leave the
	# CPU to the tests beside them (unpaced, streams took ~24 CPU-s in ASan).
	for mode in "" "-R"; do
		what="tcp -P 4 ${mode:-upload}"
		expect_exit 0 "$what" "$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -P 4 -b 250M $mode --json
		d=up; [ "$mode" = "-R" ] && d=down
		ids_are "$out" 1 3 4 5; ok $? "$what: ids 1,3,4,5"
		streams_add_up "$out" "" "$d"; ok $? "$what: per-stream bytes add up to each side's totals, in total and per interval"
		tcp_info_known "$out"; ok $? "$what: every sender has cwnd, rtt, rttvar and pmtu"
		jq -e '[.streams[] | .sender.retransmits >= 0] | all' <<<"$out" >/dev/null
		ok $? "$what: every sender counts its retransmits"
	done

	expect_exit 0 "tcp --bidir -P 4" "$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -P 4 -b 250M --bidir --json
	ids_are "$out" 1 3 4 5 6 7 8 9; ok $? "--bidir: ids 1,3,4,5 up and 6,7,8,9 down"
	jq -e '[.streams[].direction] == ["up","up","up","up","down","down","down","down"]' \
		<<<"$out" >/dev/null; ok $? "--bidir: directions"
	streams_add_up "$out" up. up && streams_add_up "$out" down. down
	ok $? "--bidir: per-stream bytes add up in both directions"
	tcp_info_known "$out"; ok $? "--bidir: every sender has cwnd and rtt (the server's too)"

	# Text: one row per stream and a [SUM] that repeats the totals; -v adds every interval.
	expect_exit 0 "tcp -P 4 text" "$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -P 4 -b 250M
	rows=$(grep -cE '^\[  [1345]\] ' <<<"$out"); sums=$(grep -c '^\[SUM\]' <<<"$out")
	[ "$rows" -eq 4 ] && [ "$sums" -eq 1 ]; ok $? "text: 4 stream rows and one [SUM] ($rows, $sums)"
	expect_exit 0 "tcp -P 4 -v text" "$bp" tcp -c 127.0.0.1 -p "$port" -t 2 -P 4 -b 250M -v
	sums=$(grep -c '^\[SUM\]' <<<"$out")
	[ "$sums" -ge 3 ]; ok $? "-v: a [SUM] per interval as well ($sums)"
	expect_exit 0 "tcp -P 1 text" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -b 1G
	! grep -q '^\[ID\]' <<<"$out"; ok $? "-P 1: no per-stream table (the totals are the stream)"

	for mode in "" "-R"; do
		what="udp -P 4 ${mode:-upload}"
		expect_exit 0 "$what" "$bp" udp -c 127.0.0.1 -p "$port" -t 2 -P 4 -b 20M $mode --json
		d=up; [ "$mode" = "-R" ] && d=down
		ids_are "$out" 1 3 4 5; ok $? "$what: ids 1,3,4,5"
		streams_add_up "$out" "" "$d"; ok $? "$what: per-stream bytes add up to the totals"
		jq -e 'def m($n): [.metrics[] | select(.name == $n)][0].value;
			([.streams[].sender.packets] | add) == m("sender.packets") and
			([.streams[].receiver.packets] | add) == m("receiver.packets") and
			([.streams[].receiver.lost_packets] | add) == m("lost.packets") and
			([.streams[].receiver.jitter >= 0] | all)' <<<"$out" >/dev/null
		ok $? "$what: per-stream datagrams and losses add up to the totals"
	done
fi

# Stock iperf3 as the server: what it measured per stream (its -J) is what we show.
if ! command -v iperf3 >/dev/null; then
	plain && skip "against iperf3 -s" "iperf3 not installed"
	timed && skip "iperf3 client against boardperf serve" "iperf3 not installed"
	tap_done; exit
fi
if plain; then
	iport=$((port + 1))
	for mode in "" "-R"; do
		what="--iperf3 -P 4 ${mode:-upload}"
		iperf3 -s -p "$iport" -1 -J >"$tap_tmp/iperf3s.json" 2>&1 &
		ip=$!
		for _ in $(seq 50); do ss -ltn "sport = :$iport" | grep -q LISTEN && break; sleep 0.1; done
		expect_exit 0 "$what" "$bp" tcp --iperf3 -c 127.0.0.1 -p "$iport" -t 2 -P 4 -b 250M $mode --json
		wait "$ip"
		# iperf3's server lists its streams in the order they connected, as ours are.
		side=receiver; [ "$mode" = "-R" ] && side=sender
		theirs=$(jq -c --arg s "$side" '[.end.streams[][$s].bytes]' "$tap_tmp/iperf3s.json")
		ours=$(jq -c --arg s "$side" '[.streams[][$s].bytes]' <<<"$out")
		[ "$theirs" = "$ours" ] && [ "$ours" != "[]" ]
		ok $? "$what: each stream's $side bytes are iperf3's own ($ours vs $theirs)"
		jq -e 'def m($n): [.metrics[] | select(.name == $n)][0].value;
			([.streams[].sender.bytes] | add) == m("sender.bytes") and
			([.streams[].receiver.bytes] | add) == m("receiver.bytes")' <<<"$out" >/dev/null
		ok $? "$what: per-stream bytes add up to the totals"
	done
fi

if timed; then
	# A stock iperf3 client against boardperf serve: it prints our per-stream results beside
	# its own, paired by stream id; ours must be there for every stream and add up.
	for mode in "" "-R"; do
		what="iperf3 -c -P 4 ${mode:-upload} against boardperf serve"
		expect_exit 0 "$what" iperf3 -c 127.0.0.1 -p "$port" -t 2 -P 4 $mode -J
		jq -e '(.end.streams | length) == 4 and
			([.end.streams[].receiver.bytes] | add) == .end.sum_received.bytes and
			([.end.streams[].sender.bytes] | add) == .end.sum_sent.bytes and
			([.end.streams[] | .receiver.bytes > 0 and .receiver.bytes <= .sender.bytes and
			  .receiver.bytes >= .sender.bytes * 0.9] | all)' <<<"$out" >/dev/null
		ok $? "$what: 4 streams, each received at most what was sent and close to it"
	done
	if [ "$mode" = "-R" ]; then
		jq -e '[.end.streams[].sender.retransmits >= 0] | all' <<<"$out" >/dev/null
		ok $? "iperf3 -R: our server's per-stream retransmits reach iperf3"
	fi
fi

tap_done
