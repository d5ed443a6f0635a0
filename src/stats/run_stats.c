#include "stats/run_stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of sorted v[0..n), n > 0. */
static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Two passes (mean, then squared deviations): the runs are few, and the second pass keeps
 * the digits a sum of squares loses when the values share a large offset (bit/s near 1e10).
 */
static void spread_of(const double *v, size_t n, struct bp_run_stats *s)
{
	double sum = 0, dev = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		dev += (v[i] - s->mean) * (v[i] - s->mean);
	s->stddev = n > 1 ? sqrt(dev / (double)(n - 1)) : 0;
	if (n < 2)
		s->cov = NAN;
	else if (s->min == s->max)
		s->cov = 0;
	else if (s->mean == 0)
		s->cov = NAN;
	else
		s->cov = s->stddev / fabs(s->mean) * 100;
}

void bp_run_stats_of(const double *v, size_t n, struct bp_run_stats *s)
{
	double *sorted = n ? malloc(n * sizeof(*sorted)) : NULL;
	size_t k = 0;

	*s = (struct bp_run_stats){ .median = NAN, .min = NAN, .max = NAN, .mean = NAN,
				    .stddev = NAN, .cov = NAN };
	if (!sorted)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			sorted[k++] = v[i];
	if (k) {
		qsort(sorted, k, sizeof(*sorted), cmp_double);
		s->n = k;
		s->median = median_sorted(sorted, k);
		s->min = sorted[0];
		s->max = sorted[k - 1];
		spread_of(sorted, k, s);
	}
	free(sorted);
}
