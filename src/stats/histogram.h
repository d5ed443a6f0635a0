/*
 * Log-linear latency histogram (the HdrHistogram / fio idea): values below 2^SUB_BITS are
 * counted exactly; above, each power-of-two range is split into 2^SUB_BITS equal buckets,
 * so a bucket's width is at most 1/2^SUB_BITS of its lower bound. Reporting a bucket's
 * midpoint bounds the relative error of any percentile by 1/2^(SUB_BITS+1) (see
 * BP_HISTO_MAX_REL_ERROR; the unit test checks it against exact percentiles). It covers the
 * whole uint64_t range, so no value is ever dropped; min and max are kept exactly.
 * One histogram per worker, no atomics; merge at interval ends and at the end.
 */
#ifndef BP_STATS_HISTOGRAM_H
#define BP_STATS_HISTOGRAM_H

#include <stdint.h>

#define BP_HISTO_SUB_BITS 7
/* 1/256 = 0.39 %: well inside the 1 % the project promises. */
#define BP_HISTO_MAX_REL_ERROR (1.0 / (double)(1u << (BP_HISTO_SUB_BITS + 1)))

struct bp_histo;

struct bp_histo *bp_histo_new(void);
void bp_histo_free(struct bp_histo *h);
void bp_histo_reset(struct bp_histo *h);

void bp_histo_record(struct bp_histo *h, uint64_t value);
void bp_histo_record_n(struct bp_histo *h, uint64_t value, uint64_t count);

/* dst += src. */
void bp_histo_merge(struct bp_histo *dst, const struct bp_histo *src);

uint64_t bp_histo_count(const struct bp_histo *h);
uint64_t bp_histo_min(const struct bp_histo *h); /* 0 when empty */
uint64_t bp_histo_max(const struct bp_histo *h);
double bp_histo_mean(const struct bp_histo *h);  /* exact: kept as a running sum */

/*
 * The value at percentile pct (0..100]: the smallest recorded value v such that at least
 * pct % of the values are <= v, within BP_HISTO_MAX_REL_ERROR, clamped to [min, max].
 * 0 when empty.
 */
uint64_t bp_histo_percentile(const struct bp_histo *h, double pct);

/*
 * The single-sided trimmed mean: the mean of the smallest pct % of the values (the ranks up
 * to the one bp_histo_percentile(h, pct) reads), within BP_HISTO_MAX_REL_ERROR; pct 100
 * is the exact mean. The IETF responsiveness draft aggregates round trips this way at
 * 95 % (its TM). 0 when empty.
 */
double bp_histo_trimmed_mean(const struct bp_histo *h, double pct);

/* The figures a latency report shows, read off a histogram (values as recorded). */
struct bp_histo_summary {
	uint64_t count;
	double min, mean, p50, p90, p99, p999, p9999, max;
};
void bp_histo_summarize(const struct bp_histo *h, struct bp_histo_summary *s);

/*
 * Walks the non-empty buckets in increasing order, for code that draws or exports the
 * whole distribution (SVG charts, OpenMetrics buckets) and for tests that compare two
 * histograms bucket for bucket. Start with *iter = 0; each call returns the count of the
 * next non-empty bucket and stores the range of values it holds in [*low, *high], or
 * returns 0 when no bucket is left.
 */
uint64_t bp_histo_next_bucket(const struct bp_histo *h, unsigned *iter,
			      uint64_t *low, uint64_t *high);

/*
 * A histogram carried elsewhere and restored (a result document's buckets, merged across
 * testers: result/latency_histogram.h). bp_histo_bucket_low is the lowest value of the
 * bucket that holds value; a restorer records each bucket's count at its low value
 * (bp_histo_record_n), then sets the exact extremes it was given, which must lie in the
 * lowest and highest non-empty buckets: percentiles are clamped to them as the original's
 * were, so a restored histogram reads the same percentiles as the one it came from.
 */
uint64_t bp_histo_bucket_low(uint64_t value);
void bp_histo_set_extremes(struct bp_histo *h, uint64_t min, uint64_t max);

#endif
