/*
 * Pinned worker threads for board tests that load every core at once (cpu, mem): N
 * threads, worker i pinned to the i-th CPU this process may run on, started together
 * behind a barrier so that "all cores" really means all cores at the same time. Each worker
 * gets its own CPU-time accounting; nothing is shared on the hot path.
 */
#ifndef BP_CORE_WORKERS_H
#define BP_CORE_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/cpuacct.h"

struct bp_workers;

struct bp_worker {
	int index;                 /* 0..n-1 */
	int cpu;                   /* CPU it is pinned to, -1 when not pinned */
	struct bp_workers *group;
	void *arg;                 /* the caller's per-worker argument */
	int rc;                    /* what fn returned */
	char err[256];             /* fn's one-line message when rc < 0 */
};

typedef int (*bp_worker_fn)(struct bp_worker *w);

/* CPUs this process may run on (sched_getaffinity), at least 1. */
int bp_workers_available_cpus(void);

#define BP_WORKERS_MAX 1024

/*
 * A worker count as users give it: "N" (1..BP_WORKERS_MAX) or "all" (ncpus). Returns 0 or
 * -EINVAL with "--threads 'x': expected a number from 1 to 1024, or 'all'" in err.
 */
int bp_workers_parse_count(const char *flag, const char *text, int ncpus, int *out,
			   char *err, size_t errlen);

/*
 * Run fn on n threads (n >= 1) and wait for all. args[i] (or NULL) becomes worker i's arg.
 * pin: pin worker i to the i-th allowed CPU (n may exceed the CPUs: pinning wraps around).
 * Returns 0 when every fn returned 0; otherwise the first failing worker's rc, with its
 * message in err.
 */
int bp_workers_run(int n, bool pin, bp_worker_fn fn, void *const *args,
		   char *err, size_t errlen);

/* All workers of the group wait here until every one arrived (e.g. after a warm-up). */
void bp_worker_sync(struct bp_worker *w);

#endif
