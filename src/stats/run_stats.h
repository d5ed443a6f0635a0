/*
 * The spread of one figure over repeated runs of a test (`--repeat`, `--until-stable`):
 * median, min, max, mean, sample standard deviation and the coefficient of variation.
 * Pure arithmetic on the runs' own values, so the integration test can recompute each
 * figure from the kept runs' documents and must get the same numbers (docs/run.md, "Repeating
 * a test").
 */
#ifndef BP_STATS_RUN_STATS_H
#define BP_STATS_RUN_STATS_H

#include <stddef.h>

struct bp_run_stats {
	size_t n;       /* finite values counted (a run that lacks the figure gives NaN) */
	double median;  /* the middle value; the mean of the two middle ones for even n */
	double min, max;
	double mean;
	double stddev;  /* sample standard deviation (n - 1); 0 for one value */
	/*
	 * stddev / |mean| * 100, in percent. NaN for fewer than two values (one run says
	 * nothing about its spread) and for a zero mean of values that differ; 0 when every
	 * value is the same, zero included (a test with no retransmits in every run is stable).
	 */
	double cov;
};

/* The statistics of the finite values among v[0..n) (NaN each, n 0, when none). */
void bp_run_stats_of(const double *v, size_t n, struct bp_run_stats *s);

#endif
