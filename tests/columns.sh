# shellcheck shell=bash
# Sourced by tests/integration/tap.sh and tools/boards/check.sh: how wide text is, in the
# columns a terminal gives it. A column is a UTF-8 character: its continuation bytes
# (0x80-0xbf) take none.

# columns_awk: an awk program's prefix that sets `cols` to the line's width.
columns_awk='{ s = $0; gsub(/[\200-\277]/, "", s); cols = length(s) }'
# widest [FILE]: the widest line's columns (0 for no text).
widest() { LC_ALL=C awk "$columns_awk"' cols > w { w = cols } END { print w + 0 }' "$@"; }
# wide_lines FILE [COLS]: FILE's first 3 lines wider than COLS (80) columns, as
# "#   N columns: LINE".
wide_lines() {
	LC_ALL=C awk -v max="${2:-80}" "$columns_awk"' cols > max { printf "#   %d columns: %s\n", cols, $0 }' \
		"$1" | head -3
}
