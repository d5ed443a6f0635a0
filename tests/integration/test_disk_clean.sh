#!/usr/bin/env bash
# Issue 31, item 1: `disk --clean` removes only what boardperf made and can prove so. A run
# SIGKILLed after making its set (4 files of 16 KiB in a folder with the marker) leaves the
# folder; someone then puts files of their own in it: a test_file.7 of 16 bytes, a
# test_file.2 of the set's exact size in place of ours (same name, same size, another
# file), a symlink test_file.1 pointing out of the folder, and a notes.txt. The next run
# names the folder and what in it is not boardperf's; --clean removes test_file.0 and
# test_file.3 (the marker proves them: inode, birth time, size), leaves every foreign entry
# byte for byte, follows no symlink, keeps the folder and its marker, and says what it
# removed, what it left and why (cleanup-failed, not params.cleaned). Once the foreign
# entries are gone, --clean removes the rest and the folder. A symlinked folder with a
# marker elsewhere is never entered. Plain (nothing timed): 5 disk runs of 0.2 s on a few
# 16 KiB files in $tap_tmp, ~3 s in all. Usage: test_disk_clean.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"; }
trap cleanup EXIT

stale=$tap_tmp/stale
mkdir "$stale"
"$bp" disk --dir "$stale" --size 64K --files 4 -t 30 -i 0 -q --no-save &
pid=$!
for _ in $(seq 100); do
	[ "$(stat -c %s "$stale"/boardperf-disk.??????/test_file.3 2>/dev/null)" = 16384 ] && break
	sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
pid=
left=$(ls -d "$stale"/boardperf-disk.?????? 2>/dev/null)
[ -n "$left" ] && [ -f "$left/boardperf-marker" ] && [ -f "$left/test_file.3" ]
ok $? "SIGKILL leaves the folder with its marker and set: ${left:-none}"

# someone else's entries: kept copies to compare with afterwards
head -c 16 /dev/urandom >"$tap_tmp/seven" && cp "$tap_tmp/seven" "$left/test_file.7"
head -c 16384 /dev/urandom >"$tap_tmp/two" && rm "$left/test_file.2" &&
	cp "$tap_tmp/two" "$left/test_file.2"
head -c 16384 /dev/urandom >"$tap_tmp/outside" && cp "$tap_tmp/outside" "$tap_tmp/outside.copy"
rm "$left/test_file.1" && ln -s "$tap_tmp/outside" "$left/test_file.1"
echo "my notes" >"$left/notes.txt"
# a folder elsewhere with a marker, reached only through a symlink in PATH
mkdir "$tap_tmp/elsewhere" && cp "$left/boardperf-marker" "$tap_tmp/elsewhere/" &&
	cp "$tap_tmp/two" "$tap_tmp/elsewhere/test_file.0" &&
	ln -s "$tap_tmp/elsewhere" "$stale/boardperf-disk.linked"
intact() { # intact: every foreign entry is as it was put there
	cmp -s "$tap_tmp/seven" "$left/test_file.7" && cmp -s "$tap_tmp/two" "$left/test_file.2" &&
		[ -L "$left/test_file.1" ] && [ "$(readlink "$left/test_file.1")" = "$tap_tmp/outside" ] &&
		cmp -s "$tap_tmp/outside" "$tap_tmp/outside.copy" &&
		[ "$(cat "$left/notes.txt")" = "my notes" ] &&
		cmp -s "$tap_tmp/two" "$tap_tmp/elsewhere/test_file.0" &&
		[ -f "$tap_tmp/elsewhere/boardperf-marker" ] && [ -L "$stale/boardperf-disk.linked" ]
}

expect_exit 0 "a run without --clean" "$bp" disk --dir "$stale" --size 16K --files 1 -t 0.2 \
	-i 0 --json --no-save
jq -e --arg f "$left" '[.warnings[] | select(.code == "stale-files")] | length == 1 and
	(.[0].message | contains($f) and contains("32.0 KiB in 2 files boardperf made") and
	 contains("leaves the 4 entries it did not make"))' <<<"$out" >/dev/null
ok $? "it names the folder, its 2 files of boardperf's (32 KiB) and the 4 entries that are not"
[ "$(jq -r '[.warnings[] | select(.code == "stale-files")][0].message' <<<"$out")" ] &&
	jq -r '[.warnings[] | select(.code == "stale-files")][0].message' <<<"$out" | sed 's/^/#   /'

expect_exit 0 "a run with --clean" "$bp" disk --dir "$stale" --size 16K --files 1 -t 0.2 \
	-i 0 --clean --json --no-save
intact; ok $? "--clean: the foreign test_file.7 (16 B), test_file.2 (16 KiB), notes.txt, the symlink and its target are intact"
[ ! -e "$left/test_file.0" ] && [ ! -e "$left/test_file.3" ]
ok $? "--clean: the files boardperf made (test_file.0, test_file.3) are gone"
[ -f "$left/boardperf-marker" ]; ok $? "--clean: the folder keeps its marker (named again next time)"
msg=$(jq -r '[.warnings[] | select(.code == "cleanup-failed")][0].message // ""' <<<"$out")
echo "#   $msg"
grep -qF "$left: removed the 2 files boardperf made there (32.0 KiB); left 4 entries boardperf did not make" <<<"$msg"
ok $? "--clean says what it removed and what it left"
jq -e '.params.cleaned == []' <<<"$out" >/dev/null; ok $? "--clean does not count the folder as cleaned"
grep -qE "'(test_file\.[127]|notes\.txt)': " <<<"$msg"; ok $? "--clean names a left entry and why"

# the reasons, one foreign entry at a time
why_of() { # why_of NAME: --clean's reason for leaving NAME, the only foreign entry then
	local keep
	for keep in test_file.7 test_file.2 test_file.1 notes.txt; do
		[ "$keep" = "$1" ] || mv "$left/$keep" "$tap_tmp/aside.$keep"
	done
	"$bp" disk --dir "$stale" --size 16K --files 1 -t 0.2 -i 0 --clean --json --no-save 2>/dev/null |
		jq -r '[.warnings[] | select(.code == "cleanup-failed")][0].message // ""'
	for keep in test_file.7 test_file.2 test_file.1 notes.txt; do
		[ "$keep" = "$1" ] || mv "$tap_tmp/aside.$keep" "$left/$keep"
	done
}
w=$(why_of test_file.7); echo "#   $w"
grep -qF "'test_file.7': not among the files the marker records" <<<"$w"
ok $? "test_file.7 of 16 bytes: not among the files the marker records"
w=$(why_of test_file.2); echo "#   $w"
grep -qF "'test_file.2': another file than the one boardperf made there" <<<"$w"
ok $? "test_file.2 of the set's size: another file than the one boardperf made"
w=$(why_of test_file.1); echo "#   $w"
grep -qF "'test_file.1': a symbolic link" <<<"$w"; ok $? "test_file.1: a symbolic link, not followed"
intact; ok $? "after three more --clean runs every foreign entry is still intact"

rm "$left/test_file.7" "$left/test_file.2" "$left/test_file.1" "$left/notes.txt"
expect_exit 0 "--clean once the foreign entries are gone" "$bp" disk --dir "$stale" --size 16K \
	--files 1 -t 0.2 -i 0 --clean --json --no-save
[ ! -e "$left" ] && jq -e --arg f "$left" '.params.cleaned == [$f]' <<<"$out" >/dev/null
ok $? "--clean removes the marker and the folder, and says so (params.cleaned)"
[ "$(ls -A "$stale")" = boardperf-disk.linked ] && cmp -s "$tap_tmp/two" "$tap_tmp/elsewhere/test_file.0"
ok $? "the symlinked folder with a marker elsewhere is neither entered nor removed"

tap_done
