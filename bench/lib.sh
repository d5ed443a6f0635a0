# Shared helpers for bench scripts (sourced). The convention: run boardperf and the stock
# tool alternately in one run (the machines are shared and noisy, so interleave and repeat),
# print each round's pair, and end with one line per figure: "median ratio <what>: X.XX,
# worst W.WW (CASE)": the median over the cases and, beside it, the case furthest behind, so
# that a median never hides a case that is behind.

# median: the median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit 1 }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# worst FILE higher|lower|one: "W.WW (CASE)", the case furthest behind among FILE's lines
# "RATIO CASE...": the lowest ratio where higher is better (rates), the highest where lower is
# (CPU per unit of work), the furthest from 1 where 1 is exact (counts against a counter).
worst() {
	[[ -s $1 ]] || { echo nan; return 0; }
	awk -v dir="$2" '{
		r = $1 + 0
		d = dir == "higher" ? -r : dir == "lower" ? r : (r > 1 ? r - 1 : 1 - r)
		if (NR == 1 || d > far) { far = d; line = $0 }
	} END {
		n = split(line, f, " "); c = f[2]
		for (i = 3; i <= n; i++) c = c " " f[i]
		printf "%.2f (%s)\n", f[1], c
	}' "$1"
}

# ratio A B: A / B with three decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'
}

# bench_rounds N CMD_A CMD_B: runs "CMD_A" and "CMD_B" (each printing one number, higher
# better) N times, alternating which goes first; prints "round i: a b a/b" and finally the
# median ratio beside the worst round's.
bench_rounds() {
	local n=$1 a=$2 b=$3 i va vb
	local ratios
	ratios=$(mktemp)
	for ((i = 1; i <= n; i++)); do
		if ((i % 2)); then va=$(eval "$a"); vb=$(eval "$b"); else vb=$(eval "$b"); va=$(eval "$a"); fi
		echo "round $i: boardperf=$va stock=$vb ratio=$(ratio "$va" "$vb")"
		echo "$(ratio "$va" "$vb") round $i" >>"$ratios"
	done
	echo "median ratio: $(median <"$ratios"), worst $(worst "$ratios" higher)"
	rm -f "$ratios"
}

# die MESSAGE...: "bench/NAME.sh: MESSAGE" on stderr, exit 1.
die() { echo "bench/$(basename "$0"): $*" >&2; exit 1; }

# need CMD [PACKAGE]: dies when CMD is missing, in one line naming it, its Debian package
# (default: CMD) and `make deps-bench`, which installs every bench's tools (BENCH_DEPS in the
# Makefile; `make bench` installs them and runs the benches).
need() {
	command -v "$1" >/dev/null && return 0
	die "need $1 (Debian package ${2:-$1}): run \`make deps-bench\` (as root)"
}

# bench_args DEFAULT_ROUNDS [BOARDPERF] [ROUNDS] [SECONDS]: sets bp, rounds and secs from the
# arguments, else from ROUNDS and SECONDS in the environment (SECONDS is also bash's own
# clock: taken only when the caller exported it), else DEFAULT_ROUNDS rounds of 3 s; checks
# them, the boardperf binary and jq. Needs `here` (the bench folder).
bench_args() {
	local def=$1 env_secs
	env_secs=$(printenv SECONDS || true)
	bp=${2:-$here/../build/boardperf}
	rounds=${3:-${ROUNDS:-$def}}
	secs=${4:-${env_secs:-3}}
	[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$rounds'"
	[[ $secs =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a positive integer, not '$secs'"
	[[ -x $bp ]] || die "no boardperf binary at $bp (ninja -C build)"
	need jq
	need ss iproute2
}

# listening PORT: something listens on TCP PORT.
listening() { [[ -n $(ss -Hltn "sport = :$1" 2>/dev/null) ]]; }

# cpu_ticks PID: CPU ticks (utime + stime, fields 14 and 15) of the process; the name in
# field 2 may hold spaces, so count from the closing parenthesis.
cpu_ticks() {
	local s
	s=$(<"/proc/$1/stat")
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo $((${12} + ${13}))
}

# Servers by name: start_server NAME PORT CMD... starts CMD in the background (its output in
# $tmp/NAME.server.log; the caller made tmp) and waits at most 5 s until it listens on PORT;
# srv_pid[NAME] is its PID. stop_servers stops only those PIDs: TERM, up to 5 s, then KILL.
declare -A srv_pid=()
start_server() {
	local name=$1 port=$2 i
	shift 2
	listening "$port" && die "port $port (for $name) is already in use; set another (see Usage)"
	"$@" >"$tmp/$name.server.log" 2>&1 &
	srv_pid[$name]=$!
	for ((i = 0; i < 50; i++)); do
		kill -0 "${srv_pid[$name]}" 2>/dev/null ||
			die "$name server exited: $(tail -n 3 "$tmp/$name.server.log")"
		listening "$port" && return 0
		sleep 0.1
	done
	die "$name server does not listen on port $port after 5 s"
}
stop_servers() {
	local p i alive
	for p in "${srv_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for ((i = 0; i < 50; i++)); do
		alive=0
		for p in "${srv_pid[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		((alive)) || break
		sleep 0.1
	done
	for p in "${srv_pid[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
