#!/usr/bin/env bash
# The .deb as a Debian user gets it (tools/deb/build.sh), built from this build's binary for
# this machine's architecture and unpacked into a scratch root (dpkg -x: nothing is installed
# on this system): its files, boardperf(1) against --help, the bash completion against --help,
# boardperf-serve.service (systemd-analyze verify) and lintian where it is installed.
# Usage: test_deb.sh BOARDPERF
set -u
bp=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tap.sh"
tools=$here/../../tools/deb
work=$(mktemp -d -t "bp-$BP_RUN-deb-XXXXXX")
trap 'rm -rf "$work" "$tap_tmp"' EXIT
arch=$(dpkg --print-architecture)
version=$("$bp" --version | sed -n '1s/^boardperf \([^ ]*\) .*/\1/p')

# Stripped as tools/dist.sh strips (the package's binary is; lintian says so otherwise).
strip -R .comment -o "$work/boardperf" "$bp" || { echo "Bail out! strip $bp"; exit 1; }
bp=$work/boardperf
deb=$("$tools/build.sh" "$arch" "$bp" "$bp" "$version" "$work/out" 2>"$work/build.err")
ok $? "build.sh makes $(basename "${deb:-none}") $(cat "$work/build.err")"
[ -f "${deb:-/nonexistent}" ] || { echo "1..$tap_n"; exit 1; }
info=$(dpkg-deb -f "$deb" Package Version Architecture)
[ "$info" = "$(printf 'Package: boardperf\nVersion: %s\nArchitecture: %s' "$version" "$arch")" ]
ok $? "control: boardperf $version $arch ($(tr '\n' ' ' <<<"$info"))"
"$tools/build.sh" "$arch" "$bp" "$bp" 9.9.9 "$work/bad" >/dev/null 2>"$work/bad.err"
[ $? -ne 0 ] && grep -q "changelog's top entry is '$version', not version '9.9.9'" "$work/bad.err"
ok $? "a version the changelog does not have is refused: $(cat "$work/bad.err")"

root=$work/root
dpkg -x "$deb" "$root"
ok $? "dpkg -x into a scratch root"
for f in usr/bin/boardperf usr/share/man/man1/boardperf.1.gz \
	usr/share/bash-completion/completions/boardperf lib/systemd/system/boardperf-serve.service \
	usr/share/doc/boardperf/copyright usr/share/doc/boardperf/changelog.gz \
	usr/share/doc/boardperf/README.md.gz usr/share/doc/boardperf/docs/json.md.gz; do
	[ -f "$root/$f" ]; ok $? "has /$f"
done
cmp -s "$bp" "$root/usr/bin/boardperf" && [ -x "$root/usr/bin/boardperf" ]
ok $? "/usr/bin/boardperf is the binary, executable"
bad=$(find "$root" ! -path "$root/usr/bin/boardperf" -type f -perm /111)
[ -z "$bad" ]; ok $? "no other file is executable: ${bad:-none}"
dpkg-deb -e "$deb" "$work/ctl" && (cd "$root" && md5sum --quiet -c "$work/ctl/md5sums")
ok $? "md5sums match every file"
[ "$(zcat "$root/usr/share/doc/boardperf/changelog.gz" | sed -n '1s/^boardperf (\([^)]*\)).*/\1/p')" = "$version" ]
ok $? "changelog's top entry is $version"
head -1 "$root/usr/share/doc/boardperf/copyright" | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'
ok $? "copyright is in Debian's machine-readable format"

# The man page renders without a warning from groff, and lists what --help lists. The names
# are read from each side's text on its own (not from the generator's parse).
page=$root/usr/share/man/man1/boardperf.1.gz
man_txt=$(MANWIDTH=120 man --warnings -l "$page" 2>"$work/man.err" | col -b)
[ -n "$man_txt" ] && [ ! -s "$work/man.err" ] && grep -q '^NAME' <<<"$man_txt"
ok $? "man -l renders it, no warnings: $(head -3 "$work/man.err")"
names() { # option names at the start of lines: "-c, --client", "--json", "-1"
	sed -E 's/^ +//' | grep -oE '^(-[A-Za-z0-9], )?--[a-z0-9-]+|^-[A-Za-z0-9]' | tr ', ' '\n\n' | grep . | sort -u
}
help_cmds=$("$bp" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}')
man_cmds=$(awk '/^COMMANDS/ {on = 1; next} /^[A-Z]/ {on = 0} on && /^       [a-z0-9]+( |$)/ {print $1}' <<<"$man_txt")
[ -n "$help_cmds" ] && [ "$help_cmds" = "$man_cmds" ]
ok $? "COMMANDS lists the commands of --help: $(echo $man_cmds)"
for c in $help_cmds; do
	h=$("$bp" "$c" --help | grep -E '^ +-' | names)
	# the command's subsection: from "   boardperf CMD" to the next subsection or section
	m=$(awk -v c="$c" '$0 == "   boardperf " c {on = 1; next} on && /^(   )?[A-Za-z]/ {on = 0}
		on && /^       -/' <<<"$man_txt" | names)
	[ -n "$h" ] && [ "$h" = "$m" ]
	ok $? "man page's boardperf $c has --help's $(wc -l <<<"$h") options$( [ "$h" = "$m" ] || diff <(echo "$h") <(echo "$m") | tr '\n' ' ')"
done

# Completion: the commands at the top level, each command's options after it.
comp=$root/usr/share/bash-completion/completions/boardperf
complete_words() { # complete_words WORD...: what completing after those words offers
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _boardperf
		printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$comp" boardperf "$@"
}
top=$(complete_words '')
[ "$(grep -v '^-' <<<"$top")" = "$(sort -u <<<"$help_cmds")" ]; ok $? "completes the commands"
for c in $help_cmds; do
	h=$("$bp" "$c" --help | grep -E '^ +-' | names)
	[ "$(complete_words "$c" -)" = "$h" ]; ok $? "completes boardperf $c's options"
done
[ "$(complete_words tcp --max)" = "" ] && [ "$(complete_words serve --max-cl)" = "--max-clients" ]
ok $? "completes a prefix only to that command's options"
[ "$(complete_words serve --psk "$root/usr/share/doc/boardperf/copy")" = "$root/usr/share/doc/boardperf/copyright" ]
ok $? "an option taking a FILE completes a path"

# The unit: what it runs and with which rights, then systemd's own check (the binary's
# path pointed at the scratch root, the man page found there).
unit=$root/lib/systemd/system/boardperf-serve.service
key() { sed -n "s/^$1=//p" "$unit"; }
[ "$(key ExecStart)" = '/usr/bin/boardperf serve $BOARDPERF_SERVE_OPTS' ]; ok $? "ExecStart runs boardperf serve"
[ "$(key DynamicUser)" = yes ] && [ -z "$(key AmbientCapabilities)" ] && [ -z "$(key CapabilityBoundingSet)" ] &&
	grep -q '^CapabilityBoundingSet=$' "$unit" && [ "$(key NoNewPrivileges)" = yes ] &&
	[ "$(key ProtectSystem)" = strict ] && [ "$(key PrivateTmp)" = yes ]
ok $? "DynamicUser, no capabilities, NoNewPrivileges, ProtectSystem=strict, PrivateTmp"
[ "$(key RestrictAddressFamilies)" = "AF_INET AF_INET6 AF_UNIX AF_NETLINK" ]; ok $? "RestrictAddressFamilies"
! grep -q -- '--max-[a-z-]* 0\b' "$unit"; ok $? "no limit turned off"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$work/unit"
	sed "s|/usr/bin/boardperf|$root/usr/bin/boardperf|" "$unit" >"$work/unit/boardperf-serve.service"
	v=$(MANPATH=$root/usr/share/man systemd-analyze verify "$work/unit/boardperf-serve.service" 2>&1)
	[ $? -eq 0 ] && [ -z "$v" ]; ok $? "systemd-analyze verify: ${v:-clean}"
	e=$(systemd-analyze security --offline=yes "$work/unit/boardperf-serve.service" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$e" ] && awk -v e="$e" 'BEGIN {exit !(e <= 2.0)}'
	ok $? "systemd-analyze security: exposure ${e:-none} (at most 2.0, \"OK\")"
else
	skip "systemd-analyze verify" "systemd-analyze not installed"
fi

if command -v lintian >/dev/null; then
	# This build's binary is linked dynamically, the package's statically (tools/dist.sh):
	# the tags only a dynamic binary gets, and the static one's override, do not count here.
	l=$(lintian --pedantic --suppress-tags undeclared-elf-prerequisites,unused-override "$deb" 2>&1 |
		grep -v '^running with root privileges')
	[ -z "$l" ]; ok $? "lintian --pedantic: ${l:-clean}"
else
	skip "lintian" "lintian not installed (apt-get install lintian)"
fi
echo "1..$tap_n"
[ "$tap_failed" -eq 0 ]
