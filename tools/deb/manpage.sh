#!/usr/bin/env bash
# boardperf(1), generated from `boardperf --help` and every `boardperf CMD --help`
# (tools/deb/helpspec.sh), so that the man page says what the binary says.
#   usage: tools/deb/manpage.sh BOARDPERF VERSION DATE > boardperf.1   (DATE: YYYY-MM-DD)
set -euo pipefail
bp=${1:?usage: manpage.sh BOARDPERF VERSION DATE} version=${2:?VERSION} date=${3:?DATE}
here=$(dirname "$0")
spec=$("$here/helpspec.sh" "$bp")

# roff: a backslash is \e, a minus is \-, a line must not start with . or '
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"; }

cat <<HEAD
.TH BOARDPERF 1 "$date" "boardperf $version" "User Commands"
.SH NAME
boardperf \- measure a Linux board and the network around it
.SH SYNOPSIS
.B boardperf
[\fICOMMAND\fR] [\fIOPTIONS\fR]
.SH DESCRIPTION
HEAD
"$bp" --help | sed -n 2p | esc
cat <<'TEXT'
Without a command, boardperf runs
.BR run .
Each command has options of its own, listed below and by
.BR "boardperf COMMAND \-\-help" .
.SH COMMANDS
TEXT
awk -F'\t' '$1 == "cmd" {print $2 "\t" $3}' <<<"$spec" | while IFS=$'\t' read -r name desc; do
	echo ".TP"; echo ".B $name"; esc <<<"$desc"
done
# One option: ".TP", the names in bold and the argument in italics, then its text.
options() { # options CMD
	awk -F'\t' -v c="$1" '$1 == "opt" && $2 == c {print $3 "\t" $4 "\t" $5 "\t" $6}' <<<"$spec" |
	while IFS=$'\t' read -r short long arg desc; do
		names=
		[ "$short" = - ] || names="\\fB$(esc <<<"$short")\\fR"
		[ "$long" = - ] || names="${names:+$names, }\\fB$(esc <<<"$long")\\fR"
		[ "$arg" = - ] || names="$names \\fI$(esc <<<"$arg")\\fR"
		echo ".TP"; echo "$names"; esc <<<"$desc"
	done
}
echo ".SH OPTIONS"
options -
awk -F'\t' '$1 == "cmd" {print $2}' <<<"$spec" | while read -r name; do
	echo ".SS boardperf $name"
	echo ".nf"
	"$bp" "$name" --help | sed -n 1p | sed 's/^Usage: //' | esc
	echo ".fi"
	"$bp" "$name" --help | sed -n 2p | esc
	options "$name"
done
cat <<'TAIL'
.SH EXIT STATUS
0 measured, 1 could not measure, 2 usage error.
.SH FILES
.TP
.I /lib/systemd/system/boardperf\-serve.service
runs
.B boardperf serve
as a service with the server's default limits (\fBsystemctl enable \-\-now boardperf\-serve\fR).
.SH SEE ALSO
.BR iperf3 (1),
.BR sysbench (1);
/usr/share/doc/boardperf/README.md.gz and docs/*.md.gz: the manual (the JSON contract in docs/json.md.gz).
TAIL
