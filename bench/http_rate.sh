#!/usr/bin/env bash
# bench/http_rate.sh: latency at a fixed request rate, boardperf http --rate beside h2load
# --rps against the same nginx on loopback (127.0.0.1 only), in one run, interleaved.
#
# The comparison wrk2 made its point with: an open loop's latency counts from each request's
# intended send time, so a client that sends late (a stall, a full pipeline, its own timer's
# lateness) shows it in every request behind it (no coordinated omission). boardperf does
# that (docs/latency.md, "HTTP load"); h2load --rps paces each connection and times each
# request from its actual send (its --log-file: one line per request, microseconds). At a
# rate both hold with room to spare the two clocks should agree, so boardperf's percentiles,
# which also carry any lateness of its own, must be no worse than h2load's.
#
# wrk2 itself, where WRK2 names its binary (it is no Debian package: built from its own
# source, github.com/giltene/wrk2, `make`, and not part of this repository), runs beside them
# as the third tool: its -R over the same connections, one thread, its HdrHistogram's
# corrected percentiles (from each intended send time). It records nothing in its first
# 10 s (its calibration), so each of its runs lasts 10 s longer and counts the last SECONDS.
#
# nginx is this script's own process, one worker, on the last CPU, the clients on the
# others (as bench/http.sh; PIN=0 leaves both to the scheduler); a 100-byte file. Cases are
# RATE:CONNECTIONS (one thread each): per case and tool the median over the rounds of p50,
# p90 and p99 (us) and of the rate held, then the ratios boardperf/h2load (and /wrk2; lower
# is better); the last lines are each ratio's median over the cases with the worst beside it.
#
# Usage: bench/http_rate.sh [BOARDPERF] [ROUNDS] [SECONDS]
#        (or ROUNDS=5 SECONDS=5 in the environment; NGINX_PORT=25222; PIN=0; CASES="R:C ...";
#        WRK2=/path/to/wrk2's/wrk)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/nginx_bench.sh"

bench_args 5 "$@"
port=${NGINX_PORT:-25222}
need nginx
need h2load nghttp2-client
need pgrep procps

if [[ -n ${WRK2:-} ]]; then
	[[ -x $WRK2 ]] || die "WRK2 must name wrk2's binary, not '$WRK2'"
	[[ $("$WRK2" -v 2>&1 || true) == *--rate* ]] || die "WRK2=$WRK2 is no wrk2 (no -R, its rate)"
fi

bench_nginx "$port"
url=http://127.0.0.1:$port/tiny

# pcts: "p50 p90 p99 n" in us from durations in us on stdin (nearest rank)
pcts() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan nan nan 0"; exit }
		split("50 90 99", q, " ")
		for (i = 1; i <= 3; i++) { k = int(NR * q[i] / 100 + 0.999999); if (k < 1) k = 1
			printf "%.1f ", v[k] }
		print NR }'
}

# one_run ROUND TOOL RATE CONNS: appends "p50 p90 p99 rate" to $tmp/RATE:CONNS.TOOL
one_run() {
	local r=$1 tool=$2 rate=$3 c=$4 out=$tmp/out line rc=0
	case $tool in
	boardperf)
		timeout $((secs + 30)) "${cli_pin[@]}" "$bp" http "$url" --rate "$rate" -c "$c" -T 1 \
			-t "$secs" -i 0 --json >"$out" 2>"$out.err" || rc=$?
		line=$(jq -r '[.latency.request.p50, .latency.request.p90, .latency.request.p99]
			| map(. / 1000 * 10 | floor / 10) | join(" ")' "$out" 2>/dev/null || true)
		line="$line $(jq -r '.metrics[] | select(.name == "requests.rate") | .value' "$out" \
			2>/dev/null || true)" ;;
	h2load)
		# --rps is per connection; the log (appended to: removed first): start (us since the
		# epoch), status, duration (us)
		rm -f "$out.log"
		timeout $((secs + 30)) "${cli_pin[@]}" h2load --h1 -c "$c" -t 1 -D "$secs" \
			--rps "$(awk -v r="$rate" -v c="$c" 'BEGIN { printf "%g", r / c }')" \
			--log-file "$out.log" "$url" >"$out" 2>"$out.err" || rc=$?
		read -r p50 p90 p99 n < <(awk '$2 == 200 { print $3 }' "$out.log" 2>/dev/null | pcts)
		line="$p50 $p90 $p99 $(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')" ;;
	wrk2)
		# --latency: its corrected distribution, lines "  50.000%  123.00us" (us, ms or s)
		timeout $((secs + 40)) "${cli_pin[@]}" "$WRK2" -t 1 -c "$c" -d "$((secs + 10))s" \
			-R "$rate" --latency "$url" >"$out" 2>"$out.err" || rc=$?
		line=$(awk '/Latency Distribution \(HdrHistogram - Recorded/ { on = 1 }
			/Detailed Percentile spectrum/ { on = 0 }
			function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000
				if (v ~ /s$/) return v * 1e6; return "" }
			on && $1 == "50.000%" { a = us($2) } on && $1 == "90.000%" { b = us($2) }
			on && $1 == "99.000%" { c = us($2) } /^Requests\/sec:/ { r = $2 }
			END { if (a == "" || b == "" || c == "" || r == "") exit  # no figure: FAILED
				printf "%.1f %.1f %.1f %s", a, b, c, r }' "$out") ;;
	esac
	if ((rc != 0)) || ! [[ $line =~ ^[0-9.]+\ [0-9.]+\ [0-9.]+\ [0-9.e+]+$ ]]; then
		printf 'round %d %s:%s %-9s FAILED (exit %d): %s\n' "$r" "$rate" "$c" "$tool" "$rc" \
			"$(tail -n 2 "$out.err" "$out" 2>/dev/null | tr '\n' ' ' | cut -c1-200)"
		return 0
	fi
	echo "$line" >>"$tmp/$rate:$c.$tool"
	read -r p50 p90 p99 held <<<"$line"
	printf 'r%d %-9s %-9s p50 %7.1f  p90 %7.1f  p99 %7.1f us  %6.0f/s\n' "$r" "$rate:$c" \
		"$tool" "$p50" "$p90" "$p99" "$held"
}

tools=(boardperf h2load)
[[ -n ${WRK2:-} ]] && tools+=(wrk2)
cases=${CASES:-"1000:10 5000:10 20000:50"}
echo "HTTP/1.1 /tiny (100 B) on loopback against nginx $(nginx -v 2>&1 | sed 's/.*\///')," \
	"one worker; ${secs} s per run, $rounds rounds, $ncpu CPUs ($layout);"
echo "$("$bp" --version | head -1) --rate vs h2load" \
	"$(dpkg-query -W -f '${Version}' nghttp2-client 2>/dev/null || echo '?') --rps;" \
	"cases RATE:CONNECTIONS, latency in us"
for ((r = 1; r <= rounds; r++)); do
	for c in $cases; do
		for ((k = 0; k < ${#tools[@]}; k++)); do
			one_run "$r" "${tools[$(((r - 1 + k) % ${#tools[@]}))]}" "${c%%:*}" "${c##*:}"
		done
	done
done

# col FILE N: the median of column N of FILE
col() { if [[ -s $1 ]]; then awk -v n="$2" '{ print $n }' "$1" | median; else echo nan; fi; }
echo
printf '%-11s %-9s %9s %9s %9s %9s\n' case tool "p50 us" "p90 us" "p99 us" "req/s"
for c in $cases; do
	for tool in "${tools[@]}"; do
		printf '%-11s %-9s %9s %9s %9s %9.0f\n' "$c" "$tool" "$(col "$tmp/$c.$tool" 1)" \
			"$(col "$tmp/$c.$tool" 2)" "$(col "$tmp/$c.$tool" 3)" "$(col "$tmp/$c.$tool" 4)"
	done
	for tool in "${tools[@]:1}"; do
		line="$c boardperf/$tool:"
		for q in 1 2 3; do
			a=$(col "$tmp/$c.boardperf" "$q") b=$(col "$tmp/$c.$tool" "$q")
			[[ $a == nan || $b == nan ]] && continue
			x=$(ratio "$a" "$b")
			echo "$x $c" >>"$tmp/r.$tool.$q"
			line+=" p$(cut -d' ' -f"$q" <<<"50 90 99") $x"
		done
		echo "$line"
	done
done
echo
for tool in "${tools[@]:1}"; do
	for q in 1 2 3; do
		echo "median ratio boardperf/$tool p$(cut -d' ' -f"$q" <<<"50 90 99") latency:" \
			"$(if [[ -s $tmp/r.$tool.$q ]]; then median <"$tmp/r.$tool.$q"; else echo nan; fi)," \
			"worst $(worst "$tmp/r.$tool.$q" lower)"
	done
done
