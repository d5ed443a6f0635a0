/* A histogram into a result: the latency entry with its buckets; an interval's key figures. */
#ifndef BP_RESULT_RESULT_LATENCY_H
#define BP_RESULT_RESULT_LATENCY_H

#include <stdint.h>

#include "result/result.h"
#include "stats/histogram.h"

/*
 * Adds latency `what` (ns) read off h, with h's buckets (result/latency_histogram.h), unless
 * nothing was recorded; NULL h adds nothing. 0 or -ENOMEM.
 */
int bp_result_add_latency_histo(struct bp_result *r, const char *what, const struct bp_histo *h);
/* latency.p50, latency.p99 and latency.max (ns) on an interval that recorded any. */
void bp_interval_add_latency(struct bp_interval *iv, const struct bp_histo_summary *s);

/*
 * An open loop's late starts (more than 1 ms after their due time, each test's own slack):
 * their latency counts from the due time, so once they are 1 % of those done the printed
 * tail (p99, or lower where more were late) may be the tester's wait, not the path's. Warns
 * "late-starts" naming the share, the percentile it reaches, the count and `causes` (what
 * makes this test start late). Nothing below 1 %. 0 or -ENOMEM.
 */
int bp_result_warn_late_starts(struct bp_result *r, uint64_t late, uint64_t done,
			       const char *noun, const char *causes);

#endif
