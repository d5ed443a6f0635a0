/* A histogram's summary into a result: the latency entry, and an interval's key figures. */
#ifndef BP_RESULT_RESULT_LATENCY_H
#define BP_RESULT_RESULT_LATENCY_H

#include "result/result.h"
#include "stats/histogram.h"

/* Adds latency `what` (ns) unless nothing was recorded. 0 or -ENOMEM. */
int bp_result_add_latency_summary(struct bp_result *r, const char *what,
				  const struct bp_histo_summary *s);
/* latency.p50, latency.p99 and latency.max (ns) on an interval that recorded any. */
void bp_interval_add_latency(struct bp_interval *iv, const struct bp_histo_summary *s);

#endif
