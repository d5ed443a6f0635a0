/*
 * Welford's update keeps the mean and the sum of squared deviations without ever summing
 * squares of raw values, so a large offset (e.g. latencies around 1e9 ns that vary by a few
 * ns) does not cancel catastrophically. Chan et al.'s pairwise formula merges two such
 * summaries as if one had seen all the values, which lets every worker keep its own.
 */
#include "stats/welford.h"

#include <math.h>

void bp_welford_init(struct bp_welford *w)
{
	w->n = 0;
	w->mean = 0.0;
	w->m2 = 0.0;
	/* The identities of min and max, so adding and merging need no "first value" case. */
	w->min = INFINITY;
	w->max = -INFINITY;
}

void bp_welford_add(struct bp_welford *w, double x)
{
	double delta = x - w->mean;

	w->n++;
	w->mean += delta / (double)w->n;
	/* delta against the old mean times the distance to the new one: Welford's m2 step. */
	w->m2 += delta * (x - w->mean);
	w->min = x < w->min ? x : w->min;
	w->max = x > w->max ? x : w->max;
}

void bp_welford_merge(struct bp_welford *dst, const struct bp_welford *src)
{
	/* A copy, so that merging a summary into itself reads the values from before. */
	struct bp_welford b = *src;
	double na, nb, n, delta;

	if (b.n == 0)
		return;
	if (dst->n == 0) {
		*dst = b;
		return;
	}
	na = (double)dst->n;
	nb = (double)b.n;
	n = na + nb;
	delta = b.mean - dst->mean;
	dst->mean += delta * (nb / n);
	dst->m2 += b.m2 + delta * delta * (na * nb / n);
	dst->n += b.n;
	dst->min = b.min < dst->min ? b.min : dst->min;
	dst->max = b.max > dst->max ? b.max : dst->max;
}

double bp_welford_mean(const struct bp_welford *w)
{
	return w->mean;
}

double bp_welford_variance(const struct bp_welford *w)
{
	if (w->n < 2)
		return 0.0;
	return w->m2 / (double)(w->n - 1);
}

double bp_welford_stddev(const struct bp_welford *w)
{
	return sqrt(bp_welford_variance(w));
}
