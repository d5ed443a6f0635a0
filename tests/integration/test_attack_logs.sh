#!/usr/bin/env bash
# What a peer can make a server write, and what a peer's text can do (issue 31, items 5, 6),
# on loopback with a python3 attacker (attack_logs.py):
#   - A, one address: control connections from 127.0.0.1 for 3 s, one at a time (about 1,000
#     on a 2-core VM), each refused (a bogus iperf3 RSA token, or a test of 100,000 s): the
#     server's log grows by at most the limiter's burst and rate (20 + 5 a second) and then
#     says how many lines it left out, in sum at least one per connection;
#   - B, eight addresses (127.0.0.2 to .9) for 3 s: at most 100 + 20 a second in all, and
#     20 + 5 a second from each; the sum names the addresses;
#   - C, forged text: a bp_test, and a -R test's congestion, of "x\n" ESC "[31mFORGED": the
#     server refuses both by name, and its log holds no line that is not its own and no ESC;
#   - D, a hostile server (attack_logs.py evil) whose error text carries ESC sequences, CR,
#     LF, BEL, a C1 CSI and HTML: the client prints one line without a control byte, its JSON
#     holds the text escaped; that document with the same text as its label (a failed run is
#     not saved: it goes in by `boardperf import`, as a peer's file would) shows no control
#     byte in import's, history's and show's output, nor in the HTML report; a saved text
#     form given ESC and CR (sqlite3, as an older boardperf could have saved one) shows them
#     escaped.
# Counts are bounded by the limits times the attack's measured length, so a slow machine
# sends less and the bounds hold: side by side (~25 s).
# Usage: test_attack_logs.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

for tool in openssl jq python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not installed"
		exit 0
	fi
done

bp_ports 3; port=$BP_PORT  # tap.sh: a block of 3 ports, this test's alone
port2=$((port + 1))        # an unlocked server (C)
eport=$((port + 2))        # the hostile server (D)
helper=$(dirname "$0")/attack_logs.py
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap 'cleanup; rm -rf "$tap_tmp"' EXIT
esc=$'\e' cr=$'\r' bel=$'\a' c1=$'\xc2\x9b'

key=$tap_tmp/private.pem pubkey=$tap_tmp/public.pem users=$tap_tmp/users.csv
openssl genrsa -out "$key" 2048 2>/dev/null && openssl rsa -in "$key" -pubout -out "$pubkey" 2>/dev/null
ok $? "openssl made an RSA-2048 key pair"
printf 'mario,%s\n' "$(printf '%s' '{mario}rossi' | sha256sum | cut -d' ' -f1)" >"$users"
slog=$tap_tmp/serve.log
"$bp" serve -p "$port" --rsa-private-key-path "$key" --authorized-users-path "$users" \
	2>"$slog" &
pids+=($!)
wait_log "$slog" listening; ok $? "a locked server listens on $port"

lines() { wc -l <"$slog"; }
# sums_from ADDR: what the limiter's sums say it left out from ADDR ("N from ADDR")
sums_from() {
	grep -o "log: [0-9]* lines* from peers suppressed.*" "$slog" |
		grep -o "[0-9]* from $1[,)]" | awk '{ n += $1 } END { print n + 0 }'
}
sums() { grep -c "log: .* suppressed" "$slog"; }
# flood NAME SOURCES...: 3 s from those addresses; sets conns, secs, added (the log's new
# lines once the sum is out: it comes a second or two after the flood, within 5 s)
flood() {
	local name=$1 l0 s0
	shift
	l0=$(lines) s0=$(sums)
	python3 "$helper" flood "$port" 3 "$@" >"$tap_tmp/$name.json"
	conns=$(jq .connections "$tap_tmp/$name.json") secs=$(jq .seconds "$tap_tmp/$name.json")
	for _ in $(seq 50); do [ "$(sums)" -gt "$s0" ] && break; sleep 0.1; done
	added=$(($(lines) - l0))
	printf '# %s: %s\n' "$name" "$(cat "$tap_tmp/$name.json")"
}

# --- A: one address ---
flood A 127.0.0.1
[ "${conns:-0}" -ge 100 ]; ok $? "A: the attacker made $conns refused connections in $secs s"
bound=$(awk -v s="$secs" 'BEGIN { printf "%d", 20 + 5 * (s + 1) + 1 }')
[ "$added" -le "$bound" ]
ok $? "A: the log grew by $added lines (at most $bound: 20, then 5 a second, and the sum)"
[ "$(sums)" -ge 1 ]; ok $? "A: once the flood is over, a line says how many were left out"
grep "log: .* suppressed" "$slog" | tail -1 | sed 's/^/#   /'
logged=$(grep -c "127\.0\.0\.1:[0-9]*: \(iperf3 username refused\|authentication failed\|bad parameters\)" "$slog")
suppressed=$(sums_from 127.0.0.1)
[ $((logged + suppressed)) -ge "$conns" ]
ok $? "A: $logged lines out and $suppressed summed as left out: one or more per connection ($conns)"

# --- B: eight addresses ---
srcs=(); for i in 2 3 4 5 6 7 8 9; do srcs+=("127.0.0.$i"); done
flood B "${srcs[@]}"
[ "${conns:-0}" -ge 100 ]; ok $? "B: $conns refused connections from 8 addresses in $secs s"
bound=$(awk -v s="$secs" 'BEGIN { printf "%d", 100 + 20 * (s + 1) + 1 }')
[ "$added" -le "$bound" ]; ok $? "B: the log grew by $added lines (at most $bound in all)"
worst=0
for a in "${srcs[@]}"; do
	n=$(grep -c "${a//./\\.}:[0-9]*: " "$slog")
	[ "$n" -gt "$worst" ] && worst=$n
done
bound=$(awk -v s="$secs" 'BEGIN { printf "%d", 20 + 5 * (s + 1) }')
[ "$worst" -le "$bound" ]; ok $? "B: at most $worst lines from one address (at most $bound)"
grep "log: .* suppressed" "$slog" | tail -1 | grep -q "from 127\.0\.0\.[2-9]"
ok $? "B: the sum names the addresses"
grep "log: .* suppressed" "$slog" | tail -1 | sed 's/^/#   /'
IPERF3_PASSWORD=rossi expect_exit 0 "after the floods a real test runs" "$bp" tcp -c 127.0.0.1 \
	-p "$port" -t 1 -J --no-save --username mario --rsa-public-key-path "$pubkey"

# --- C: forged text in the parameters ---
clog=$tap_tmp/serve2.log
"$bp" serve -p "$port2" 2>"$clog" &
pids+=($!)
wait_log "$clog" listening; ok $? "an unlocked server listens on $port2"
text='"x\n\u001b[31mFORGED"'
got=$(python3 "$helper" forge "$port2" "$text")
sed 's/^/#   /' <<<"$got"
grep -q "bp_test: state -2" <<<"$got"; ok $? "C: a bp_test of $text is refused"
grep -q "congestion: then state -2" <<<"$got"; ok $? "C: a -R test's congestion of $text is refused"
wait_log "$clog" "FORGED' is not served here"
ok $? "C: the server logs the refusal of the test by its name"
wait_log "$clog" "congestion control not available"
ok $? "C: the server logs the refusal of the congestion by its name"
grep -n "FORGED" "$clog" | sed 's/^/#   /'
! grep -qv "^boardperf" "$clog"; ok $? "C: every line of the server's log is its own (none starts with the peer's text)"
! grep -q "$esc" "$clog"; ok $? "C: no ESC in the server's log"
grep -q 'x\\x0A\\x1B\[31mFORGED' "$clog"; ok $? "C: the text is in the log escaped (x\\x0A\\x1B[31mFORGED)"

# --- D: a hostile server's error text at the client, in show and in the report ---
hostile='"refused\r\u001b[2J\u001b]0;pwned\u0007\nFORGED LINE <b>bold</b> \u009b31m"'
python3 "$helper" evil "$eport" 20 "$hostile" &
pids+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$eport") 2>/dev/null && break; sleep 0.1; done
expect_exit 1 "D: boardperf tcp against the hostile server fails" "$bp" tcp -c 127.0.0.1 \
	-p "$eport" -t 1 --no-save
printf '#   stderr: %s\n' "$err"
[ "$(wc -l <"$tap_tmp/stderr")" -eq 1 ]; ok $? "D: the client prints one line"
! grep -q "$esc\|$cr\|$bel\|$c1" "$tap_tmp/stderr"; ok $? "D: ... without ESC, CR, BEL or a C1 control"
grep -qF 'refused\x0D\x1B[2J\x1B]0;pwned\x07\x0AFORGED LINE <b>bold</b> \xC2\x9B31m' "$tap_tmp/stderr"
ok $? "D: ... with the server's text escaped"
expect_exit 1 "D: the same with -J" "$bp" tcp -c 127.0.0.1 -p "$eport" -t 1 -J --no-save
msg=$(jq -r .error.message <<<"$out")
[ -n "$msg" ] && ! grep -q "$esc\|$cr\|$bel\|$c1" <<<"$msg" && [ "$(wc -l <<<"$msg")" -eq 1 ]
ok $? "D: the JSON's error.message holds no control character once decoded"
# A failed run is not saved: its document goes in as a peer's file would, with the same
# text as its label too (the text of an older client's error, or of a forged file).
db=$tap_tmp/results.db
jq --argjson t "$hostile" '.params.label = $t' <<<"$out" >"$tap_tmp/forged.json"
expect_exit 0 "D: boardperf import of that document" "$bp" import "$tap_tmp/forged.json" --db "$db"
! grep -q "$esc\|$cr\|$bel\|$c1" <<<"$out$err"; ok $? "D: import prints no control byte"
expect_exit 0 "D: boardperf history" "$bp" history --db "$db"
! grep -q "$esc\|$cr\|$bel\|$c1" <<<"$out" && [ "$(grep -c FORGED <<<"$out")" -eq 1 ] &&
	! grep -q "^FORGED" <<<"$out"
ok $? "D: history prints its one line, no control byte, no forged line"
# An imported document's only form is its JSON, which jansson escapes (C0 controls as
# \u00XX; a C1 is valid JSON as it is).
expect_exit 0 "D: boardperf show of it" "$bp" show 1 --db "$db"
! grep -q "$esc\|$cr\|$bel" <<<"$out" && [ "$(jq -r .params.label <<<"$out")" = "$(jq -r . <<<"$hostile")" ]
ok $? "D: show prints the JSON, its label whole and no ESC, CR or BEL"
# A saved text form with control bytes in it, as an older boardperf could have saved a
# server's text: show prints it with them escaped, its lines kept.
if command -v sqlite3 >/dev/null; then
	expect_exit 0 "D: a tcp test saved" "$bp" tcp -c 127.0.0.1 -p "$port2" -t 1 --db "$db" \
		--label saved
	sqlite3 "$db" "UPDATE printed SET body = CAST(body || X'1B5B324A0D464F52474544' AS BLOB)
		WHERE format = 'text' AND result_id = (SELECT MAX(id) FROM results)"
	expect_exit 0 "D: boardperf show of a saved form holding ESC and CR" "$bp" show saved --db "$db"
	! grep -q "$esc\|$cr" <<<"$out" && grep -qF '\x1B[2J\x0DFORGED' <<<"$out" &&
		[ "$(wc -l <<<"$out")" -gt 2 ]
	ok $? "D: show prints them as \\xNN, the form's lines kept ($(wc -l <<<"$out") lines)"
else
	skip "D: show of a saved form holding ESC and CR" "needs sqlite3"
fi
expect_exit 0 "D: boardperf report of the stored run and of the file" "$bp" report 1 \
	"$tap_tmp/forged.json" --db "$db" --html "$tap_tmp/report.html"
html=$tap_tmp/report.html
! grep -q "$esc\|$cr\|$bel\|$c1" "$html"; ok $? "D: the report holds no control byte"
! grep -q "<b>bold" "$html" && grep -qF '&lt;b&gt;bold&lt;/b&gt;' "$html"
ok $? "D: the report escapes the text's HTML"
grep -qF 'FORGED LINE &lt;b&gt;bold&lt;/b&gt; \xC2\x9B31m' "$html"
ok $? "D: the report shows the controls as \\xNN ($(grep -cF 'FORGED LINE' "$html") times)"

cleanup; pids=()
tap_done
