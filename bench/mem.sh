#!/usr/bin/env bash
# bench/mem.sh: `boardperf mem` one-core memcpy bandwidth beside mbw's, in one run.
#
# Which stock tool: mbw's MEMCPY test times libc memcpy() of one array into another
# and counts the bytes copied, which is exactly what memcpy.bandwidth is (bytes copied,
# not read+write traffic). `sysbench memory` measures something else: its own loop of
# word-sized reads or writes over a block (default 1K, so it mostly runs in L1), one
# direction at a time, with no memcpy in it; its figure does not compare with ours.
#
# Fairness: both run on the same CPU (boardperf pins its worker to the first CPU this
# process may use; mbw goes there with taskset) with the same buffer size. mbw's first
# iteration runs cold (TLB, caches, a board's ondemand governor still at a low clock),
# which boardperf's warm-up keeps out; mbw's AVG line includes it. We therefore sum mbw's
# iterations after the first (bytes over time), as boardperf counts bytes over its timed
# span after the warm-up.
#
# Beware mbw 1.2.x (Debian 12 ships 1.2.2): its worker() numbers the tests differently from
# main(), so `-t0`, printed "Method: MEMCPY", runs the element-by-element loop b[i] = a[i],
# and `-t1`, printed "DUMB", is the one that calls memcpy() (an LD_PRELOAD counter of
# memcpy calls shows 0 for -t0 and one per iteration for -t1). Later upstream versions
# number them alike. We pick the flag that really calls memcpy from the installed version.
#
# Usage: bench/mem.sh [BOARDPERF] (ROUNDS=7 SIZE_MIB=256 in the environment)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bp=${1:-$here/../build/boardperf}
rounds=${ROUNDS:-7}
size_mib=${SIZE_MIB:-256}

need mbw
need jq
# The mbw flag whose test calls memcpy() (see above).
mbw_version=$(dpkg-query -W -f '${Version}' mbw 2>/dev/null || echo unknown)
case $mbw_version in
1.2.*) mbw_test=-t1 ;;
*) mbw_test=-t0 ;;
esac
# The first CPU of our affinity mask: where boardperf's one-core worker runs.
cpu=$(taskset -cp $$ | sed 's/.*: //; s/[-,].*//')

# MiB/s of one-core memcpy, as boardperf measures it.
bp_memcpy() {
	"$bp" mem --no-latency --threads 1 --size "${size_mib}M" -t 1 --json |
		jq '.metrics[] | select(.name == "memcpy.bandwidth")
		    | .value / 1048576 * 10 | floor / 10'
}

# MiB/s of mbw's memcpy test over iterations 1..10 (iteration 0 runs cold).
# Its lines: "1	Method: DUMB	Elapsed: 0.01362	MiB: 256.00000	Copy: 18800.029 MiB/s".
mbw_memcpy() {
	taskset -c "$cpu" mbw -q -n 11 "$mbw_test" "$size_mib" |
		awk '$1 ~ /^[0-9]+$/ && $1 > 0 { s += $5; m += $7 }
		     END { if (s > 0) printf "%.1f\n", m / s; else print "nan" }'
}

echo "memcpy, one core (CPU $cpu), ${size_mib} MiB buffers, MiB/s;" \
	"boardperf vs mbw $mbw_version $mbw_test"
bench_rounds "$rounds" bp_memcpy mbw_memcpy
