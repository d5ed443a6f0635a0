#!/bin/bash
# Crash safety of the results database (docs/results.md, "Results history"): a save killed with
# kill -9 at a random point leaves the database passing PRAGMA integrity_check with every
# result saved before it; ten boardperf processes saving at once are all saved (WAL and
# the 15 s busy timeout).
set -u
bp=$1
. "$(dirname "$0")/tap.sh"
db="$tap_tmp/crash.db"
rounds=30
cmd=(cpu -a sha256 --sizes 16 -t 0.02 --json -v --db "$db")

# How long one whole command takes here (median of three), so that the kills fall across
# its whole life and many of them inside the save at its end.
durations=()
for _ in 1 2 3; do
	t0=$(date +%s%N)
	"$bp" "${cmd[@]}" >/dev/null 2>&1
	durations+=($(( ($(date +%s%N) - t0) / 1000 )))
done
life_us=$(printf '%s\n' "${durations[@]}" | sort -n | sed -n 2p)
ok 0 "one save takes about $life_us us here"

reported=()
killed_after_print=0
for round in $(seq "$rounds"); do
	"$bp" "${cmd[@]}" >"$tap_tmp/out" 2>"$tap_tmp/err" &
	pid=$!
	# Between 30 % and 130 % of a whole command: before, during and after the save.
	delay_us=$(( life_us * (30 + RANDOM % 101) / 100 ))
	sleep "$(awk -v u="$delay_us" 'BEGIN { printf "%.6f", u / 1e6 }')"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	id=$(sed -n 's/.*saved as result \([0-9]*\) in .*/\1/p' "$tap_tmp/err")
	[ -n "$id" ] && reported+=("$id")
	[ -s "$tap_tmp/out" ] && [ -z "$id" ] && killed_after_print=$((killed_after_print + 1))
	# integrity after each kill, so a broken round is named
	r=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
	[ "$r" = ok ] || { ok 1 "round $round: integrity_check after the kill ($r)"; break; }
done
ok 0 "$rounds rounds: ${#reported[@]} saves reported before the kill, $killed_after_print killed between the print and the report"
[ "$(sqlite3 "$db" "PRAGMA integrity_check")" = ok ]; ok $? "integrity_check ok after $rounds kills"
missing=
for id in "${reported[@]}"; do
	[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM results WHERE id = $id")" = 1 ] || missing+=" $id"
done
[ -z "$missing" ]; ok $? "every id reported before a kill is there${missing:+ (missing:$missing)}"
# Each saved result is whole: its metrics came with it in the one transaction.
[ "$(sqlite3 "$db" "SELECT COUNT(*) FROM results r WHERE NOT EXISTS
	(SELECT 1 FROM metrics m WHERE m.result_id = r.id)")" = 0 ]
ok $? "no result without its metrics"
# And the database still takes saves.
"$bp" "${cmd[@]}" >/dev/null 2>"$tap_tmp/err"
grep -q "saved as result" "$tap_tmp/err"; ok $? "a save after the kills succeeds"
[ "${#reported[@]}" -gt 0 ]; ok $? "some rounds saved before the kill (the test reached the save)"

# --- ten processes at once ----------------------------------------------------------------
pdb="$tap_tmp/parallel.db"
pids=()
for i in $(seq 10); do
	"$bp" cpu -a sha256 --sizes 16 -t 0.02 --json --label "p$i" --db "$pdb" \
		>"$tap_tmp/p$i.out" 2>"$tap_tmp/p$i.err" &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
[ "$fails" = 0 ]; ok $? "ten processes saving at once: all exit 0"
! cat "$tap_tmp"/p*.err | grep -q "not saved"; ok $? "none says 'not saved'"
grep -h "not saved" "$tap_tmp"/p*.err | sed 's/^/#   /'
[ "$(sqlite3 "$pdb" "SELECT COUNT(DISTINCT label) FROM results")" = 10 ]
ok $? "all ten saved ($(sqlite3 "$pdb" "SELECT COUNT(*) FROM results") results)"
[ "$(sqlite3 "$pdb" "PRAGMA integrity_check")" = ok ]; ok $? "integrity_check ok after them"
tap_done
