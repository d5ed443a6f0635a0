#!/bin/bash
# What saving a result costs: the same short command with and without --no-save, alternating
# round by round (which goes first alternates too), wall time of the whole process each.
# Prints each round, the medians, the database's bytes per result and the median per-round
# difference (the save: opening the database, rendering the other forms, one transaction)
# beside the worst round's.
#   bash bench/save.sh [BOARDPERF] [ROUNDS]
set -u
. "$(dirname "$0")/lib.sh"
bp=${1:-build/boardperf}
rounds=${2:-31}
need sqlite3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/results.db"
cmd=("$bp" cpu -a sha256 --sizes 16 -t 0.02 --db "$db")

# wall_ms ARGS...: milliseconds of one run of cmd with ARGS
wall_ms() {
	local t0 t1
	t0=$(date +%s%N)
	"${cmd[@]}" "$@" >/dev/null 2>&1 || die "the command failed: ${cmd[*]} $*"
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e6 }'
}

"${cmd[@]}" >/dev/null 2>&1  # warm: the database made, the binary in the page cache
: >"$tmp/saved"; : >"$tmp/unsaved"; : >"$tmp/diff"
for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then s=$(wall_ms); n=$(wall_ms --no-save); else n=$(wall_ms --no-save); s=$(wall_ms); fi
	echo "round $i: saved=${s} ms no-save=${n} ms"
	echo "$s" >>"$tmp/saved"; echo "$n" >>"$tmp/unsaved"
	awk -v a="$s" -v b="$n" -v i="$i" 'BEGIN { printf "%.3f round %d\n", a - b, i }' >>"$tmp/diff"
done
results=$(sqlite3 "$db" "SELECT COUNT(*) FROM results")
bytes=$(stat -c %s "$db")
echo "median saved: $(median <"$tmp/saved") ms, median --no-save: $(median <"$tmp/unsaved") ms"
echo "database: $results results, $bytes bytes ($((bytes / results)) B per result)"
echo "median cost of a save: $(median <"$tmp/diff") ms, worst $(worst "$tmp/diff" lower) ms"
