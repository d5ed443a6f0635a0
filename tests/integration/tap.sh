# TAP helpers for integration scripts (sourced). Each check prints "ok N - what".
tap_n=0
tap_failed=0

ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() { # skip DESCRIPTION REASON: a check that could not run here, counted as skipped
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# Every rate of a tcp/udp result, in each interval and in the totals ("P.bitrate" for
# P = sender, receiver, up.sender, ...), must be its bytes ("P.bytes") * 8 over its own span
# ("P.span", ns) within 0.5 %. Prints how many rates it checked and the ones that fail.
rates_jq='
def rates(where):
	. as $m | [keys[] | select(endswith(".bitrate")) | rtrimstr(".bitrate") as $p
		| {where: where, name: $p, rate: $m[$p + ".bitrate"], bytes: $m[$p + ".bytes"],
		   span: $m[$p + ".span"]}
		| .ok = ((.bytes | type) == "number" and (.span | type) == "number" and .span > 0
			 and ((.rate - .bytes * 8 / (.span / 1e9)) | fabs) <= 0.005 * .rate)];
[((.metrics // []) | map({(.name): .value}) | add // {} | rates("totals")),
 ((.intervals // []) | to_entries[] | .key as $i | .value.metrics | rates("interval \($i)"))]
| flatten | {n: length, bad: map(select(.ok | not) | "\(.where) \(.name): \(.rate) bit/s vs \(.bytes) B over \(.span) ns")}
'

# check_rates JSON WHAT: the check above on one result (a result without a single rate
# passes only when it carries an error: something must have been checked).
check_rates() {
	local r n bad
	# jq reads empty input as no values and succeeds: an empty result is no result
	r=$(jq -c "$rates_jq" <<<"$1" 2>/dev/null) && [ -n "$r" ] ||
		{ ok 1 "$2: rates over their spans (no JSON)"; return; }
	n=$(jq -r .n <<<"$r"); bad=$(jq -r '.bad[]' <<<"$r")
	[ -z "$bad" ] && { [ "$n" -gt 0 ] || jq -e .error <<<"$1" >/dev/null; }
	ok $? "$2: every rate is bytes*8 over its own span ($n checked)"
	[ -z "$bad" ] || printf '#   %s\n' "${bad//$'\n'/$'\n#   '}"
}

# expect_exit WANT DESCRIPTION CMD...: runs CMD, stores stdout/stderr in $out/$err. A
# boardperf tcp or udp result in JSON gets check_rates as well.
expect_exit() {
	local want=$1 what=$2 got
	shift 2
	out=$("$@" 2>"$tap_tmp/stderr") && got=0 || got=$?
	err=$(cat "$tap_tmp/stderr")
	[ "$got" -eq "$want" ]
	ok $? "$what (exit $got, want $want)"
	[ "$got" -eq "$want" ] || printf '#   stderr: %s\n' "${err//$'\n'/$'\n#   '}"
	if [ -n "$out" ] && jq -e '.schema == "boardperf/1" and (.test == "tcp" or .test == "udp")' \
		<<<"$out" >/dev/null 2>&1; then
		check_rates "$out" "$what"
	fi
}

# wait_log FILE TEXT: true once FILE holds TEXT (a server's log line), within 10 s.
wait_log() { for _ in $(seq 100); do grep -qs "$2" "$1" && return 0; sleep 0.1; done; return 1; }
# raw_send FD FORMAT ARGS...: printf to a socket the test opened on FD (exec N<>/dev/tcp/...),
# in a subshell that ignores SIGPIPE: a server that closes on bad bytes before the write
# (what some of these tests provoke) must fail that write, not kill the test script.
raw_send() { local fd=$1; shift; ( trap '' PIPE; printf "$@" >&"$fd" ) 2>/dev/null; }

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

tap_tmp=$(mktemp -d)
trap 'rm -rf "$tap_tmp"' EXIT
# Every result a command prints is saved (README, "Results history"): into this test's own
# folder, never the real home's database.
export XDG_DATA_HOME="$tap_tmp/data"
