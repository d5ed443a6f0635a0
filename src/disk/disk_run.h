/*
 * The timed part of a disk test: the workers, started together, and a monitor thread that
 * samples their counters at each interval boundary (the interval lines) and feeds the
 * progress bar. Afterwards the workers' histograms are merged and the totals summed.
 */
#ifndef BP_DISK_DISK_RUN_H
#define BP_DISK_DISK_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "disk/disk_worker.h"

/* Called about ten times a second while the run goes: share done (0..1) and counts. */
typedef void (*bp_disk_run_progress_fn)(void *arg, double done, double elapsed_s,
					const uint64_t *counts);

struct bp_disk_interval {
	uint64_t start_ns, end_ns;   /* since the start of the run */
	uint64_t count[BP_DISK_NCOUNTS];
};

/* Called with each interval line the moment it is closed (from the sampling thread). */
typedef void (*bp_disk_run_interval_fn)(void *arg, const struct bp_disk_interval *iv);

struct bp_disk_run_config {
	struct bp_disk_shared *sh;   /* everything but start_ns and abort filled in */
	uint64_t interval_ns;        /* 0: no interval lines */
	bp_disk_run_progress_fn progress;  /* NULL: none */
	bp_disk_run_interval_fn interval;  /* NULL: none */
	void *progress_arg;                /* for both */
};

struct bp_disk_run_result {
	uint64_t count[BP_DISK_NCOUNTS];
	uint64_t elapsed_ns;         /* start line to the last worker's end, final sync included */
	struct bp_histo *lat[3];     /* per enum bp_disk_op, merged over the workers */
	struct bp_disk_interval *intervals;
	size_t nintervals;
	char engine_note[128];
	int workers_started;         /* 0 when the run never began */
};

/*
 * Runs the workers to the end. What was measured is in res even when it fails (-errno,
 * one-line message); -EINTR after a stop signal. Free res with bp_disk_run_result_free.
 */
int bp_disk_run(const struct bp_disk_run_config *cfg, struct bp_disk_run_result *res,
		char *err, size_t errlen);
void bp_disk_run_result_free(struct bp_disk_run_result *res);

#endif
