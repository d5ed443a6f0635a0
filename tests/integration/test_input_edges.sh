#!/usr/bin/env bash
# Issue 31, item 10: inputs at the edges, each refused or reported in one line that names
# the value and what was expected, never silently changed:
#   - a --label that is not UTF-8 (0xff at byte 2): refused at parse time, exit 2, naming
#     the option and the byte's offset (it was dropped from the result without a word);
#   - a -C of 100,000 bytes: refused, exit 2, naming the limit, 15 bytes (Linux's
#     TCP_CA_NAME_MAX of 16 with the NUL; it was cut to 31 bytes without a word);
#   - history on a database with a corrupt page (page 3, the results table's root, all 0xff):
#     one line naming the file, that it is corrupt (SQLite's own reason) and what to do,
#     exit 1, no crash (it said "Invalid or incomplete multibyte or wide character": EILSEQ's
#     strerror); show, compare and export the same line (they said "no such result" and
#     EILSEQ's strerror);
#   - a database to be created on a read-only file system (a tmpfs remounted read-only in a
#     mount namespace of its own; root only): the warning says read-only and names the path
#     (it said "No such file or directory");
#   - -i 0.0001: the client's usage error (exit 2, naming -i and the 1 ms bound), before it
#     connects: the server beside it logs no refusal (it was the server's refusal, exit 1).
# Plain (nothing timed): a server on loopback and a handful of short runs (3 cpu runs of
# 50 ms), ~3 s. Usage: test_input_edges.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

spid=
cleanup() { [ -n "$spid" ] && kill "$spid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"; }
trap cleanup EXIT

one_line() { [ -n "$err" ] && [ "$(wc -l <<<"$err")" -eq 1 ]; }
show_err() { printf '#   %s\n' "${err//$'\n'/$'\n#   '}"; }

# a server of this test's own: a client the old binary let through talks to it, no other
bp_ports 1; port=$BP_PORT  # tap.sh
"$bp" serve -B 127.0.0.1 -p "$port" 2>"$tap_tmp/serve.log" &
spid=$!
wait_log "$tap_tmp/serve.log" "listening on 127.0.0.1"; ok $? "server listens on $port"

# --- --label that is not UTF-8 --------------------------------------------------------------
expect_exit 2 "--label with byte 0xff" "$bp" cpu -a sha256 --sizes 16 -t 0.05 --no-save \
	--label "$(printf 'ab\xffcd')"
one_line && grep -qF -- "--label: byte 2 (0xff) is not UTF-8" <<<"$err"
ok $? "--label: one line naming the option and the byte offset"; show_err
expect_exit 0 "--label in UTF-8 (é, €) is kept" "$bp" cpu -a sha256 --sizes 16 -t 0.05 \
	--no-save --json --label "$(printf 'r\xc3\xa9seau \xe2\x82\xac')"
[ "$(jq -r .params.label <<<"$out")" = "$(printf 'r\xc3\xa9seau \xe2\x82\xac')" ]
ok $? "a UTF-8 label is in params.label as given"

# --- a congestion control name longer than Linux takes ---------------------------------------
long=$(head -c 100000 /dev/zero | tr '\0' c)
expect_exit 2 "tcp -C of 100000 bytes" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.2 -C "$long" \
	--no-save
one_line && grep -qF -- "-C 'cccccccccccccccccccccccc...': 100000 bytes long, expected at most 15" <<<"$err"
ok $? "-C: one line naming the length and the limit"; show_err
expect_exit 2 "latency -C of 16 bytes" "$bp" latency -c 127.0.0.1 -p "$port" -t 1 --idle-time 1 -O 0 \
	-C abcdefghijklmnop --no-save
one_line && grep -qF -- "expected at most 15" <<<"$err"; ok $? "latency -C: the same limit"

# --- history on a corrupt database -----------------------------------------------------------
db=$tap_tmp/results.db
"$bp" cpu -a sha256 --sizes 16 -t 0.05 --db "$db" >/dev/null 2>&1
# 40 more rows (the results table spans pages), then page 3, its root, overwritten
sqlite3 "$db" "PRAGMA journal_mode = DELETE; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
	SELECT i + 1 FROM n WHERE i < 40) INSERT INTO results (parent, time_unix, test, label,
	board, version, doc) SELECT NULL, time_unix + i, test, label, board, version, doc
	FROM results, n WHERE results.id = 1" >/dev/null
[ "$(sqlite3 "$db" "SELECT rootpage FROM sqlite_master WHERE name = 'results'")" = 3 ]
ok $? "the results table's root is page 3"
head -c 4096 /dev/zero | tr '\0' '\377' | dd of="$db" bs=4096 seek=2 conv=notrunc 2>/dev/null
expect_exit 1 "history on a database with a corrupt page" "$bp" history --db "$db"
one_line && grep -qF "results database $db is corrupt (database disk image is malformed): move it aside" <<<"$err" &&
	! grep -q "multibyte" <<<"$err"
ok $? "history: one line naming the file, that it is corrupt (SQLite's reason), what to do"; show_err
# The commands that read one result or all figures say the same, not "no such result" or
# EILSEQ's "Invalid or incomplete multibyte or wide character" (result 1's JSON is read from
# the results table: it was printed as text).
for cmd in "show 1 --json" "compare 1 2" "export --openmetrics"; do
	expect_exit 1 "$cmd on the corrupt database" "$bp" $cmd --db "$db"
	one_line && grep -qF "results database $db is corrupt (database disk image is malformed): move it aside" <<<"$err"
	ok $? "${cmd%% *}: the same line"; show_err
done

# --- a database to be created on a read-only file system -------------------------------------
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mkdir "$tap_tmp/ro"
	err=$(unshare -m bash -c 'mount -t tmpfs -o size=1m tmpfs "$1" && mkdir "$1/db" &&
		mount -o remount,ro "$1" && "$2" cpu -a sha256 --sizes 16 -t 0.05 --db "$1/db/results.db" \
		2>&1 >/dev/null' _ "$tap_tmp/ro" "$bp")
	one_line && grep -qF "not saved: results database $tap_tmp/ro/db/results.db: cannot create it: its folder is on a read-only file system" <<<"$err"
	ok $? "a database on a read-only file system: says so and names the path"; show_err
else
	skip "a database on a read-only file system" "needs root for a mount namespace"
fi

# --- -i below the server's 1 ms ---------------------------------------------------------------
expect_exit 2 "tcp -i 0.0001" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.2 -i 0.0001 --no-save
one_line && grep -qF -- "-i 0.0001: out of range, expected 0 (none) or 0.001 to 3600 s" <<<"$err"
ok $? "-i 0.0001: the client's one line naming the bound"; show_err
expect_exit 2 "rr -i 0.0001" "$bp" rr -c 127.0.0.1 -p "$port" -t 0.2 -i 0.0001 --no-save
sleep 0.2
! grep -q "interval" "$tap_tmp/serve.log"; ok $? "the server saw no test to refuse"
expect_exit 0 "tcp -i 0.001 (the bound itself) runs" "$bp" tcp -c 127.0.0.1 -p "$port" -t 0.2 \
	-i 0.001 --no-save --json

tap_done
