/*
 * Turning the mem test's figures into the result: metric names and units (the contract),
 * and the warning when a worker did not get its core.
 */
#ifndef BP_MEM_MEM_REPORT_H
#define BP_MEM_MEM_REPORT_H

#include <stdbool.h>

#include "mem/mem_bandwidth.h"
#include "mem/mem_latency.h"

struct bp_result;

/*
 * Items whose worker ran less than BP_CPU_BOUND_SHARE of the time (another process or
 * guest took the core): counted, and the worst one named, for one warning at the end.
 */
struct bp_mem_starved {
	int items, starved;
	double worst_share;
	char worst[96];
};

void bp_mem_starved_init(struct bp_mem_starved *s);
/* Count one item; what names it ("memcpy on all cores, worker 1 on CPU 1", "... unpinned"). */
void bp_mem_starved_note(struct bp_mem_starved *s, double busy_share, const char *what);
/* Adds "tester-cpu-starved" when any item was starved. 0 or -ENOMEM. */
int bp_mem_starved_report(const struct bp_mem_starved *s, struct bp_result *r);

/*
 * "memcpy.bandwidth", "memcpy.bandwidth.all", "memcpy.bandwidth.scaling" (and memset), skipping
 * figures that were not measured. all is indexed like one; NULL when there was one
 * worker, so that the one-core run is also the all-core one. 0 or -ENOMEM.
 */
int bp_mem_report_bandwidth(struct bp_result *r, const struct bp_mem_bw_figure *one,
			    const struct bp_mem_bw_figure *all, struct bp_mem_starved *st);

/* "latency.4KiB" ... in ns per load. 0 or -ENOMEM. */
int bp_mem_report_latency(struct bp_result *r, const struct bp_mem_lat_figure *fig, int n,
			  struct bp_mem_starved *st);

#endif
