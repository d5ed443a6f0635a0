#!/usr/bin/env bash
# The command line as a user meets it: exit codes, one-line errors, help, version, formats.
# Usage: test_cli.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

expect_exit 0 "--version" "$bp" --version
# Three lines: version, architecture and linking; build type, compiler and flags; libraries.
v1=$(sed -n 1p <<<"$out") v2=$(sed -n 2p <<<"$out") v3=$(sed -n 3p <<<"$out")
[[ "$v1" =~ ^boardperf\ [0-9]+\.[0-9]+\.[0-9]+\ (amd64|arm64|armhf|armel|[a-z0-9_]+)\ \(.+\),\ (statically|dynamically)\ linked$ ]]
ok $? "version line: $v1"
[[ "$v2" =~ ^build:\ [a-z]+,\ (gcc|clang)\ .*-D_TIME_BITS=64 ]]; ok $? "build line: $v2"
[[ "$v3" =~ ^libraries:\ OpenSSL\ [0-9].*,\ jansson\ [0-9].*,\ liburing\ [0-9].*,\ http-parser\ [0-9].*,\ sqlite\ [0-9].*,\ glibc\ [0-9] ]]
ok $? "libraries line: $v3"

expect_exit 0 "--help" "$bp" --help
help=$out
for c in run info; do
	grep -q "^  $c " <<<"$help"; ok $? "--help lists $c"
	expect_exit 0 "$c --help" "$bp" "$c" --help
	grep -q "^Usage: boardperf $c" <<<"$out"; ok $? "$c --help shows its usage line"
done

# --help fits the terminal: 80 columns without one ($COLUMNS or 80), a terminal's own width
# (TIOCGWINSZ, script(1)'s pty) over $COLUMNS; characters, not bytes (docs/results.md)
widest() { # "N: the first line N wide" of stdin, N in characters
	local t n; t=$(cat); n=$(LC_ALL=C.UTF-8 wc -L <<<"$t")
	echo "$n: $(LC_ALL=C.UTF-8 grep -m1 -E "^.{$n}$" <<<"$t")"
}
on_tty() { # on_tty COLS CMD...: CMD's stdout on a terminal COLS wide
	local cols=$1; shift
	script -qec "stty cols $cols rows 24; $(printf '%q ' "$@")" /dev/null </dev/null | tr -d '\r'
}
commands=$(sed -n '/^Commands:/,/^$/s/^  \([a-z0-9]*\) .*/\1/p' <<<"$help")
[ "$(wc -w <<<"$commands")" -ge 20 ]; ok $? "--help lists the commands: $(tr '\n' ' ' <<<"$commands")"
for c in "" $commands; do
	w=$(env -u COLUMNS "$bp" $c --help | widest)
	[ "${w%%:*}" -le 80 ]; ok $? "${c:-boardperf} --help without a terminal: at most 80 columns ($w)"
done
w=$(COLUMNS=60 "$bp" tcp --help | widest)
[ "${w%%:*}" -le 60 ] && [ "${w%%:*}" -ge 55 ]; ok $? "tcp --help under COLUMNS=60 fills 55-60 columns ($w)"
w=$(on_tty 100 env COLUMNS=60 "$bp" serve --help | widest)
[ "${w%%:*}" -le 100 ] && [ "${w%%:*}" -gt 60 ]
ok $? "serve --help on a terminal 100 wide: its width over COLUMNS=60 ($w)"

# a command lists and takes only the common options that mean something to it
expect_exit 0 "compare --help" "$bp" compare --help
! grep -qE -- '--(repeat|until-stable|json-stream|label|no-monitor|busy-warn|no-save)\b' <<<"$out" &&
	grep -q -- '--db FILE' <<<"$out"
ok $? "compare --help: --db, none of --repeat, --label, --json-stream, --no-monitor, --no-save"
for bad in "compare --label x a b" "serve --no-save" "info --no-monitor" "history --csv" \
	"metrics --json-stream" "run --until-stable 5" "import -J x.json"; do
	expect_exit 2 "$bad" "$bp" $bad
	[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "is not an option of this command (see 'boardperf ${bad%% *} --help')" <<<"$err"
	ok $? "$bad: refused in one line ($err)"
done
expect_exit 0 "cpu --help" "$bp" cpu --help
grep -q -- '--repeat N' <<<"$out" && grep -q -- '--no-monitor' <<<"$out"
ok $? "cpu --help: the common options of a measurement"

expect_exit 2 "unknown command" "$bp" frobnicate
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "unknown command 'frobnicate'" <<<"$err"
ok $? "unknown command: one line naming it"

expect_exit 2 "unknown flag" "$bp" info --bogus
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "unknown option '--bogus'" <<<"$err"
ok $? "unknown flag: one line naming it"

expect_exit 2 "bad choice" "$bp" run --suite huge
grep -q "\-\-suite 'huge': expected one of quick, full" <<<"$err"; ok $? "bad choice names value and choices"

expect_exit 2 "missing value" "$bp" info --dir
grep -q -- "--dir needs a value" <<<"$err"; ok $? "missing value is named"

expect_exit 2 "--json with --csv" "$bp" info --json --csv
expect_exit 2 "stray argument" "$bp" info extra

# The metric catalogues (result/kind.h): text in 80 columns, JSON, an unknown test.
expect_exit 0 "metrics" "$bp" metrics
grep -q "^tcp$" <<<"$out" && grep -q "^  receiver.bitrate  *bit/s  *higher  *1  *sum$" <<<"$out"
ok $? "metrics: tcp's headline row"
! awk 'length > 80' <<<"$out" | grep -q .; ok $? "metrics: 80 columns"
expect_exit 0 "metrics rr --json" "$bp" metrics rr --json
python3 -c 'import json,sys; a=json.load(sys.stdin); assert all(m["test"] == "rr" for m in a); assert {"name": "transactions.rate", "unit": "op/s", "headline": 1, "combine": "sum"}.items() <= a[0].items()' <<<"$out"
ok $? "metrics --json: rr's catalogue, its headline first"
expect_exit 2 "metrics of an unknown test" "$bp" metrics frob
[ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "'frob': expected a test that measures: together, cpu, .*http" <<<"$err"
ok $? "metrics: an unknown test named, with the known ones"
expect_exit 2 "--dir that does not exist" "$bp" info --dir /nonexistent/boardperf
grep -q "/nonexistent/boardperf" <<<"$err"; ok $? "--dir error names the path"
# HOST:PORT where a host goes: a usage error naming -p, before anything connects (it said
# "resolve '127.0.0.1:6101': Name or service not known")
p=6101  # port-ok: usage errors, refused before anything connects
while IFS='|' read -r cmd opt given want; do
	expect_exit 2 "$cmd $opt $given" "$bp" "$cmd" "$opt" "$given"
	grep -qF -- "$opt '$given': expected a host; the port goes with -p: $want" <<<"$err" &&
		[ "$(wc -l <<<"$err")" = 1 ]
	ok $? "$cmd $opt $given: one line naming -p: $err"
done <<HOSTS
tcp|-c|127.0.0.1:$p|-c 127.0.0.1 -p $p
udp|-c|[::1]:$p|-c [::1] -p $p
run|--peer|127.0.0.1:$p|--peer 127.0.0.1 -p $p
HOSTS

expect_exit 0 "info" "$bp" info
grep -q "^info: " <<<"$out"; ok $? "info text starts with its header"

expect_exit 0 "info --json" "$bp" info --json
jq -e '.schema == "boardperf/1" and .test == "info"' <<<"$out" >/dev/null; ok $? "info JSON has schema and test"
for k in board cpu thermal memory os nics throttle clock; do
	jq -e --arg k "$k" '.env.inventory | has($k)' <<<"$out" >/dev/null; ok $? "inventory has $k"
done

# The clock's facts against the kernel's own answer (adjtimex(2) through ctypes, before and
# after): the same state and flag, and a maxerror between the two readings, which the
# kernel grows with time (an LP64 struct timex: maxerror at byte 24, status at 40)
kclock() {
	python3 -c 'import ctypes, struct
b = ctypes.create_string_buffer(512)
st = ctypes.CDLL(None, use_errno=True).adjtimex(b)
print(st, struct.unpack_from("q", b, 24)[0], struct.unpack_from("i", b, 40)[0] & 0x40)'
}
read -r k_state k_max0 k_unsync < <(kclock)
expect_exit 0 "info --json (clock)" "$bp" info --json
read -r k_state2 k_max1 _ < <(kclock)
jq -e --argjson st "$k_state" --argjson st2 "$k_state2" --argjson lo "$k_max0" \
	--argjson hi "$k_max1" --argjson un "$k_unsync" '.env.inventory.clock as $c |
	([$st, $st2] | index(["ok", "insert-leap", "delete-leap", "leap-in-progress",
	  "leap-done", "error"] | index($c.state))) != null and
	$c.maxerror_us >= ([$lo, $hi] | min) and $c.maxerror_us <= ([$lo, $hi] | max) and
	$c.synchronized == ($un == 0 and $c.state != "error") and ($c.daemons | type) == "array"' \
	<<<"$out" >/dev/null
ok $? "info's clock is the kernel's (adjtimex state $k_state, maxerror $k_max0..$k_max1 us,\
 unsync flag $k_unsync): $(jq -c .env.inventory.clock <<<"$out")"
jq -e '.env.boardperf.version and .env.boardperf.libraries.openssl and .env.boardperf.compiler' \
	<<<"$out" >/dev/null; ok $? "env names version, compiler and libraries"
jq -e '.metrics == [] and .warnings == [] and .intervals == []' <<<"$out" >/dev/null
ok $? "contract keys present even when empty"

expect_exit 0 "info --dir /" "$bp" info --dir / --json
jq -e '.env.inventory.storage' <<<"$out" >/dev/null; ok $? "info --dir adds storage"

expect_exit 0 "info --csv" "$bp" info --csv
head -1 <<<"$out" | grep -q '^test,scope,start,end,name,value,unit,better'; ok $? "CSV header"

# A board described by a fixture tree (a fake /proc and /sys): what a person and a script see.
fixtures="$(dirname "$0")/../unit/fixtures"
expect_exit 0 "info --root rpi4" "$bp" info --root "$fixtures/rpi4"
grep -q "^info: Raspberry Pi 4" <<<"$out"; ok $? "rpi4 header names the board"
grep -q "4x Cortex-A72" <<<"$out"; ok $? "rpi4 text shows the CPU summary"
grep -q "1800 MHz" <<<"$out"; ok $? "rpi4 text shows frequencies in MHz"
expect_exit 0 "info --root rpi4 --json" "$bp" info --root "$fixtures/rpi4" --json
jq -e '.env.inventory.board.model == "Raspberry Pi 4 Model B Rev 1.4"' <<<"$out" >/dev/null
ok $? "rpi4 JSON board model"
jq -e '.env.inventory.cpu.summary == "4x Cortex-A72"' <<<"$out" >/dev/null
ok $? "rpi4 JSON CPU summary"

# No command means run (test_run.sh runs `run` itself): once in full, as JSON, and once
# with an option only run knows, refused by run's own check before anything is measured.
expect_exit 0 "options without a command go to run" "$bp" -J
jq -e '.test == "run"' <<<"$out" >/dev/null; ok $? "bare -J runs run as JSON"
expect_exit 2 "no command, run's option" "$bp" --suite huge
grep -q "\-\-suite 'huge': expected one of quick, full" <<<"$err"; ok $? "bare --suite is run's option"
expect_exit 0 "-q keeps stderr quiet" "$bp" info -q
[ -z "$err" ]; ok $? "no stderr with -q"

tap_done
