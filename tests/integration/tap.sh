# TAP helpers for integration scripts (sourced). Each check prints "ok N - what".
tap_n=0
tap_failed=0

ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() { # skip DESCRIPTION REASON: a check that could not run here, counted as skipped
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# Every rate of a tcp/udp result, in each interval and in the totals ("P.bitrate" for
# P = sender, receiver, up.sender, ...), must be its bytes ("P.bytes") * 8 over its own span
# ("P.span", ns) within 0.5 %. Prints how many rates it checked and the ones that fail.
rates_jq='
def rates(where):
	. as $m | [keys[] | select(endswith(".bitrate")) | rtrimstr(".bitrate") as $p
		| {where: where, name: $p, rate: $m[$p + ".bitrate"], bytes: $m[$p + ".bytes"],
		   span: $m[$p + ".span"]}
		| .ok = ((.bytes | type) == "number" and (.span | type) == "number" and .span > 0
			 and ((.rate - .bytes * 8 / (.span / 1e9)) | fabs) <= 0.005 * .rate)];
[((.metrics // []) | map({(.name): .value}) | add // {} | rates("totals")),
 ((.intervals // []) | to_entries[] | .key as $i | .value.metrics | rates("interval \($i)"))]
| flatten | {n: length, bad: map(select(.ok | not) | "\(.where) \(.name): \(.rate) bit/s vs \(.bytes) B over \(.span) ns")}
'

# check_rates JSON WHAT: the check above on one result (a result without a single rate
# passes only when it carries an error: something must have been checked).
check_rates() {
	local r n bad
	# jq reads empty input as no values and succeeds: an empty result is no result
	r=$(jq -c "$rates_jq" <<<"$1" 2>/dev/null) && [ -n "$r" ] ||
		{ ok 1 "$2: rates over their spans (no JSON)"; return; }
	n=$(jq -r .n <<<"$r"); bad=$(jq -r '.bad[]' <<<"$r")
	[ -z "$bad" ] && { [ "$n" -gt 0 ] || jq -e .error <<<"$1" >/dev/null; }
	ok $? "$2: every rate is bytes*8 over its own span ($n checked)"
	[ -z "$bad" ] || printf '#   %s\n' "${bad//$'\n'/$'\n#   '}"
}

# expect_exit WANT DESCRIPTION CMD...: runs CMD, stores stdout/stderr in $out/$err. A
# boardperf tcp or udp result in JSON gets check_rates as well.
expect_exit() {
	local want=$1 what=$2 got
	shift 2
	out=$("$@" 2>"$tap_tmp/stderr") && got=0 || got=$?
	err=$(cat "$tap_tmp/stderr")
	[ "$got" -eq "$want" ]
	ok $? "$what (exit $got, want $want)"
	[ "$got" -eq "$want" ] || printf '#   stderr: %s\n' "${err//$'\n'/$'\n#   '}"
	if [ -n "$out" ] && jq -e '.schema == "boardperf/1" and (.test == "tcp" or .test == "udp")' \
		<<<"$out" >/dev/null 2>&1; then
		check_rates "$out" "$what"
	fi
}

# wait_log FILE TEXT: true once FILE holds TEXT (a server's log line), within 10 s.
# wide_lines FILE [COLS] and widest [FILE]: how wide text is (tests/columns.sh)
. "$(dirname "${BASH_SOURCE[0]}")/../columns.sh"
wait_log() { for _ in $(seq 100); do grep -qs "$2" "$1" && return 0; sleep 0.1; done; return 1; }
# wait_flowing PORT: true once a TCP connection from this namespace to PORT has sent (acked)
# or received more than 64 KiB (a test's data under way, not only its control exchange;
# answers coming), within 10 s: the event to wait for before cutting or crowding a running
# test, instead of a sleep.
wait_flowing() {
	for _ in $(seq 100); do
		ss -Htni state established "dport = :$1" 2>/dev/null |
			grep -Eo 'bytes_(acked|received):[0-9]+' |
			awk -F: '$2 > 65536 { f = 1 } END { exit !f }' && return 0
		sleep 0.1
	done
	return 1
}
# prom_start PORT TARGET JOB [HONOR]: a real prometheus of the test's own on 127.0.0.1:PORT
# (its config and TSDB in $tap_tmp/prom), scraping TARGET (host:port) every second as job
# JOB, with honor_labels when HONOR is "honor" (a Pushgateway); its pid in prom_pid
prom_start() {
	mkdir -p "$tap_tmp/prom"
	cat >"$tap_tmp/prom/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	  scrape_timeout: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: $3
	    honor_labels: $([ "${4:-}" = honor ] && echo true || echo false)
	    static_configs:
	      - targets: ['$2']
	EOF
	prometheus --config.file="$tap_tmp/prom/prometheus.yml" \
		--storage.tsdb.path="$tap_tmp/prom/data" --web.listen-address="127.0.0.1:$1" \
		>"$tap_tmp/prom/log" 2>&1 &
	# shellcheck disable=SC2034 # read by the sourcing test
	prom_pid=$!
}
# tester_cpu_named JSON: the warnings by which a result says the tester lost its CPU
# (starved in the run queue, other processes busy, its own core the limit), joined with
# commas; empty when it says none. A timing check that accepts a shortfall accepts it only
# where this is not empty: the tool itself qualified the figure.
tester_cpu_named() {
	jq -r '[.warnings[]? | select(.code == "tester-cpu-starved" or .code == "busy-machine"
		or .code == "tester-cpu-bound") | .code] | join(",")' <<<"$1" 2>/dev/null
}
# below_named JSON GOT WANT: GOT is above 0 and below WANT, and the result JSON names the
# tester's lost CPU (tester_cpu_named): the only shortfall a timing check accepts.
below_named() {
	[ -n "$(tester_cpu_named "$1")" ] && awk -v g="${2:-0}" -v w="$3" 'BEGIN { exit !(g > 0 && g < w) }'
}
# raw_send FD FORMAT ARGS...: printf to a socket the test opened on FD (exec N<>/dev/tcp/...),
# in a subshell that ignores SIGPIPE: a server that closes on bad bytes before the write
# (what some of these tests provoke) must fail that write, not kill the test script.
raw_send() { local fd=$1; shift; ( trap '' PIPE; printf "$@" >&"$fd" ) 2>/dev/null; }

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

# ---- Parts (docs/CI.md, "Side by side or alone"): a test whose timed checks need the machine
# to itself but whose other checks do not runs twice in CI, as two meson tests: BP_PART=plain
# side by side (everything outside its timed sections) and BP_PART=timed alone (its set-up
# and its timed sections only). By hand (BP_PART unset or all) one run does both. A section
# is `if timed; then ... fi` or `if plain; then ... fi`; set-up outside both runs in each.
# A third part, BP_PART=figures (`if figures; then ... fi`), holds a figure compared with a
# stock tool: it runs in the optimised build's figures suite, never under a sanitizer.
BP_PART=${BP_PART:-all}
case $BP_PART in
all | plain | timed | figures) ;;
*) echo "Bail out! BP_PART='$BP_PART': all, plain, timed or figures"; exit 1 ;;
esac
timed() { [ "$BP_PART" = all ] || [ "$BP_PART" = timed ]; }
plain() { [ "$BP_PART" = all ] || [ "$BP_PART" = plain ]; }
figures() { [ "$BP_PART" = all ] || [ "$BP_PART" = figures ]; }

# ---- Isolation: tests run side by side (meson's is_parallel) and two CI runs may share the
# machine (docs/ARCHITECTURE.md, "Tests, benches and CI"). Everything machine-global a test makes
# carries BP_RUN (a run's prefix: exported by whoever starts the run, or one per test here)
# and the test's PID: its folders (bp-$BP_RUN-…), namespaces (tests/rig/rig.sh), lock files.
# Ports come from bp_ports, never from $$ or $RANDOM. tests/integration/check_isolation.py
# (the `isolation` test) fails on a script that does otherwise.
if [ -z "${BP_RUN:-}" ]; then
	BP_RUN=r$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
elif ! [[ $BP_RUN =~ ^[a-z0-9]{1,12}$ ]]; then
	echo "Bail out! BP_RUN='$BP_RUN': 1 to 12 of a-z 0-9 (it goes into namespace and file names)"
	exit 1
fi
export BP_RUN

# bp_ports N: reserves a block of N (1..16) consecutive TCP/UDP ports on this machine for the
# rest of the test and sets BP_PORT to its first (BP_PORT + N - 1 is the last). Blocks of 16
# from 10000 up to the start of the ephemeral range (ip_local_port_range, so no outgoing
# connection is ever handed one), each with a lock file under $BP_PORTS_DIR; a block is the
# test's while it holds an flock on that file through a descriptor its shell keeps open (and
# its children inherit): the reservation ends with the last of them, even after a SIGKILL.
# A block is taken only if none of its first N ports is bound in this namespace in any state
# (listening, connected, TIME_WAIT; TCP or UDP). Call it from the test's own shell, never in
# $(...); it may be called again for another block. No block free: "Bail out!", exit 1 (a
# test never falls back to a port someone else may hold).
BP_PORTS_DIR=${BP_PORTS_DIR:-/run/lock/boardperf-ports}
BP_PORTS_BASE=10000 BP_PORTS_BLOCK=16
bp_ports() {
	local n=${1:-1} lo blocks start i first fd used p busy
	if [ "$BASHPID" != "$$" ]; then
		echo "Bail out! bp_ports called in a subshell: its reservation would end with it"
		exit 1
	fi
	if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt "$BP_PORTS_BLOCK" ]; then
		echo "Bail out! bp_ports $n: 1 to $BP_PORTS_BLOCK ports"
		exit 1
	fi
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
	blocks=$(((lo - BP_PORTS_BASE) / BP_PORTS_BLOCK))
	mkdir -p "$BP_PORTS_DIR" 2>/dev/null
	if [ "$blocks" -lt 1 ] || [ ! -w "$BP_PORTS_DIR" ]; then
		echo "Bail out! bp_ports: no port blocks below the ephemeral range ($lo) or $BP_PORTS_DIR not writable"
		exit 1
	fi
	# spread the starting points so that tests starting together rarely try the same block
	start=$(((BASHPID * 31 + RANDOM) % blocks))
	for ((i = 0; i < blocks; i++)); do
		first=$((BP_PORTS_BASE + (start + i) % blocks * BP_PORTS_BLOCK))
		exec {fd}>>"$BP_PORTS_DIR/$first" || continue
		if flock -n "$fd"; then
			# every local port bound on this machine's (namespace's) sockets, any state
			used=" $(ss -Htanu 2>/dev/null | awk '{ n = split($5, a, ":"); print a[n] }' | sort -un | tr '\n' ' ') "
			busy=0
			for ((p = first; p < first + n; p++)); do
				case $used in *" $p "*) busy=1; break ;; esac
			done
			if [ "$busy" = 0 ]; then
				_bp_ports_fds+=("$fd")
				BP_PORT=$first
				return 0
			fi
		fi
		exec {fd}>&-
	done
	echo "Bail out! bp_ports $n: every block of $BP_PORTS_BLOCK ports from $BP_PORTS_BASE to $((lo - 1)) is locked by another test or has a port in use"
	exit 1
}
_bp_ports_fds=()

tap_tmp=$(mktemp -d -t "bp-$BP_RUN-XXXXXX")
trap 'rm -rf "$tap_tmp"' EXIT
# Every result a command prints is saved (docs/results.md, "Results history"): into this test's own
# folder, never the real home's database.
export XDG_DATA_HOME="$tap_tmp/data"
