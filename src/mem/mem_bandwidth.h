/*
 * memcpy and memset bandwidth with the C library's own functions, which is what users
 * compare. Each worker maps its own source and destination (on its own core, so the pages
 * land near it), writes them once so no page fault is timed, then for each operation runs
 * a warm-up, waits for the others and times passes on the monotonic clock for the same
 * span. A worker's figure is the bytes it moved over that span; the all-core figure is
 * the sum over workers, whose spans coincide.
 *
 * Bytes are counted as mbw and sysbench count them: a memcpy of S bytes counts S (not the
 * 2S of read plus write traffic), a memset of S bytes counts S.
 */
#ifndef BP_MEM_MEM_BANDWIDTH_H
#define BP_MEM_MEM_BANDWIDTH_H

#include <stdint.h>
#include <stddef.h>

enum bp_mem_op {
	BP_MEM_COPY,
	BP_MEM_SET,
	BP_MEM_NOPS,
};

/* "memcpy", "memset": also the first part of the metric names. */
const char *bp_mem_op_name(enum bp_mem_op op);

/*
 * The automatic buffer size: max(64 MiB, 8 x the last-level cache), so that at most an
 * eighth of a pass can hit in the cache; no more than a quarter of the available memory
 * over all nbuffers buffers (avail < 0: unknown, no cap); rounded down to whole MiB, at
 * least 1 MiB.
 */
#define BP_MEM_BW_MIN_AUTO (64ULL << 20)
#define BP_MEM_BW_LLC_FACTOR 8
uint64_t bp_mem_bw_auto_size(uint64_t llc, int64_t avail, unsigned nbuffers);

struct bp_mem_bw_config {
	uint64_t size;     /* bytes per buffer (a worker has a source and a destination) */
	uint64_t time_ns;  /* timed per operation */
	int nthreads;      /* workers of the all-core run, pinned one per allowed CPU */
};

/* What one worker measured for one operation. */
struct bp_mem_bw_worker {
	double rate;        /* B/s over its timed span; NAN when it made no pass */
	double busy_share;  /* its CPU time / wall time while timed; NAN unknown */
	int cpu;            /* the CPU it ran on, -1 when not pinned */
};

/* One operation over the workers of one run. */
struct bp_mem_bw_figure {
	double rate;            /* B/s, summed over workers; NAN unless every worker measured */
	int workers;
	double min_busy_share;  /* the least any worker got of its core; NAN unknown */
	int min_worker;         /* which worker that was, and its CPU */
	int min_cpu;
};

double bp_mem_bw_rate(uint64_t bytes, uint64_t ns);

/* Scaling efficiency in percent: all / (n x one) x 100; NAN when it cannot be computed. */
double bp_mem_bw_scaling(double all, double one, int n);

/*
 * The figure of n workers: rates summed, NAN when n < 1 or any worker has no finite rate
 * (a partial sum is not "all cores"); the least busy share and whose it was.
 */
void bp_mem_bw_merge(const struct bp_mem_bw_worker *w, int n, struct bp_mem_bw_figure *fig);

/*
 * Both operations on one worker (into one[]), then, when all is not NULL, on
 * cfg->nthreads workers started together (into all[]); each indexed by enum bp_mem_op.
 * Worker 0 keeps its buffers between the two runs. Figures not measured (a stop was
 * requested) are NAN. 0, or a negative errno with a one-line message.
 */
int bp_mem_bw_run(const struct bp_mem_bw_config *cfg, struct bp_mem_bw_figure *one,
		  struct bp_mem_bw_figure *all, char *err, size_t errlen);

#endif
