#!/usr/bin/env bash
# The commands and options `boardperf --help` and `boardperf CMD --help` list, one per line,
# for the man page, the completion and their test (tools/deb/*):
#   cmd NAME DESCRIPTION           a command, from the top-level --help
#   opt CMD SHORT LONG ARG DESC    an option ("-" for a missing short form or argument)
# CMD is "-" for the top-level options (--version, --help). The options of the "Common
# options" section are listed under each command, as its --help shows them.
#   usage: tools/deb/helpspec.sh BOARDPERF
set -euo pipefail
bp=${1:?usage: helpspec.sh BOARDPERF}

# An option line: "  -c, --client HOST          text" or "      --long ARG text" (a long
# spec leaves one space before the text). The argument is one word in capitals (N|all, REQ[,RESP], TEXT|@FILE too).
parse_opts() { # parse_opts CMD < help text
	awk -v cmd="$1" '
	/^ +-/ {
		line = $0; sub(/^ +/, "", line)
		short = "-"; long = "-"; arg = "-"
		n = split(line, w, " ")
		i = 1
		if (w[i] ~ /^-[A-Za-z0-9],$/) { short = substr(w[i], 1, 2); i++ }
		if (w[i] ~ /^--[a-z0-9-]+$/) { long = w[i]; i++ }
		# an optional value: "--readback[=N]"
		else if (w[i] ~ /^--[a-z0-9-]+\[=[A-Z]+\]$/) {
			long = w[i]; sub(/\[.*/, "", long); arg = substr(w[i], length(long) + 1); i++
		}
		else if (short == "-") next
		# an argument: a word in capitals right after the names, unless the names
		# already ended at a gap of two spaces (then it is the text: "TCP_NODELAY: ...")
		if (arg == "-" && i <= n && w[i] ~ /^[A-Z][][A-Za-z0-9|_@,:]*$/ && !index(line, (long != "-" ? long : short) "  "))
			{ arg = w[i]; i++ }
		desc = ""
		for (; i <= n; i++) desc = desc (desc == "" ? "" : " ") w[i]
		printf "opt\t%s\t%s\t%s\t%s\t%s\n", cmd, short, long, arg, desc
	}'
}

top=$("$bp" --help)
# Commands: the lines under "Commands:" up to the first blank line.
cmds=$(awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z0-9]+ / {
	name = $1; sub(/^  [a-z0-9]+ +/, ""); printf "cmd\t%s\t%s\n", name, $0 }' <<<"$top")
[ -n "$cmds" ] || { echo "helpspec.sh: '$bp --help' lists no commands" >&2; exit 1; }
echo "$cmds"
# The top level's own options (after the commands; "-h, --help" is implied by --help itself).
awk '/^Commands:/ {on = 1} on && /^$/ {after = 1} after' <<<"$top" | parse_opts -
echo -e "opt\t-\t-h\t--help\t-\tshow this help"
while IFS=$'\t' read -r _ name _; do
	"$bp" "$name" --help | parse_opts "$name"
done <<<"$cmds"
