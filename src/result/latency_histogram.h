/*
 * A latency histogram in a result document, and back (docs/json.md, "One result of several
 * testers"): "histogram": {"buckets": "LOW:COUNT LOW:COUNT ..."} beside the summary, one pair
 * per non-empty bucket of stats/histogram.h in increasing order, LOW the bucket's lowest
 * value. One string, not an array of pairs: an indented document would give each number a
 * line (a 9 kB histogram took 25 kB that way). The buckets are the histogram's own, so
 * nothing is lost: `merge` adds several testers' distributions and reads the percentiles
 * off the sum, never averaging percentiles. 50,000 round trips over three decades take
 * about 7 kB (BP_HISTO_SUB_BITS 7: 128 buckets per power of two).
 */
#ifndef BP_RESULT_LATENCY_HISTOGRAM_H
#define BP_RESULT_LATENCY_HISTOGRAM_H

#include <stddef.h>

#include <jansson.h>

#include "result/result.h"
#include "stats/histogram.h"

/* The document's form of h: a new object, NULL when h is empty or out of memory. */
json_t *bp_latency_histogram_json(const struct bp_histo *h);

/*
 * The histogram l carries, restored with l's exact extremes, or NULL with the reason in err
 * ("histogram.buckets, pair 3: 1235 is not the low end of a bucket"). The bytes came from
 * another board: each pair is checked (whole numbers below 10^18, lows strictly increasing
 * and each a bucket's low end, counts above zero adding up to l's count, l's min and max in
 * the first and last bucket) before a count is added.
 */
struct bp_histo *bp_latency_histogram_load(const struct bp_latency *l, char *err,
					   size_t errlen);

#endif
