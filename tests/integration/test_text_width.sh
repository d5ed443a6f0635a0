#!/usr/bin/env bash
# Text that fits an 80-column terminal (issue 33, docs/results.md "Text output"): every
# command's default text and its --help at COLUMNS=80, on loopback, short runs (~30 s in
# all, together 11 s of it; run's quick suite is test_run.sh's, gpio's text the emulated
# boards'); a line wider than 80 columns fails, naming the command and the line. stdout,
# and gpio's error on stderr (this kernel has no GPIO). The runs' figures are not checked.
# Usage: [BP_PART=all|plain|timed] test_text_width.sh BOARDPERF
set -u
bp=$1
. "$(dirname "$0")/tap.sh"

bp_ports 2; sport=$BP_PORT hport=$((BP_PORT + 1))  # serve, serve --http (tap.sh)
db="$tap_tmp/results.db"
export COLUMNS=80
"$bp" serve -p "$sport" --http "$hport" --idle-timeout 3 2>"$tap_tmp/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tap_tmp"' EXIT
wait_log "$tap_tmp/serve.log" listening

# fits NAME CMD...: CMD's stdout at COLUMNS=80 has no line over 80 columns; the first wide
# lines are printed.
fits() {
	local name=$1 wide
	shift
	"$@" >"$tap_tmp/out" 2>"$tap_tmp/err" </dev/null
	wide=$(wide_lines "$tap_tmp/out")
	[ -z "$wide" ] && [ -s "$tap_tmp/out" ]
	ok $? "$name: $(wc -l <"$tap_tmp/out") lines, none over 80 columns"
	[ -z "$wide" ] || echo "$wide"
	[ -s "$tap_tmp/out" ] || sed 's/^/#   stderr: /' "$tap_tmp/err" | head -3
}

if plain; then
	net=(-c 127.0.0.1 -p "$sport")
	fits "tcp" "$bp" tcp "${net[@]}" -t 1 --db "$db"
	fits "tcp -P 2 -R" "$bp" tcp "${net[@]}" -t 1 -P 2 -R --db "$db"
	fits "udp" "$bp" udp "${net[@]}" -t 1 -b 10M --db "$db"
	fits "rr" "$bp" rr "${net[@]}" -t 1 --db "$db"
	fits "crr" "$bp" crr "${net[@]}" -t 1 --db "$db"
	fits "rfc2544" "$bp" rfc2544 "${net[@]}" --max 100M --sizes 64,1518 --trial 0.2 --db "$db"
	fits "http" "$bp" http -c 2 -t 1 --db "$db" "http://127.0.0.1:$hport/"
	fits "latency" "$bp" latency "${net[@]}" -t 1 --idle-time 1 -O 0 --db "$db"
	fits "cpu" "$bp" cpu -t 0.05 --db "$db"
	fits "mem" "$bp" mem -t 0.2 --db "$db"
	fits "disk" "$bp" disk -d "$tap_tmp" --size 8M --files 4 -t 1 --db "$db"
	fits "info" "$bp" info --db "$db"
	fits "together" "$bp" together --no-alone --db "$db" "cpu -a sha256 --sizes 16 -t 0.05" "mem -t 0.2"
	fits "metrics" "$bp" metrics
	fits "history" "$bp" history --db "$db"
	fits "show (cpu)" "$bp" show --db "$db" "$("$bp" history --db "$db" --test cpu | awk 'NR == 2 { print $1 }')"
	# an error is one line on stderr, and one that names no long value fits too: gpio's on
	# this machine, whose kernel has no GPIO (on the emulated boards it measures:
	# tools/boards)
	"$bp" gpio --list >/dev/null 2>"$tap_tmp/err"
	wide=$(wide_lines "$tap_tmp/err")
	[ -z "$wide" ] && [ "$(wc -l <"$tap_tmp/err")" = 1 ]
	ok $? "gpio's error: one line of $(awk '{ print length($0) }' "$tap_tmp/err") columns"
	for cmd in $("$bp" --help | awk '/^Commands/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
		fits "$cmd --help" "$bp" "$cmd" --help
	done
fi
tap_done
