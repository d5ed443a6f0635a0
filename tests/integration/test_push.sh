#!/usr/bin/env bash
# export --push (docs/results.md, "A Pushgateway"): Debian's prometheus-pushgateway on
# loopback, one plain and one with TLS and basic authentication (its --web.config.file), a
# real prometheus scraping the plain one with honor_labels. Checked: every sample `export
# --openmetrics` writes is in the gateway's group {job, instance} with the same value; the
# instance defaults to the host's name; two boards keep two groups; a push with no figures
# empties its group (PUT replaces it whole); prometheus has a pushed figure under the
# board's instance; the gateway's 400 (a metric of another type in another group) is quoted;
# nothing listening, a listener that never answers (--timeout) and one that answers what is
# not HTTP are one-line errors; https: an unknown certificate refused, --cacert trusts it,
# 401 without user:password@, pushed with it, the password never shown; usage errors.
# Skips the gateway's checks when prometheus-pushgateway is missing, prometheus's when
# prometheus is. ~10 s.
# Usage: test_push.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 5; port=$BP_PORT  # gateway, TLS gateway, prometheus, a silent listener, a talker
gw=$port; tgw=$((port + 1)); pport=$((port + 2)); quiet=$((port + 3)); talker=$((port + 4))
db=$tap_tmp/results.db
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tap_tmp"
}
trap cleanup EXIT

# A store with two results: cpu with two labels (figures with a block_size label).
for label in push-a push-b; do
	"$bp" cpu --algo sha256 --sizes 64,1024 -t 0.1 --db "$db" --label "$label" -q >/dev/null 2>&1
done
expect_exit 0 "export --openmetrics of the store" "$bp" export --openmetrics --db "$db"
exported=$out

# --- usage errors, no gateway needed ------------------------------------------------------
expect_exit 2 "--push without a scheme" "$bp" export --push "127.0.0.1:$gw" --db "$db"
grep -q "^boardperf export: error: --push '127.0.0.1:$gw': expected http\[s\]://" <<<"$err"
ok $? "the error names the URL: $err"
expect_exit 2 "--push with a query" "$bp" export --push "http://127.0.0.1:$gw/?a=1" --db "$db"
expect_exit 2 "--push and -o" "$bp" export --push "http://127.0.0.1:$gw" -o "$tap_tmp/x.prom" \
	--db "$db"
expect_exit 2 "--job without --push" "$bp" export --openmetrics --job x --db "$db"
grep -q -- "--job applies to --push only" <<<"$err"; ok $? "the error says so: $err"
expect_exit 2 "--insecure with http://" "$bp" export --push "http://127.0.0.1:$gw" --insecure \
	--db "$db"
expect_exit 2 "--cacert that does not exist" "$bp" export --push "https://127.0.0.1:$tgw" \
	--cacert "$tap_tmp/none.pem" --db "$db"
grep -q -- "--cacert '$tap_tmp/none.pem': No such file or directory; expected a readable PEM file" \
	<<<"$err"; ok $? "the error names the file: $err"
expect_exit 2 "--instance ''" "$bp" export --push "http://127.0.0.1:$gw" --instance '' --db "$db"
expect_exit 2 "--timeout 0" "$bp" export --push "http://127.0.0.1:$gw" --timeout 0 --db "$db"

# --- one-line errors from what is not a gateway ----------------------------------------------
expect_exit 1 "nothing listening" "$bp" export --push "http://127.0.0.1:$quiet" --instance b \
	--db "$db"
grep -qx "boardperf export: error: push to http://127.0.0.1:$quiet/metrics/job/boardperf/instance/b: .*Connection refused.*" \
	<<<"$err"; ok $? "it names the group's URL and the refusal: $err"
# a listener that takes the connection and never answers; one that answers an SSH banner
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); time.sleep(30)' "$quiet" &
pids+=($!)
python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(30)
c, _ = s.accept(); c.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"); c.close()' "$talker" &
pids+=($!)
for p in "$quiet" "$talker"; do
	for _ in $(seq 100); do ss -Hltn "sport = :$p" | grep -q . && break; sleep 0.05; done
done
expect_exit 1 "a listener that never answers, --timeout 0.5" timeout 20 "$bp" export --push \
	"http://127.0.0.1:$quiet" --instance b --timeout 0.5 --db "$db"
grep -q "push to http://127.0.0.1:$quiet/.*: no answer within --timeout 0.5 s$" <<<"$err"
ok $? "the timeout is named: $err"
expect_exit 1 "an answer that is not HTTP" timeout 20 "$bp" export --push \
	"http://127.0.0.1:$talker" --instance b --db "$db"
grep -q "push to http://127.0.0.1:$talker/.*: the answer is not HTTP" <<<"$err"
ok $? "it says so: $err"

if ! command -v prometheus-pushgateway >/dev/null; then
	for w in "push to a gateway" "every exported sample in the group" "the default instance" \
		"two boards, two groups" "an empty push empties the group" "prometheus" \
		"the gateway's 400 quoted" "https" "basic authentication"; do
		skip "$w" "prometheus-pushgateway not installed (Debian: prometheus-pushgateway)"
	done
	tap_done
	exit
fi

# gateway_up PORT LOG: wait until the gateway on PORT answers (any status), up to 10 s
gateway_up() {
	for _ in $(seq 100); do
		curl -sk --max-time 1 -o /dev/null "$3://127.0.0.1:$1/-/ready" && return 0
		grep -q "level=error" "$2" && return 1
		sleep 0.1
	done
	return 1
}
prometheus-pushgateway --web.listen-address="127.0.0.1:$gw" --persistence.file= >"$tap_tmp/gw.log" 2>&1 &
pids+=($!)
gateway_up "$gw" "$tap_tmp/gw.log" http; ok $? "the gateway is up on port $gw"

# samples TEXT [JOB INSTANCE]: "name{sorted labels} value" per sample; with JOB, only the
# gateway's samples of that group, its job and instance labels taken off
samples() {
	python3 - "$@" <<-'EOF'
	import re, sys
	text, job, inst = sys.argv[1], (sys.argv[2:] + [None, None])[0], (sys.argv[2:] + [None, None])[1]
	for line in text.splitlines():
	    if not line or line.startswith("#"):
	        continue
	    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
	    labels = dict(re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
	    if job is not None:
	        if labels.pop("job", None) != job or labels.pop("instance", None) != inst:
	            continue
	        if not m.group(1).startswith("boardperf_"):
	            continue
	    print(m.group(1) + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) +
	          "} " + repr(float(m.group(4))))
	EOF
}
scrape() { curl -s --max-time 5 "http://127.0.0.1:$gw/metrics"; }

expect_exit 0 "export --push to the gateway" "$bp" export --push "http://127.0.0.1:$gw" \
	--instance board-a --db "$db"
# the figures it names are the export's samples less each result's timestamp
nfig=$(grep -v '^#' <<<"$exported" | grep -vc '^boardperf_result_timestamp_seconds')
grep -qx "boardperf export: $nfig figures of 2 results (board, label, test) pushed to http://127.0.0.1:$gw/metrics/job/boardperf/instance/board-a (HTTP 200)" \
	<<<"$err"; ok $? "it says what went where, $nfig figures as the export has: $err"
want=$(samples "$exported" | sort)
got=$(samples "$(scrape)" boardperf board-a | sort)
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "every exported sample is in the group {job=boardperf, instance=board-a}, same value ($(wc -l <<<"$want") samples$(diff <(echo "$want") <(echo "$got") | head -4 | tr '\n' ' '))"

expect_exit 0 "export --push without --instance" "$bp" export --push "http://127.0.0.1:$gw/" \
	--db "$db"
host=$(hostname)
got=$(samples "$(scrape)" boardperf "$host" | sort)
[ "$got" = "$want" ]; ok $? "the instance defaults to the host's name ($host)"
expect_exit 0 "a second board" "$bp" export --push "http://127.0.0.1:$gw" --instance board-b \
	--job bench/nightly --db "$db"
groups=$(curl -s --max-time 5 "http://127.0.0.1:$gw/api/v1/metrics" |
	jq -c '[.data[].labels | "\(.job)/\(.instance)"] | sort')
[ "$groups" = "$(jq -nc --arg h "$host" '["boardperf/\($h)", "boardperf/board-a",
	"bench/nightly/board-b"] | sort')" ]
ok $? "two boards and the host keep three groups, a job with '/' through @base64 ($groups)"
expect_exit 0 "a push with no figures (--since a future date)" "$bp" export --push \
	"http://127.0.0.1:$gw" --instance board-b --job bench/nightly --since 2099-01-01 --db "$db"
grep -q "warning: no figures to push since --since: the group http://127.0.0.1:$gw/metrics/job@base64/YmVuY2gvbmlnaHRseQ/instance/board-b is now empty (HTTP 200)" <<<"$err"
ok $? "it warns: $err"
[ -z "$(samples "$(scrape)" bench/nightly board-b)" ] && [ -n "$(samples "$(scrape)" boardperf board-a)" ]
ok $? "board-b's group has no figures left, board-a's are there"

# --- prometheus scraping the gateway --------------------------------------------------------
if command -v prometheus >/dev/null; then
	prom_start "$pport" "127.0.0.1:$gw" pushgateway honor
	pids+=("$prom_pid")
	one=$(samples "$exported" | grep '^boardperf_sha256_bytes_per_second{' | head -1)
	sel="${one% *}"; sel="${sel%\}},instance=\"board-a\",job=\"boardperf\"}"
	got=
	for _ in $(seq 60); do
		got=$(curl -s --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
			--data-urlencode "query=$sel" | jq -r '.data.result[0].value[1] // empty')
		[ -n "$got" ] && break
		sleep 0.5
	done
	python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "${got:-nan}" \
		"${one##* }"
	ok $? "prometheus (honor_labels) has $sel = $got, the exported ${one##* }"
else
	skip "prometheus" "prometheus not installed (Debian: prometheus)"
fi

# A metric of the same name and another type in another group: the gateway refuses (400).
for g in boardperf/instance/board-a "boardperf/instance/$host"; do
	curl -s --max-time 5 -X DELETE "http://127.0.0.1:$gw/metrics/job/$g" >/dev/null
done
printf '# TYPE boardperf_result_timestamp_seconds counter\nboardperf_result_timestamp_seconds 1\n' |
	curl -s --max-time 5 -o /dev/null -w '%{http_code}' --data-binary @- \
	"http://127.0.0.1:$gw/metrics/job/clash" >"$tap_tmp/clash.code"
expect_exit 1 "a push the gateway finds inconsistent" "$bp" export --push \
	"http://127.0.0.1:$gw" --instance board-a --db "$db"
grep -q "push to http://127.0.0.1:$gw/metrics/job/boardperf/instance/board-a: the gateway answered 400: .*boardperf_result_timestamp_seconds.*; expected 200$" \
	<<<"$err"; ok $? "its 400 and its reason are quoted (the clash pushed: $(cat "$tap_tmp/clash.code")): $err"

# --- https and basic authentication ----------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$tap_tmp/gw.key" -out "$tap_tmp/gw.pem" \
	2>/dev/null
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret!", crypt.mksalt(crypt.METHOD_BLOWFISH)))')
cat >"$tap_tmp/web.yml" <<-EOF
tls_server_config:
  cert_file: $tap_tmp/gw.pem
  key_file: $tap_tmp/gw.key
basic_auth_users:
  alice: '$hash'
EOF
prometheus-pushgateway --web.listen-address="127.0.0.1:$tgw" --persistence.file= \
	--web.config.file="$tap_tmp/web.yml" \
	>"$tap_tmp/tgw.log" 2>&1 &
pids+=($!)
gateway_up "$tgw" "$tap_tmp/tgw.log" https; ok $? "the TLS gateway is up on port $tgw"
expect_exit 1 "https to a certificate nobody signed" "$bp" export --push \
	"https://alice:s3cret%21@127.0.0.1:$tgw" --instance board-a --db "$db"
grep -q "push to https://127.0.0.1:$tgw/.*: TLS: certificate verify failed: self.signed certificate" <<<"$err"
ok $? "refused, saying why: $err"
expect_exit 1 "--cacert, no user:password@" "$bp" export --push "https://127.0.0.1:$tgw" \
	--cacert "$tap_tmp/gw.pem" --instance board-a --db "$db"
grep -q "the gateway answered 401: Unauthorized; expected 200" <<<"$err"; ok $? "401: $err"
expect_exit 1 "a wrong password" "$bp" export --push \
	"https://alice:wrong@127.0.0.1:$tgw" --cacert "$tap_tmp/gw.pem" --instance board-a --db "$db"
! grep -q "wrong" <<<"$err"; ok $? "the password is not in the error: $err"
expect_exit 0 "--cacert with alice:s3cret%21@" "$bp" export --push \
	"https://alice:s3cret%21@127.0.0.1:$tgw" --cacert "$tap_tmp/gw.pem" --instance board-a \
	--db "$db"
! grep -q "s3cret" <<<"$err"; ok $? "pushed; the password is not shown: $err"
got=$(samples "$(curl -sk --max-time 5 -u 'alice:s3cret!' "https://127.0.0.1:$tgw/metrics")" \
	boardperf board-a | sort)
[ "$got" = "$want" ]; ok $? "every exported sample is in the TLS gateway's group"
expect_exit 0 "--insecure with user:password@" "$bp" export --push \
	"https://alice:s3cret%21@127.0.0.1:$tgw" --insecure --instance board-c --db "$db"

tap_done
