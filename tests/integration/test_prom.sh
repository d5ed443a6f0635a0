#!/usr/bin/env bash
# Prometheus, the real thing (docs/results.md, "Prometheus"): `export --openmetrics` and scrapes of
# `serve --metrics` in both formats through Debian's promtool; the server's byte counters
# against what real tcp tests on 127.0.0.1 report (receiver.bytes, sender.bytes: exact);
# the tests-run and refusal counts; the listener's limits; and a real prometheus started
# here on loopback (its own config, TSDB and free port, a 1 s scrape interval) scraping
# serve --metrics, asked through its HTTP API for the tests-run count and a figure
# boardperf measured. Skips what needs promtool or prometheus when they are missing.
# Timed section (tap.sh, "Parts"): half a request closed by the idle timeout (3 s) within 6 s,
# against the first server (~4 s); everything else is plain.
# Usage: [BP_PART=all|plain|timed] test_prom.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 4; port=$BP_PORT  # port .. port + 2 for serve, port + 3 prometheus (tap.sh)
db=$tap_tmp/results.db
pids=()
prom_pid=
cleanup() {
	[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tap_tmp"
}
trap cleanup EXIT

have_promtool=0; command -v promtool >/dev/null && have_promtool=1
have_prometheus=0; command -v prometheus >/dev/null && have_prometheus=1
metric() { jq -r --arg n "$1" '[.metrics[] | select(.name == $n)][0].value // empty' <<<"$2"; }
# sample TEXT NAME LABELS: the value of the sample NAME{LABELS} (labels exactly as written,
# escapes and all; no labels: LABELS empty).
sample() {
	local key=$2${3:+\{$3\}} line
	while IFS= read -r line; do
		[ "${line% *}" = "$key" ] && { echo "${line##* }"; return; }
	done <<<"$1"
}
# near A B: |A - B| <= 1e-9 |B| (a double written with 15-17 digits and read back).
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
	exit !(a != "" && d <= 1e-9 * m) }'; }

# promtool_clean TEXT WHAT [openmetrics]: promtool check metrics finds nothing. Debian 12's
# promtool (2.42) reads only the text format 0.0.4: in OpenMetrics a counter family F has
# its HELP under F and its sample F_total, which it reports as "F_total no help text". For
# the OpenMetrics form exactly those lines are let through, and only for a family that has
# its TYPE counter and HELP lines; anything else (and a parse error, exit 1) fails.
promtool_clean() {
	local text=$1 what=$2 om=${3:-} rc report bad
	report=$(promtool check metrics <<<"$text" 2>&1) && rc=0 || rc=$?
	bad=$report
	if [ -n "$om" ] && [ "$rc" -eq 3 ]; then
		bad=$(while IFS= read -r l; do
			f=${l% no help text}; f=${f%_total}
			if [ "$l" = "${f}_total no help text" ] &&
			   grep -qx "# TYPE $f counter" <<<"$text" && grep -q "^# HELP $f " <<<"$text"; then
				continue
			fi
			echo "$l"
		done <<<"$report")
	fi
	[ "$rc" -ne 1 ] && [ -z "$bad" ]
	ok $? "promtool check metrics: $what (exit $rc)"
	[ -z "$bad" ] || printf '#   %s\n' "${bad//$'\n'/$'\n#   '}"
}

# start_server PORT ARGS...: ready once it logs its metrics port, which it prints in $mport.
start_server() {
	local p=$1 log="$tap_tmp/serve-$1.log"
	shift
	"$bp" serve -p "$p" "$@" 2>"$log" &
	pids+=($!)
	for _ in $(seq 50); do
		mport=$(sed -n 's/.*metrics: listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
		[ -n "$mport" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- figures to export: a tcp test and a cpu run, saved with labels ---------------------
start_server "$port" --idle-timeout 3 --max-duration 4 --metrics 127.0.0.1:0 -v
ok $? "serve --metrics 127.0.0.1:0 listens (metrics on port ${mport:-none})"
if plain; then
	expect_exit 0 "tcp saved with --label prom-tcp" \
		"$bp" tcp -c 127.0.0.1 -p "$port" -t 1 --json --db "$db" --label prom-tcp
	up1=$out
	measured=$(metric receiver.bitrate "$up1")
	expect_exit 0 "cpu saved with --label 'prom \"cpu\"'" \
		"$bp" cpu -t 0.05 --algo sha256 --sizes 16,8192 --json --db "$db" --label 'prom "cpu"'
	cpu=$out

	# --- export --openmetrics ----------------------------------------------------------------
	expect_exit 0 "export --openmetrics" "$bp" export --openmetrics --db "$db"
	exported=$out
	[ "$(tail -n 1 <<<"$exported")" = "# EOF" ]; ok $? "the export ends with # EOF"
	got=$(sample "$exported" boardperf_receiver_bitrate_bytes_per_second \
		'test="tcp",label="prom-tcp"')
	near "$got" "$(awk -v v="$measured" 'BEGIN { printf "%.17g", v / 8 }')"
	ok $? "receiver.bitrate $measured bit/s exported as $got bytes/s"
	got=$(sample "$exported" boardperf_sha256_bytes_per_second \
		'test="cpu",label="prom \"cpu\"",block_size="8192"')
	near "$got" "$(metric sha256.8192 "$cpu")"
	ok $? "cpu's sha256.8192 as {block_size=\"8192\"}, the label's quotes escaped ($got)"
	t=$(sample "$exported" boardperf_result_timestamp_seconds 'test="tcp",label="prom-tcp"')
	now=$(date +%s)
	[ -n "$t" ] && [ "$t" -le "$now" ] && [ "$t" -ge $((now - 120)) ]
	ok $? "boardperf_result_timestamp_seconds of the tcp run is when it ran ($t, now $now)"
	if [ "$have_promtool" = 1 ]; then
		promtool_clean "$exported" "the export"
	else
		skip "promtool check metrics: the export" "promtool not installed (Debian: prometheus)"
	fi
	mkdir "$tap_tmp/textfile"
	expect_exit 0 "export -o DIR/boardperf.prom" \
		"$bp" export --openmetrics --db "$db" -o "$tap_tmp/textfile/boardperf.prom"
	[ "$(cat "$tap_tmp/textfile/boardperf.prom")" = "$exported" ] &&
		[ "$(ls -A "$tap_tmp/textfile")" = boardperf.prom ] &&
		[ "$(stat -c %a "$tap_tmp/textfile/boardperf.prom")" = 644 ]
	ok $? "-o: the same text, mode 644, no temporary file left beside it"
	expect_exit 0 "export --since 1m: only what is newer" \
		"$bp" export --openmetrics --db "$db" --since 1m
	[ "$out" = "$exported" ]; ok $? "--since 1m keeps the two fresh results"
	expect_exit 0 "export --since a future date" \
		"$bp" export --openmetrics --db "$db" --since 2099-01-01
	[ "$out" = "# EOF" ]; ok $? "--since after every result: no families, only # EOF"
	expect_exit 2 "export without --openmetrics" "$bp" export --db "$db"
	grep -q -- "--openmetrics" <<<"$err"; ok $? "the error names --openmetrics"
	expect_exit 2 "export --since yesterday" "$bp" export --openmetrics --db "$db" --since yesterday
	grep -q "'yesterday'" <<<"$err"; ok $? "the error names the value"
	expect_exit 1 "export from a database that does not exist" \
		"$bp" export --openmetrics --db "$tap_tmp/none.db"
	grep -q "none.db" <<<"$err" && [ ! -e "$tap_tmp/none.db" ]
	ok $? "the error names the file, and no database is created"
	expect_exit 1 "export -o into a missing folder" \
		"$bp" export --openmetrics --db "$db" -o "$tap_tmp/no/such/b.prom"
	grep -q "no/such/b.prom" <<<"$err"; ok $? "the error names the file"

	# --- serve --metrics: real tests against it, then its counters ---------------------------
	expect_exit 0 "tcp -R" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -R --json --no-save
	down=$out
	expect_exit 0 "tcp -P 2" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -P 2 --json --no-save
	up2=$out
	expect_exit 1 "tcp -t 6 refused by --max-duration 4" \
		"$bp" tcp -c 127.0.0.1 -p "$port" -t 6 --json --no-save
	scrape=$(curl -s --max-time 5 "http://127.0.0.1:$mport/metrics")
	want=$(( $(metric receiver.bytes "$up1") + $(metric receiver.bytes "$up2") ))
	got=$(sample "$scrape" boardperf_server_received_bytes_total 'test="tcp"')
	[ "$got" = "$want" ]
	ok $? "received bytes: the two uploads' receiver.bytes exactly ($got, want $want)"
	want=$(metric sender.bytes "$down")
	got=$(sample "$scrape" boardperf_server_sent_bytes_total 'test="tcp"')
	[ "$got" = "$want" ]; ok $? "sent bytes: the -R run's sender.bytes exactly ($got, want $want)"
	got=$(sample "$scrape" boardperf_server_tests_total 'test="tcp",outcome="ok"')
	[ "$got" = 3 ]; ok $? "three tcp tests ok ($got)"
	got=$(sample "$scrape" boardperf_server_tests_total \
		'test="tcp",outcome="refused",reason="max-duration"')
	[ "$got" = 1 ]; ok $? "one refused for max-duration ($got)"
	got=$(sample "$scrape" boardperf_server_connections_accepted_total)
	# control + one data connection each, two for -P 2, the refused one's control connection
	[ "$got" = 8 ]; ok $? "connections accepted: 8 ($got)"
	[ "$(sample "$scrape" boardperf_server_active_tests)" = 0 ]
	ok $? "no test running"
	if [ "$have_promtool" = 1 ]; then
		promtool_clean "$scrape" "a scrape in the text format 0.0.4"
		omscrape=$(curl -s --max-time 5 -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
			"http://127.0.0.1:$mport/metrics")
		promtool_clean "$omscrape" "a scrape in OpenMetrics" openmetrics
	else
		skip "promtool check metrics: a scrape in the text format 0.0.4" "promtool not installed"
		skip "promtool check metrics: a scrape in OpenMetrics" "promtool not installed"
	fi
	ctype=$(curl -s --max-time 5 -o /dev/null -w '%{content_type}' \
		-H 'Accept: application/openmetrics-text' "http://127.0.0.1:$mport/metrics")
	[ "$ctype" = "application/openmetrics-text; version=1.0.0; charset=utf-8" ]
	ok $? "Accept: application/openmetrics-text gets OpenMetrics ($ctype)"
	ctype=$(curl -s --max-time 5 -o /dev/null -w '%{content_type}' "http://127.0.0.1:$mport/metrics")
	[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ]; ok $? "*/* gets the text format ($ctype)"

	# --- the listener's limits -------------------------------------------------------------
	code() { curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }
	[ "$(code "http://127.0.0.1:$mport/")" = 404 ]; ok $? "GET / is 404"
	[ "$(code -X POST "http://127.0.0.1:$mport/metrics")" = 405 ]; ok $? "POST /metrics is 405"
	[ "$(code -H "X-Big: $(head -c 5000 /dev/zero | tr '\0' a)" "http://127.0.0.1:$mport/metrics")" = 431 ]
	ok $? "a 5 KB header is 431"
	answer=$(exec 3<>"/dev/tcp/127.0.0.1/$mport"; printf 'SSH-2.0-OpenSSH_9.2\r\n\r\n' >&3;
		timeout 5 head -c 12 <&3)
	[ "$answer" = "HTTP/1.1 400" ]; ok $? "not HTTP: 400 ($answer)"
	# Twenty idle connections: the oldest are shed, a scrape still gets through.
	for i in $(seq 20); do eval "exec $((i + 19))<>/dev/tcp/127.0.0.1/$mport"; done
	t0=$(date +%s%N)
	[ "$(code "http://127.0.0.1:$mport/metrics")" = 200 ]
	ok $? "a scrape beside 20 idle connections is answered ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
	for i in $(seq 20); do eval "exec $((i + 19))>&-"; done
	grep -q "metrics: 16 connections at once: the oldest shed" "$tap_tmp/serve-$port.log"
	ok $? "the shedding is logged"
fi
if timed; then
	# A slow client: half a request head, then nothing; the idle timeout (3 s) ends it.
	t0=$(date +%s)
	slow=$(exec 3<>"/dev/tcp/127.0.0.1/$mport"; printf 'GET /metr' >&3; timeout 10 cat <&3; echo "rc=$?")
	[ "$slow" = "rc=0" ] && [ $(( $(date +%s) - t0 )) -le 6 ]
	ok $? "half a request is closed by the idle timeout ($(( $(date +%s) - t0 )) s, $slow)"
fi

if plain; then
	expect_exit 1 "a second server on the same metrics port" \
		"$bp" serve -p "$((port + 2))" --metrics "127.0.0.1:$mport"
	grep -q "metrics: bind 127.0.0.1:$mport: Address already in use" <<<"$err"
	ok $? "the error names the address"
	expect_exit 2 "--metrics without a port" "$bp" serve -p "$((port + 2))" --metrics 127.0.0.1
	grep -q "'127.0.0.1': expected ADDR:PORT" <<<"$err"; ok $? "the error names the value"

	# --- the stored figures in a scrape (serve --db) and a real prometheus -------------------
	port2=$((port + 1))
	start_server "$port2" --metrics 127.0.0.1:0 --db "$db" -v
	ok $? "serve --metrics --db listens (metrics on port ${mport:-none})"
	scrape=$(curl -s --max-time 5 "http://127.0.0.1:$mport/metrics")
	got=$(sample "$scrape" boardperf_receiver_bitrate_bytes_per_second 'test="tcp",label="prom-tcp"')
	near "$got" "$(awk -v v="$measured" 'BEGIN { printf "%.17g", v / 8 }')"
	ok $? "the scrape carries the stored figures ($got bytes/s)"
	[ "$(sample "$scrape" boardperf_store_readable)" = 1 ]
	ok $? "boardperf_store_readable 1"
	expect_exit 0 "tcp against the second server" "$bp" tcp -c 127.0.0.1 -p "$port2" -t 1 --json --no-save

	if [ "$have_prometheus" = 1 ]; then
		pport=$((port + 3))
		prom_start "$pport" "127.0.0.1:$mport" boardperf
		query() { curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1"; }
		value() { query "$1" | jq -r '.data.result[0].value[1] // empty' 2>/dev/null; }
		tests=
		for _ in $(seq 60); do
			tests=$(value 'boardperf_server_tests_total{test="tcp",outcome="ok"}')
			[ -n "$tests" ] && break
			sleep 0.5
		done
		[ "$tests" = 1 ]; ok $? "prometheus (pid $prom_pid, port $pport) has the tests-run count: $tests"
		got=$(value 'boardperf_receiver_bitrate_bytes_per_second{label="prom-tcp",test="tcp"}')
		near "$got" "$(awk -v v="$measured" 'BEGIN { printf "%.17g", v / 8 }')"
		ok $? "prometheus has the measured receiver.bitrate: $got bytes/s ($measured bit/s)"
		got=$(value 'boardperf_server_received_bytes_total{test="tcp"}')
		[ -n "$got" ] && [ "$got" -gt 0 ]; ok $? "and the bytes received ($got)"
		health=$(curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/targets" |
			jq -r '.data.activeTargets[0] | "\(.health) \(.lastError)"')
		[ "$health" = "up " ]; ok $? "the target is up with no scrape error ($health)"
		grep -q "answered in OpenMetrics 1.0.0" "$tap_tmp/serve-$port2.log"
		ok $? "prometheus was answered in OpenMetrics"
		kill "$prom_pid"
		for _ in $(seq 100); do kill -0 "$prom_pid" 2>/dev/null || break; sleep 0.1; done
		! kill -0 "$prom_pid" 2>/dev/null; ok $? "prometheus stopped by its pid"
		wait "$prom_pid" 2>/dev/null
		prom_pid=
	else
		for w in "the tests-run count" "the measured receiver.bitrate" "the bytes received" \
			"the target is up" "answered in OpenMetrics" "stopped by its pid"; do
			skip "prometheus: $w" "prometheus not installed (Debian: prometheus)"
		done
	fi
fi

tap_done
