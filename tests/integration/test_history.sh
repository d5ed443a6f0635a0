#!/bin/bash
# The results database end to end: every printed result saved (tcp, disk; a suite and its
# children linked, imported: test_run.sh saves a real run; serve and --no-save nothing),
# `show` printing each exactly as it was printed (cmp), history's filters, import of another
# board's file, and a database that is
# locked, unopenable, read-only or full: the result printed all the same, one line on
# stderr, the exit status unchanged. PRAGMA integrity_check at the end.
# Timed sections (tap.sh, "Parts"): none. The locked database waits out its 15 s busy timeout
# but nothing bounds how long that takes (the lock is held until the test lets it go), and
# no figure is held to a bound: the whole test runs side by side.
# Usage: test_history.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
golden=$(cd "$(dirname "$0")/../unit/golden" && pwd)  # suite.json: a run's document
db_default="$XDG_DATA_HOME/boardperf/results.db"
bp_ports 1; port=$BP_PORT  # tap.sh
pids=()
mounts=()
cleanup() {
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap 'cleanup; rm -rf "$tap_tmp"' EXIT

q() { sqlite3 "${2:-$db_default}" "$1"; }
# newest top-level id
newest() { q "SELECT MAX(id) FROM results WHERE parent IS NULL" "${1:-$db_default}"; }

"$bp" serve -B 127.0.0.1 -p "$port" 2>"$tap_tmp/serve.log" &
pids+=($!)
wait_log "$tap_tmp/serve.log" listening; ok $? "server listens on $port"

# --- tcp in every printed form: show prints the same bytes --------------------------------
for form in text json csv json-stream; do
	flag=; [ "$form" = text ] || flag="--$form"
	expect_exit 0 "tcp $form --label opi" "$bp" tcp -c 127.0.0.1 -p "$port" -t 1 -i 0.5 \
		--label opi $flag
	printf '%s\n' "$out" > "$tap_tmp/tcp.$form"
	[ -z "$err" ]; ok $? "tcp $form: nothing on stderr (the save says nothing)"
	id=$(newest)
	"$bp" show "$id" > "$tap_tmp/show.$form"
	cmp -s "$tap_tmp/tcp.$form" "$tap_tmp/show.$form"; ok $? "show $id: the tcp $form output byte for byte"
done
[ "$(q "SELECT COUNT(*) FROM results WHERE test = 'tcp' AND label = 'opi'")" = 4 ]
ok $? "four tcp results saved with label opi"
# The other forms of a result printed as text: as the command would have printed them.
id=$(q "SELECT MIN(id) FROM results WHERE test = 'tcp'")
"$bp" show "$id" --json > "$tap_tmp/show.j"
jq -e '.schema == "boardperf/1" and .test == "tcp" and .params.label == "opi"' \
	"$tap_tmp/show.j" >/dev/null; ok $? "show --json of a text result: the document, params.label opi"
jq -e '.metrics | length > 0' "$tap_tmp/show.j" >/dev/null; ok $? "... with its metrics"
"$bp" show "$id" --csv | head -1 | grep -q '^test,scope,start,end,name,value,unit,better'
ok $? "show --csv of a text result: the CSV header"
# A JSON result's text form is the full text render; the metrics table matches the JSON.
jid=$(q "SELECT id FROM results WHERE test = 'tcp' ORDER BY id LIMIT 1 OFFSET 1")
"$bp" show "$jid" --text | grep -q '^tcp: '; ok $? "show --text of a JSON result"
want=$(jq -r '.metrics[] | select(.name == "receiver.bitrate") | .value' "$tap_tmp/tcp.json")
got=$(q "SELECT value FROM metrics WHERE result_id = $jid AND name = 'receiver.bitrate'")
awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(d < 1e-6 * a && d > -1e-6 * a) }'
ok $? "metrics row receiver.bitrate = the JSON's ($got vs $want)"
# A reader that went away (`show ID | head`): no line about it. The pipe's read end is closed
# before show runs, so every write meets EPIPE, not only one past the pipe's buffer.
for form in "" --json; do
	closed=$(python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, p.stderr.decode().strip()) if p.stderr.strip() else print(p.returncode)' "$bp" show "$id" $form)
	[ "$closed" = 1 ]; ok $? "show $id${form:+ $form} into a closed pipe: exit 1, nothing on stderr ($closed)"
done
expect_exit 1 "show --json-stream of a text result" "$bp" show "$id" --json-stream
grep -q "not printed with --json-stream" <<<"$err"; ok $? "... says why"
[ "$(wc -l <<<"$err")" = 1 ]; ok $? "... in one line"

# --- disk --------------------------------------------------------------------------------
mkdir -p "$tap_tmp/disk"
expect_exit 0 "disk text" "$bp" disk --dir "$tap_tmp/disk" --size 4M --files 4 -t 1 -i 0.5 \
	--label opi
printf '%s\n' "$out" > "$tap_tmp/disk.text"
id=$(newest)
"$bp" show "$id" | cmp -s - "$tap_tmp/disk.text"; ok $? "show $id: the disk text byte for byte"
expect_exit 0 "disk --csv" "$bp" disk --dir "$tap_tmp/disk" --size 4M --files 4 -t 0.5 --csv
printf '%s\n' "$out" > "$tap_tmp/disk.csv"
"$bp" show "$(newest)" | cmp -s - "$tap_tmp/disk.csv"; ok $? "show: the disk CSV byte for byte"

# --- serve saves nothing, --no-save nothing, --db elsewhere ------------------------------
[ "$(q "SELECT COUNT(*) FROM results WHERE test = 'serve'")" = 0 ]; ok $? "serve saved nothing"
n=$(q "SELECT COUNT(*) FROM results")
expect_exit 0 "cpu --no-save" "$bp" cpu -a sha256 --sizes 16 -t 0.05 --no-save
[ "$(q "SELECT COUNT(*) FROM results")" = "$n" ]; ok $? "--no-save: nothing saved"
expect_exit 0 "cpu --db other.db --json" "$bp" cpu -a sha256 --sizes 16 -t 0.05 \
	--db "$tap_tmp/other.db" --label rpi3 --json
printf '%s\n' "$out" > "$tap_tmp/rpi3.json"
[ "$(q "SELECT COUNT(*) FROM results")" = "$n" ] &&
	[ "$(q "SELECT label FROM results" "$tap_tmp/other.db")" = rpi3 ]
ok $? "--db: saved there, not in the default database"

# --- a failed test: its error saved, the exit status kept --------------------------------
# port-ok: privileged, nothing here listens on 1
expect_exit 1 "tcp to a closed port --json" "$bp" tcp -c 127.0.0.1 -p 1 -t 1 --json
[ "$(q "SELECT json_extract(doc, '\$.error.code') FROM results WHERE id = $(newest)")" = \
	connect-refused ]; ok $? "the failed result saved with its error"

# --- a suite and its children, linked: a run's document imported (test_run.sh: a real
# run saved as printed, and show printing it again byte for byte)
expect_exit 0 "import a run --label opi-zero" "$bp" import "$golden/suite.json" --label opi-zero
sid=$(newest)
[ "$(q "SELECT test || ' ' || label FROM results WHERE id = $sid")" = "run opi-zero" ]
ok $? "the suite saved as run, label opi-zero"
"$bp" show "$sid" > "$tap_tmp/run.text"
"$bp" show "$sid" --json > "$tap_tmp/run.json"
nkids=$(jq '.results | length' "$tap_tmp/run.json")
[ "$nkids" -ge 2 ] && [ "$(q "SELECT COUNT(*) FROM results WHERE parent = $sid")" = "$nkids" ]
ok $? "each of its $nkids tests saved as a child of $sid"
[ "$(q "SELECT COUNT(DISTINCT label) || label FROM results WHERE parent = $sid")" = 1opi-zero ]
ok $? "the children carry the suite's label"

# --- history -----------------------------------------------------------------------------
# (at the widest, a line per result; at 80 columns figures wrap under it: test_text_width)
expect_exit 0 "history" env COLUMNS=1000 "$bp" history
[ "$(wc -l <<<"$out")" = "$(( $(q "SELECT COUNT(*) FROM results WHERE parent IS NULL") + 1 ))" ]
ok $? "history: a head line and one line per top-level result"
head -2 <<<"$out" | tail -1 | grep -Eq "^ +$sid  [0-9-]{10} [0-9:]{8}  opi-zero +run +.*tests: "
ok $? "history: newest first, the suite with its tests"
grep -Eq "tcp +receiver.bitrate [0-9.]+ [GM]bit/s" <<<"$out"; ok $? "history: tcp's headline figure"
grep -q "error: connect-refused" <<<"$out"; ok $? "history: the failed run's error"
expect_exit 0 "history --all" "$bp" history --all
[ "$(grep -c "(in #$sid)" <<<"$out")" = "$nkids" ]; ok $? "history --all: each child, marked (in #$sid)"
expect_exit 0 "history --test disk --json" "$bp" history --test disk --json
jq -e 'length == 2 and all(.[]; .test == "disk")' <<<"$out" >/dev/null; ok $? "--test disk: the two disk results"
expect_exit 0 "history --label opi --limit 2 --json" "$bp" history --label opi --limit 2 --json
jq -e 'length == 2 and all(.[]; .label == "opi") and .[0].id > .[1].id' <<<"$out" >/dev/null
ok $? "--label opi --limit 2: the two newest"
expect_exit 0 "history --since tomorrow" "$bp" history --since "$(date -u -d tomorrow +%F)" --json
[ "$out" = "[]" ]; ok $? "--since a future date: nothing"
expect_exit 0 "history --since 1h" "$bp" history --since 1h --json
[ "$(jq length <<<"$out")" = "$(q "SELECT COUNT(*) FROM results WHERE parent IS NULL")" ]
ok $? "--since 1h: all of them"
expect_exit 2 "history --since yesterday-ish" "$bp" history --since soon
grep -q "expected a UTC date" <<<"$err"; ok $? "... says what it expects"
expect_exit 0 "history of an empty home" env XDG_DATA_HOME="$tap_tmp/empty" "$bp" history
[ -z "$out" ] && [ ! -e "$tap_tmp/empty/boardperf" ]; ok $? "nothing saved yet: empty, nothing made"
expect_exit 1 "show 999999" "$bp" show 999999
grep -q "'999999': no such result" <<<"$err"; ok $? "show of a missing id says so"
expect_exit 2 "show without an id" "$bp" show
expect_exit 0 "show by label" "$bp" show opi-zero
cmp -s <(printf '%s\n' "$out") "$tap_tmp/run.text"; ok $? "show LABEL: its newest result"

# --- import ------------------------------------------------------------------------------
expect_exit 0 "import rpi3.json" "$bp" import "$tap_tmp/rpi3.json"
grep -Eq "rpi3.json: saved as result [0-9]+ \(cpu, label rpi3, " <<<"$out"; ok $? "import says the id"
iid=$(newest)
"$bp" show "$iid" | cmp -s - "$tap_tmp/rpi3.json"; ok $? "show of the import: the file's JSON as it was printed"
expect_exit 0 "import it again" "$bp" import "$tap_tmp/rpi3.json"
grep -q "already saved as result $iid" <<<"$out"; ok $? "a file imported twice is kept once"
expect_exit 1 "show --text of an import" "$bp" show "$iid" --text
grep -q "imported from a file" <<<"$err"; ok $? "... says it has only its JSON"
printf '{"schema": "boardperf/1", "test": "tcp", "metrics": [{"name": "x"}]}\n' > "$tap_tmp/bad.json"
n=$(q "SELECT COUNT(*) FROM results")
expect_exit 1 "import a bad file and a good one" "$bp" import "$tap_tmp/bad.json" - --label board2 \
	< "$tap_tmp/tcp.json"
grep -q "bad.json: metrics\[0\].value: expected a number or null" <<<"$err"; ok $? "the bad file's reason"
[ "$(q "SELECT COUNT(*) FROM results")" = $((n + 1)) ] &&
	[ "$(q "SELECT label FROM results WHERE id = $(newest)")" = board2 ]
ok $? "the good one (stdin) imported, relabelled board2"

# --- a database that cannot take the save: printed anyway, one line, same exit status ------
ref=$(jq -S 'del(.env, .cpu, .metrics, .warnings, .monitor, .intervals)' "$tap_tmp/rpi3.json")
same_shape() { jq -S 'del(.env, .cpu, .metrics, .warnings, .monitor, .intervals)' <<<"$1" | cmp -s - <(printf '%s\n' "$ref"); }
cpu_into() { expect_exit 0 "$1" "$bp" cpu -a sha256 --sizes 16 -t 0.05 --label rpi3 --json --db "$2"; }
check_unsaved() { # WHAT PATTERN
	same_shape "$out"; ok $? "$1: the result printed whole"
	[ "$(wc -l <<<"$err")" = 1 ] && grep -q "warning: not saved: .*$2" <<<"$err"
	ok $? "$1: one line on stderr"
	[ "$(wc -l <<<"$err")" = 1 ] || printf '#   %s\n' "$err"
}
printf 'just text, no database at all; more than a header long ...........................\n' \
	> "$tap_tmp/text.db"
cpu_into "a text file as --db" "$tap_tmp/text.db"
check_unsaved "not a database" "not a database"
cpu_into "a folder as --db" "$tap_tmp"
check_unsaved "a folder" "$tap_tmp"
cpu_into "--db in a missing folder under a file" "$tap_tmp/text.db/x/results.db"
check_unsaved "no folder" "making its folder"

# Locked: another process holds the write lock past the 15 s busy timeout (until killed,
# however long a busy machine makes the save wait).
python3 -c 'import signal, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
signal.pause()' "$db_default" > "$tap_tmp/lock.log" &
lock_pid=$!
pids+=($lock_pid)
wait_log "$tap_tmp/lock.log" locked; ok $? "another process holds the database locked"
cpu_into "a locked database" "$db_default"
check_unsaved "locked" "database is locked"
kill "$lock_pid"; wait "$lock_pid" 2>/dev/null

if [ "$(id -u)" = 0 ]; then
	# Read-only: the folder bind-mounted read-only.
	mkdir -p "$tap_tmp/ro-src" "$tap_tmp/ro"
	cp "$db_default" "$tap_tmp/ro-src/results.db"
	if mount --bind "$tap_tmp/ro-src" "$tap_tmp/ro" && mounts+=("$tap_tmp/ro") &&
		mount -o remount,bind,ro "$tap_tmp/ro"; then
		cpu_into "a read-only database" "$tap_tmp/ro/results.db"
		check_unsaved "read-only" "read-only file system"
	else
		skip "read-only database" "no bind mount here"
	fi
	# Full: a 1 MiB tmpfs, the database in it, the rest filled.
	mkdir -p "$tap_tmp/full"
	if mount -t tmpfs -o size=1m tmpfs "$tap_tmp/full" && mounts+=("$tap_tmp/full"); then
		"$bp" cpu -a sha256 --sizes 16 -t 0.05 --db "$tap_tmp/full/results.db" >/dev/null
		dd if=/dev/zero of="$tap_tmp/full/filler" bs=4k 2>/dev/null
		cpu_into "a full disk" "$tap_tmp/full/results.db"
		check_unsaved "full" "disk is full\|No space left"
	else
		skip "full database" "no tmpfs mount here"
	fi
else
	skip "read-only database" "needs root for a read-only bind mount"
	skip "full database" "needs root for a small tmpfs"
fi

# --- --label and --db checked -------------------------------------------------------------
expect_exit 2 "--label ''" "$bp" cpu --label ''
grep -q -- "--label ''" <<<"$err"; ok $? "an empty label is refused"
expect_exit 2 "--label of 64 characters" "$bp" cpu --label "$(printf 'x%.0s' {1..64})"
grep -q "expected a name of 1 to 63 characters" <<<"$err"; ok $? "... says the limit"
expect_exit 2 "--db ''" "$bp" cpu --db 

for f in "$db_default" "$tap_tmp/other.db"; do
	[ "$(q "PRAGMA integrity_check" "$f")" = ok ]; ok $? "integrity_check ok: ${f#$tap_tmp/}"
done
[ "$(q "PRAGMA journal_mode")" = wal ]; ok $? "the database is in WAL mode"
tap_done
