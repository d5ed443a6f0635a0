#!/usr/bin/env bash
# bench/disk.sh: `boardperf disk` beside sysbench fileio and fio, on the same file set
# (sysbench's test_file.0..127, which fio reads and writes through --filename_format;
# boardperf makes the same layout in a folder of its own on the same filesystem).
#
# Workloads (requests/s = reads/s + writes/s, as each tool reports them):
#   rndrw          sysbench's defaults: 60 % reads, a sync round of all 128 files after
#                  every 100 requests, and at the end (fio cannot sync that way: not run)
#   rndrd-direct   O_DIRECT random 16 KiB reads, one at a time (fio: psync)
#   rndwr-direct   O_DIRECT random 16 KiB writes, no fsync (fio: psync)
#   seqrd-direct   O_DIRECT sequential 16 KiB reads, file after file (fio: psync)
#   uring32-direct io_uring, 32 in flight, O_DIRECT random reads (sysbench has no io_uring)
#   uring32-cached io_uring, 32 in flight, random reads from the page cache (the engine's
#                  own cost per request; fio with --invalidate=0 so it keeps the cache too)
# Each round runs every tool once per workload, alternating who goes first (the machines are
# shared and noisy); the medians' ratios close the output, boardperf / other tool.
#
# Where: DIR, by default /var/tmp (meant to be on disk; /tmp is often a tmpfs). Run it on
# a real disk: on a loop device every request also waits for the loop's worker thread, and
# on a 2-CPU machine whether that thread shares the tester's CPU flips a run by 2-3x; on
# tmpfs the figures turn on the page-cache folio sizes each freshly made set happens to get.
# Usage: bench/disk.sh [BOARDPERF] [DIR]   (ROUNDS=5 TIME=3 SIZE=256M in the environment)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bp=${1:-$here/../build/boardperf}
dir=${2:-/var/tmp}
rounds=${ROUNDS:-5}
time=${TIME:-3}
size=${SIZE:-256M}

need sysbench
need fio
need jq
work=$(mktemp -d)
sbd=$(mktemp -d "$dir/bench-disk.XXXXXX")
trap 'rm -rf "$sbd" "$work"' EXIT
trap 'exit 1' INT TERM
(cd "$sbd" && sysbench fileio --file-total-size="$size" prepare >/dev/null)

# One figure per call: requests/s.
bp_run() { # bp_run ARGS...
	"$bp" disk --dir "$dir" --size "$size" -t "$time" -i 0 -q "$@" --json |
		jq '[.metrics[] | select(.name == "reads.rate" or .name == "writes.rate") | .value]
		    | add | . * 10 | floor / 10'
}
# sysbench's files were prepared through the page cache; before its O_DIRECT runs they
# leave it, as `prepare --file-extra-flags=direct` would have left them (boardperf --direct
# and fio drop them likewise).
uncache() { for f in "$sbd"/test_file.*; do dd if="$f" iflag=nocache count=0 status=none; done; }
# ... and before a buffered run they are read back into it, where preparing leaves a set
# (boardperf's own is there after its preparation).
warm() { cat "$sbd"/test_file.* >/dev/null; }
sb_run() { # sb_run MODE ARGS...
	case "$*" in *direct*) uncache ;; esac
	(cd "$sbd" && sysbench fileio --file-total-size="$size" --file-test-mode="$1" \
		--time="$time" "${@:2}" run) |
		awk '/reads\/s/ { r = $2 } /writes\/s/ { w = $2 } END { printf "%.1f\n", r + w }'
}
fio_run() { # fio_run RW ARGS...
	fio --name=bench --directory="$sbd" --filename_format='test_file.$filenum' --nrfiles=128 \
		--size="$size" --bs=16k --rw="$1" --norandommap --time_based --runtime="$time" \
		"${@:2}" --output-format=json 2>/dev/null |
		jq '.jobs[0].read.iops + .jobs[0].write.iops | . * 10 | floor / 10'
}
direct_fio=(--direct=1 --ioengine=psync --file_service_type=random)

# workload -> the command line of each tool ("" when a tool cannot run it)
declare -A cmd
cmd[rndrw.bp]="bp_run"
cmd[rndrw.sysbench]="warm; sb_run rndrw"
cmd[rndrd-direct.bp]="bp_run --mode rndrd --direct"
cmd[rndrd-direct.sysbench]="sb_run rndrd --file-extra-flags=direct"
cmd[rndrd-direct.fio]="fio_run randread ${direct_fio[*]}"
cmd[rndwr-direct.bp]="bp_run --mode rndwr --direct --fsync-freq 0 --no-fsync-end"
cmd[rndwr-direct.sysbench]="sb_run rndwr --file-extra-flags=direct --file-fsync-freq=0 --file-fsync-end=off"
cmd[rndwr-direct.fio]="fio_run randwrite ${direct_fio[*]}"
cmd[seqrd-direct.bp]="bp_run --mode seqrd --direct"
cmd[seqrd-direct.sysbench]="sb_run seqrd --file-extra-flags=direct"
cmd[seqrd-direct.fio]="fio_run read --direct=1 --ioengine=psync --file_service_type=sequential"
cmd[uring32-direct.bp]="bp_run --mode rndrd --direct --engine io_uring --depth 32"
cmd[uring32-direct.fio]="fio_run randread --direct=1 --ioengine=io_uring --iodepth=32 --file_service_type=random"
cmd[uring32-cached.bp]="bp_run --mode rndrd --engine io_uring --depth 32"
cmd[uring32-cached.fio]="warm; fio_run randread --ioengine=io_uring --iodepth=32 --invalidate=0 --file_service_type=random"
workloads="rndrw rndrd-direct rndwr-direct seqrd-direct uring32-direct uring32-cached"

echo "boardperf disk vs sysbench $(sysbench --version | cut -d' ' -f2) and $(fio --version)" \
	"in $dir ($(df -T "$dir" | awk 'NR == 2 { print $2 }')), $size, ${time} s per run, $rounds rounds"
for ((i = 1; i <= rounds; i++)); do
	order="bp sysbench fio"
	((i % 2)) || order="fio sysbench bp"
	for w in $workloads; do
		line="round $i $w:"
		for t in $order; do
			[ -n "${cmd[$w.$t]:-}" ] || continue
			v=$(eval "${cmd[$w.$t]}")
			echo "$v" >>"$work/$w.$t"
			line="$line $t=$v"
		done
		echo "$line"
	done
done
for w in $workloads; do
	b=$(median <"$work/$w.bp")
	for t in sysbench fio; do
		[ -s "$work/$w.$t" ] || continue
		o=$(median <"$work/$w.$t")
		echo "median $w: boardperf $b, $t $o requests/s, ratio $(ratio "$b" "$o")"
		echo "$(ratio "$b" "$o") $w vs $t" >>"$work/ratios"
	done
done
echo "median ratio boardperf/sysbench rndrw: $(ratio "$(median <"$work/rndrw.bp")" \
	"$(median <"$work/rndrw.sysbench")"), boardperf/fio io_uring depth 32:" \
	"$(ratio "$(median <"$work/uring32-direct.bp")" "$(median <"$work/uring32-direct.fio")");" \
	"worst workload $(worst "$work/ratios" higher)"
