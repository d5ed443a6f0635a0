/* Running mean and variance (Welford), mergeable across workers (Chan et al.). */
#ifndef BP_STATS_WELFORD_H
#define BP_STATS_WELFORD_H

#include <stdint.h>

struct bp_welford {
	uint64_t n;
	double mean;
	double m2;  /* sum of squared deviations from the mean */
	double min, max;  /* +inf and -inf while n == 0 (the identities for merging) */
};

void bp_welford_init(struct bp_welford *w);
void bp_welford_add(struct bp_welford *w, double x);
void bp_welford_merge(struct bp_welford *dst, const struct bp_welford *src);
double bp_welford_mean(const struct bp_welford *w);     /* 0 if n == 0 */
double bp_welford_variance(const struct bp_welford *w); /* sample variance (n-1); 0 if n<2 */
double bp_welford_stddev(const struct bp_welford *w);

#endif
