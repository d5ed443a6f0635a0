/*
 * Welford against the textbook two-pass computation in long double, on data with a large
 * offset (where a naive sum of squares loses every digit), and merging against feeding
 * one summary everything.
 */
#include "stats/welford.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#define NVALUES 100000

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng_next(void)  /* xorshift64*, fixed seed */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static double rng_unit(void)  /* [0, 1) */
{
	return (double)(rng_next() >> 11) * 0x1p-53;
}

/* Latencies around 1 s in ns that vary by microseconds: mean 1e9, stddev ~ 1e3. */
static void fill(double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = 1e9 + 1e3 * (rng_unit() + rng_unit() + rng_unit() - 1.5) * 2.0;
}

static void two_pass(const double *v, size_t n, long double *mean, long double *var)
{
	long double sum = 0.0L, ss = 0.0L, d;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	*mean = sum / n;
	for (i = 0; i < n; i++) {
		d = v[i] - *mean;
		ss += d * d;
	}
	*var = ss / (n - 1);
}

static void test_known(void)
{
	static const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct bp_welford w;
	size_t i;

	bp_welford_init(&w);
	CHECK_INT(w.n, 0);
	CHECK_NEAR(bp_welford_mean(&w), 0.0, 0.0);
	CHECK_NEAR(bp_welford_variance(&w), 0.0, 0.0);
	bp_welford_add(&w, 3.5);
	CHECK_NEAR(bp_welford_mean(&w), 3.5, 0.0);
	CHECK_NEAR(bp_welford_variance(&w), 0.0, 0.0);  /* n < 2 */
	CHECK_NEAR(bp_welford_stddev(&w), 0.0, 0.0);
	bp_welford_init(&w);
	for (i = 0; i < 8; i++)
		bp_welford_add(&w, v[i]);
	CHECK_INT(w.n, 8);
	CHECK_NEAR(bp_welford_mean(&w), 5.0, 1e-15);
	CHECK_NEAR(bp_welford_variance(&w), 32.0 / 7.0, 1e-14);  /* sample, not population (4) */
	CHECK_NEAR(bp_welford_stddev(&w), sqrt(32.0 / 7.0), 1e-14);
	CHECK_NEAR(w.min, 2.0, 0.0);
	CHECK_NEAR(w.max, 9.0, 0.0);
}

static void test_vs_two_pass(void)
{
	double *v = malloc(NVALUES * sizeof(*v));
	long double mean, var;
	struct bp_welford w;
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	fill(v, NVALUES);
	bp_welford_init(&w);
	for (i = 0; i < NVALUES; i++) {
		bp_welford_add(&w, v[i]);
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	two_pass(v, NVALUES, &mean, &var);
	printf("# mean %.6f var %.6f\n", (double)mean, (double)var);
	CHECK_INT(w.n, NVALUES);
	CHECK_NEAR(bp_welford_mean(&w), mean, 1e-12 * mean);
	/* 1e-9 relative: a naive sum of squares at this offset is wrong in every digit. */
	CHECK_NEAR(bp_welford_variance(&w), var, 1e-9 * var);
	CHECK_NEAR(bp_welford_stddev(&w), sqrtl(var), 1e-9 * sqrtl(var));
	CHECK(w.min == lo && w.max == hi);
	free(v);
}

static int same_summary(const struct bp_welford *a, const struct bp_welford *b)
{
	return a->n == b->n && a->min == b->min && a->max == b->max &&
	       fabs(a->mean - b->mean) <= 1e-13 * fabs(b->mean) &&
	       fabs(bp_welford_variance(a) - bp_welford_variance(b)) <=
	       1e-9 * bp_welford_variance(b);
}

static void test_merge(void)
{
	double *v = malloc(NVALUES * sizeof(*v));
	struct bp_welford all, part[3], empty, m;
	size_t i, cut1 = 7, cut2 = NVALUES / 3;  /* unequal parts, one tiny */

	fill(v, NVALUES);
	bp_welford_init(&all);
	bp_welford_init(&empty);
	for (i = 0; i < 3; i++)
		bp_welford_init(&part[i]);
	for (i = 0; i < NVALUES; i++) {
		bp_welford_add(&all, v[i]);
		bp_welford_add(&part[i < cut1 ? 0 : i < cut2 ? 1 : 2], v[i]);
	}
	m = part[0];
	bp_welford_merge(&m, &part[1]);
	bp_welford_merge(&m, &part[2]);
	CHECK(same_summary(&m, &all));
	printf("# merged var %.9f sequential %.9f\n", bp_welford_variance(&m),
	       bp_welford_variance(&all));
	bp_welford_merge(&m, &empty);  /* empty src: nothing changes */
	CHECK(same_summary(&m, &all));
	bp_welford_merge(&empty, &all);  /* empty dst: becomes src, min/max included */
	CHECK(same_summary(&empty, &all));
	/* Into itself: the same values twice, so the same mean and nearly the same variance. */
	m = all;
	bp_welford_merge(&m, &m);
	CHECK_INT(m.n, 2 * NVALUES);
	CHECK_NEAR(m.mean, all.mean, 1e-13 * all.mean);
	CHECK_NEAR(m.m2, 2 * all.m2, 1e-9 * all.m2);
	free(v);
}

/*
 * Parts with very different means, so the term Chan's formula adds for the distance
 * between them dominates: small parts, checked against the two-pass truth.
 */
static void test_merge_apart(void)
{
	static const double v[] = { 1, 2, 3, 1000, 1001, 1003, 1010 };
	struct bp_welford a, b;
	long double mean, var;
	size_t i;

	bp_welford_init(&a);
	bp_welford_init(&b);
	for (i = 0; i < 7; i++)
		bp_welford_add(i < 3 ? &a : &b, v[i]);
	bp_welford_merge(&a, &b);
	two_pass(v, 7, &mean, &var);
	CHECK_INT(a.n, 7);
	CHECK_NEAR(bp_welford_mean(&a), mean, 1e-12 * mean);
	CHECK_NEAR(bp_welford_variance(&a), var, 1e-12 * var);
	CHECK(a.min == 1 && a.max == 1010);
}

int main(void)
{
	test_known();
	test_merge_apart();
	test_vs_two_pass();
	test_merge();
	return tap_done();
}
