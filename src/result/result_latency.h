/* A histogram into a result: the latency entry with its buckets; an interval's key figures. */
#ifndef BP_RESULT_RESULT_LATENCY_H
#define BP_RESULT_RESULT_LATENCY_H

#include "result/result.h"
#include "stats/histogram.h"

/*
 * Adds latency `what` (ns) read off h, with h's buckets (result/latency_histogram.h), unless
 * nothing was recorded; NULL h adds nothing. 0 or -ENOMEM.
 */
int bp_result_add_latency_histo(struct bp_result *r, const char *what, const struct bp_histo *h);
/* latency.p50, latency.p99 and latency.max (ns) on an interval that recorded any. */
void bp_interval_add_latency(struct bp_interval *iv, const struct bp_histo_summary *s);

#endif
