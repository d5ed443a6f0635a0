#!/usr/bin/env bash
# The .deb as a Debian user gets it (tools/deb/build.sh), built from this build's binary for
# this machine's architecture and unpacked into a scratch root (dpkg -x: nothing is installed
# on this system): its files; boardperf(1) and the bash completion, which the binary writes
# from its option tables, against --help, rendered by groff and man, the same whatever the
# terminal; boardperf-serve.service (systemd-analyze verify) and lintian where it is installed.
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

# The man page is the binary's own (boardperf --man, written from its option tables), the
# same bytes whatever the terminal: $COLUMNS, a terminal's width, a terminal or a pipe.
page=$root/usr/share/man/man1/boardperf.1.gz
day=$(date -u -d "@$(date -d "$(sed -n 's/^ -- .*>  //p' "$tools/changelog" | head -1)" +%s)" +%F)
zcat "$page" >"$work/page.1"
"$bp" --man "$day" | cmp -s - "$work/page.1"
ok $? "the package's page is 'boardperf --man $day'"
on_tty() { # on_tty COLS CMD...: CMD's stdout on a terminal COLS wide (script(1)'s pty)
	local cols=$1; shift
	script -qec "stty cols $cols rows 24; $(printf '%q ' "$@")" /dev/null </dev/null | tr -d '\r'
}
for gen in "--man $day" --bash-completion; do
	ref=$("$bp" $gen | md5sum)
	narrow=$(COLUMNS=40 "$bp" $gen | md5sum)
	wide=$(COLUMNS=200 "$bp" $gen | md5sum)
	tty40=$(on_tty 40 env COLUMNS=40 "$bp" $gen | md5sum)
	tty200=$(on_tty 200 "$bp" $gen | md5sum)
	[ "$narrow" = "$ref" ] && [ "$wide" = "$ref" ] && [ "$tty40" = "$ref" ] && [ "$tty200" = "$ref" ]
	ok $? "boardperf $gen: the same bytes under COLUMNS=40 and 200, on terminals 40 and 200 wide"
done
[ "$(tr -d '\000-\177' <"$work/page.1" | wc -c)" -eq 0 ]
ok $? "the page is ASCII (anything else as \\[uXXXX])"
g=$(groff -man -ww -z "$work/page.1" 2>&1)
[ -z "$g" ]; ok $? "groff -man -ww: no warnings $(head -3 <<<"$g")"
man_txt=$(MANWIDTH=80 man --warnings -l "$page" 2>"$work/man.err" | col -b)
[ -n "$man_txt" ] && [ ! -s "$work/man.err" ]
ok $? "man --warnings -l renders it 80 wide, no warnings: $(head -3 "$work/man.err")"
sections=$(grep -E '^[A-Z][A-Z ]+$' <<<"$man_txt" | tr '\n' ,)
[ "$sections" = "NAME,SYNOPSIS,DESCRIPTION,COMMANDS,OPTIONS,EXIT STATUS,FILES,SEE ALSO," ]
ok $? "sections: $sections"
# --help fills its lines to the terminal (docs/results.md, "Text output"): read at the widest,
# each option on one line, as the page has it
export COLUMNS=1000
help_cmds=$("$bp" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}')
man_cmds=$(awk '/^COMMANDS/ {on = 1; next} /^[A-Z]/ {on = 0} on && /^       [a-z0-9]+( |$)/ {print $1}' <<<"$man_txt")
[ -n "$help_cmds" ] && [ "$help_cmds" = "$man_cmds" ]
ok $? "COMMANDS lists the commands of --help: $(echo $man_cmds)"
# What the page says of each command, read back from its roff on its own: the usage line,
# the summary and "NAMES VALUE TEXT" of each option (.TP), unescaped; "-": boardperf's own
# options (OPTIONS before the first subsection).
perl -CO -ne '
	sub un { my $s = shift;
		$s =~ s/\\(f[BIR]|-|e|&|~|\((dq|aq|ga)|\[u([0-9A-F]{4,6})\])/
			$3 ? chr(hex $3) : $2 ? {dq => "\"", aq => "\x27", ga => "`"}->{$2} :
			{"-" => "-", e => "\\", "&" => "", "~" => " "}->{$1} \/\/ ""/ge;
		return $s }
	chomp;
	if (/^\.SH OPTIONS$/) { $cmd = "-"; $state = ""; next }
	if (/^\.S[HS]/ && !/^\.SS boardperf (.*)/) { $cmd = ""; next }
	if (/^\.SS boardperf (.*)/) { $cmd = un($1); $state = "usage"; next }
	next if $cmd eq "";
	if ($state eq "usage") { print "$cmd\tUsage: ", un($_), "\n"; $state = "br" }
	elsif ($state eq "br") { $state = /^\.br$/ ? "summary" : "bad" }
	elsif ($state eq "summary") { print "$cmd\t", un($_), "\n"; $state = "" }
	elsif (/^\.TP$/) { $state = "tag" }
	elsif ($state eq "tag") { $tag = un($_); $state = "text" }
	elsif ($state eq "text") { print "$cmd\t$tag ", un($_), "\n"; $state = "" }
	else { print "$cmd\tunexpected: $_\n" }
' "$work/page.1" | sed -E 's/ +/ /g' >"$work/page.view"
view() { # view CMD: the page's lines of CMD
	awk -F'\t' -v c="$1" '$1 == c {print $2}' "$work/page.view"
}
squeeze() { sed -E 's/^ +//; s/ +/ /g'; }
h=$("$bp" --help | grep -E '^ +-' | squeeze)
[ -n "$h" ] && [ "$h" = "$(view -)" ]
ok $? "OPTIONS: boardperf's own options as --help gives them$( [ "$h" = "$(view -)" ] || diff <(echo "$h") <(view -) | tr '\n' ' ')"
for c in $help_cmds; do
	# --help's lines but its headings: the usage line, the summary, one line per option
	h=$("$bp" "$c" --help | grep -vE '^$|^(Common o|O)ptions:$' | squeeze)
	m=$(view "$c")
	[ "$(grep -c '^-' <<<"$h")" -ge 4 ] && [ "$h" = "$m" ]
	ok $? "boardperf $c in the page says what its --help says: usage, summary, $(grep -c '^-' <<<"$h") options$( [ "$h" = "$m" ] || diff <(echo "$h") <(echo "$m") | tr '\n' ' ')"
done
[ "$(cut -f1 "$work/page.view" | sort -u | grep -cvx -- -)" -eq "$(wc -l <<<"$help_cmds")" ]
ok $? "the page has a subsection for each command and for nothing else"

# Completion (boardperf --bash-completion): the commands at the top level, each command's
# options after it, read against --help.
comp=$root/usr/share/bash-completion/completions/boardperf
"$bp" --bash-completion | cmp -s - "$comp"
ok $? "the package's completion is 'boardperf --bash-completion'"
bash -n "$comp"; ok $? "bash -n: the completion parses"
names() { # option names at the start of lines: "-c, --client", "--json", "-1"
	sed -E 's/^ +//' | grep -oE '^(-[A-Za-z0-9], )?--[a-z0-9-]+|^-[A-Za-z0-9]' | tr ', ' '\n\n' | grep . | sort -u
}
complete_words() { # complete_words WORD...: what completing after those words offers
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _boardperf
		printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$comp" boardperf "$@"
}
top=$(complete_words '')
[ "$(grep -v '^-' <<<"$top")" = "$(sort -u <<<"$help_cmds")" ]; ok $? "completes the commands"
[ "$(grep '^-' <<<"$top")" = "$("$bp" --help | grep -E '^ +-' | names)" ]
ok $? "completes boardperf's own options: $(grep '^-' <<<"$top" | tr '\n' ' ')"
for c in $help_cmds; do
	h=$("$bp" "$c" --help | grep -E '^ +-' | names)
	[ "$(complete_words "$c" -)" = "$h" ]; ok $? "completes boardperf $c's options"
done
[ "$(complete_words tcp --max)" = "" ] && [ "$(complete_words serve --max-cl)" = "--max-clients" ]
ok $? "completes a prefix only to that command's options"
[ "$(complete_words serve --psk "$root/usr/share/doc/boardperf/copy")" = "$root/usr/share/doc/boardperf/copyright" ]
ok $? "an option taking a FILE completes a path"
[ "$(complete_words run --suite '' | tr '\n' ' ')" = "full quick " ] &&
	[ "$(complete_words disk --engine i)" = io_uring ]
ok $? "an option of a few choices completes them"
[ -z "$(complete_words tcp -c '')" ] && [ -z "$(complete_words tcp --time 1)" ]
ok $? "an option taking a host or a number completes nothing"
[ "$(complete_words gpio --readback --rea)" = "--readback" ]
ok $? "after --readback (its value only after '=') come options"

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
