/*
 * The histogram against the truth: random data from several distributions is sorted, and
 * every percentile the histogram reports must lie within BP_HISTO_MAX_REL_ERROR of the
 * exact one, computed here from the sorted copy with the header's definition.
 */
#include "stats/histogram.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#define NVALUES 200003  /* not round, so ceil() in the rank matters */

/* xorshift64*: a fixed seed makes every run test the same values. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng_next(void)
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The exact percentile num/den (as a fraction of 1) of sorted[0..n): the value at
 * 1-based rank ceil(n * num / den), in integers so nothing rounds.
 */
static uint64_t exact_pct(const uint64_t *sorted, uint64_t n, uint64_t num, uint64_t den)
{
	uint64_t rank = (n * num + den - 1) / den;

	if (rank < 1)
		rank = 1;
	return sorted[(rank > n ? n : rank) - 1];
}

/*
 * |approx - exact| <= exact * BP_HISTO_MAX_REL_ERROR, in integers: with a diff that is an
 * integer, diff * 2^(S+1) <= exact holds exactly when diff <= exact >> (S+1). No slack is
 * needed, and values near UINT64_MAX are not rounded through a double.
 */
static int within_bound(uint64_t approx, uint64_t exact)
{
	uint64_t diff = approx > exact ? approx - exact : exact - approx;

	return diff <= exact >> (BP_HISTO_SUB_BITS + 1);
}

static void test_empty(void)
{
	struct bp_histo *h = bp_histo_new();

	CHECK(h != NULL);
	CHECK_INT(bp_histo_count(h), 0);
	CHECK_INT(bp_histo_min(h), 0);
	CHECK_INT(bp_histo_max(h), 0);
	CHECK_NEAR(bp_histo_mean(h), 0.0, 0.0);
	CHECK_INT(bp_histo_percentile(h, 50.0), 0);
	CHECK_INT(bp_histo_percentile(h, 0.0), 0);
	CHECK_INT(bp_histo_percentile(h, 100.0), 0);
	bp_histo_free(h);
}

/* The values at the edges of the exact range and of uint64_t come back unchanged. */
static void test_special_values(void)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, UINT64_MAX };
	struct bp_histo *h = bp_histo_new();
	size_t i;

	for (i = 0; i < 5; i++) {
		bp_histo_reset(h);
		bp_histo_record(h, vals[i]);
		CHECK(bp_histo_percentile(h, 50.0) == vals[i]);
		CHECK(bp_histo_min(h) == vals[i] && bp_histo_max(h) == vals[i]);
	}
	bp_histo_reset(h);
	for (i = 0; i < 5; i++)
		bp_histo_record(h, vals[i]);
	CHECK_INT(bp_histo_count(h), 5);
	/* 5 values: pct 20 * k asks for rank k exactly. */
	CHECK_INT(bp_histo_percentile(h, 20.0), 0);
	CHECK_INT(bp_histo_percentile(h, 40.0), 1);
	CHECK_INT(bp_histo_percentile(h, 60.0), 127);
	CHECK_INT(bp_histo_percentile(h, 80.0), 128);
	CHECK(bp_histo_percentile(h, 100.0) == UINT64_MAX);
	CHECK(bp_histo_max(h) == UINT64_MAX);
	CHECK_INT(bp_histo_min(h), 0);
	bp_histo_free(h);
}

/*
 * Every power of two, its neighbours and a random value in each octave, recorded between
 * 0 and UINT64_MAX so that the clamp to [min, max] cannot hide a wrong bucket: the median
 * is then the bucket's own midpoint. Below 256 it must be the value itself.
 */
static int sweep_one(struct bp_histo *h, uint64_t v)
{
	uint64_t got;

	bp_histo_reset(h);
	bp_histo_record(h, 0);
	bp_histo_record(h, v);
	bp_histo_record(h, UINT64_MAX);
	got = bp_histo_percentile(h, 50.0);
	if (v < 256 ? got == v : within_bound(got, v))
		return 0;
	printf("#   value %llu reported as %llu\n", (unsigned long long)v, (unsigned long long)got);
	return 1;
}

static void test_bucket_sweep(void)
{
	struct bp_histo *h = bp_histo_new();
	int bad = 0, k;
	uint64_t v, p;

	for (v = 0; v < 1024; v++)
		bad += sweep_one(h, v);
	CHECK_INT(bad, 0);
	bad = 0;
	for (k = 1; k < 64; k++) {
		p = (uint64_t)1 << k;
		bad += sweep_one(h, p - 1) + sweep_one(h, p) + sweep_one(h, p + 1);
		bad += sweep_one(h, p + p / 2 - 1);
		bad += sweep_one(h, p + (rng_next() & (p - 1)));
		bad += sweep_one(h, p + (p - 1));  /* the octave's last value */
	}
	CHECK_INT(bad, 0);
	bp_histo_free(h);
}

/*
 * Walks the whole uint64_t range bucket by bucket: recording the first value past the
 * previous bucket must land in a bucket that starts exactly there (no gap, no overlap),
 * holds it alone, and is no wider than the error bound allows (1 below 256, else at most
 * low / 2^S). Ends at a bucket whose last value is UINT64_MAX.
 */
static void test_bucket_layout(void)
{
	struct bp_histo *h = bp_histo_new();
	uint64_t v = 0, low = 0, high = 0, n, width_max;
	unsigned iter, nbuckets = 0;
	int bad = 0;

	do {
		bp_histo_reset(h);
		bp_histo_record(h, v);
		iter = 0;
		n = bp_histo_next_bucket(h, &iter, &low, &high);
		width_max = low < 256 ? 1 : low >> BP_HISTO_SUB_BITS;
		/* Alone, a value comes back exactly: the clamp to [min, max] sees to it. */
		if (n != 1 || low != v || high < low || high - low >= width_max ||
		    bp_histo_next_bucket(h, &iter, &low, &high) != 0 ||
		    bp_histo_percentile(h, 50.0) != v) {
			printf("#   bucket of %llu: [%llu, %llu]\n", (unsigned long long)v,
			       (unsigned long long)low, (unsigned long long)high);
			if (++bad > 5)
				break;
		}
		nbuckets++;
		v = high + 1;
	} while (high != UINT64_MAX);
	CHECK_INT(bad, 0);
	CHECK(high == UINT64_MAX);
	/* 256 exact buckets, then 2^S per octave for the 56 octaves from 2^8 to 2^64 */
	CHECK_INT(nbuckets, 256 + (64 - BP_HISTO_SUB_BITS - 1) * (1 << BP_HISTO_SUB_BITS));
	bp_histo_free(h);
}

enum dist { DIST_SMALL, DIST_LOGUNIFORM, DIST_MIXED };

/* Latency-like data: 1 ns .. 10 s spread evenly over the orders of magnitude. */
static uint64_t log_uniform(void)
{
	return (uint64_t)exp(rng_unit() * log(1e10));
}

static void fill(uint64_t *v, size_t n, enum dist d)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (d == DIST_SMALL)
			v[i] = rng_next() % 1000;
		else if (d == DIST_LOGUNIFORM)
			v[i] = log_uniform();
		else if (i % 5000 == 0)  /* 41 of 200003: past p99.99, so p99.99 lands among them */
			v[i] = UINT64_MAX - (rng_next() % (1u << 20));
		else if (i % 5000 == 1)  /* the top octave, away from its end */
			v[i] = ((uint64_t)1 << 63) + (rng_next() >> 1);
		else
			v[i] = rng_next() & 1 ? log_uniform() : rng_next() % 1000;
	}
}

/* The percentiles the result model prints, as num / 10000. */
static const struct {
	double pct;
	uint64_t num;
} named_pcts[] = {
	{ 50.0, 5000 }, { 90.0, 9000 }, { 99.0, 9900 }, { 99.9, 9990 }, { 99.99, 9999 },
	{ 0.01, 1 }, { 1.0, 100 }, { 10.0, 1000 },
};

static void check_named_pcts(const struct bp_histo *h, const uint64_t *sorted, size_t n)
{
	size_t i;
	uint64_t got, want;

	for (i = 0; i < sizeof(named_pcts) / sizeof(named_pcts[0]); i++) {
		got = bp_histo_percentile(h, named_pcts[i].pct);
		want = exact_pct(sorted, n, named_pcts[i].num, 10000);
		CHECK(within_bound(got, want));
		if (!within_bound(got, want))
			printf("#   p%g: got %llu, exact %llu\n", named_pcts[i].pct,
			       (unsigned long long)got, (unsigned long long)want);
	}
}

/* Percentiles k/1000 % for k spread over 1..100000: checks the rank rounding everywhere. */
static void check_pct_grid(const struct bp_histo *h, const uint64_t *sorted, size_t n)
{
	uint64_t k, got, want;
	int bad = 0;

	for (k = 1; k <= 100000; k += (k < 99000 ? 37 : 1)) {
		got = bp_histo_percentile(h, (double)k / 1000.0);
		want = exact_pct(sorted, n, k, 100000);
		if (!within_bound(got, want) && bad++ < 5)
			printf("#   p%g: got %llu, exact %llu\n", (double)k / 1000.0,
			       (unsigned long long)got, (unsigned long long)want);
	}
	CHECK_INT(bad, 0);
}

/*
 * Values 2 % apart, more than twice the error bound, so a percentile one rank off cannot
 * pass for the right one. With 1000 values, a double 99.9 times 1000 / 100 comes out a hair
 * above 999: rounding that up to rank 1000 would be wrong.
 */
static void test_rank_rounding(void)
{
	uint64_t v[1000];
	struct bp_histo *h = bp_histo_new();
	size_t i;

	for (i = 0; i < 1000; i++) {
		v[i] = (uint64_t)(300.0 * pow(1.02, (double)i));
		bp_histo_record(h, v[i]);
	}
	check_named_pcts(h, v, 1000);
	check_pct_grid(h, v, 1000);
	bp_histo_free(h);
}

static long double exact_mean(const uint64_t *v, size_t n)
{
	long double sum = 0.0L;
	size_t i;

	for (i = 0; i < n; i++)
		sum += (long double)v[i];
	return sum / (long double)n;
}

static void test_distribution(enum dist d)
{
	uint64_t *v = malloc(NVALUES * sizeof(*v));
	struct bp_histo *h = bp_histo_new();
	long double mean;
	size_t i;

	fill(v, NVALUES, d);
	for (i = 0; i < NVALUES; i++)
		bp_histo_record(h, v[i]);
	mean = exact_mean(v, NVALUES);
	qsort(v, NVALUES, sizeof(*v), cmp_u64);
	printf("# distribution %d: min %llu max %llu\n", (int)d,
	       (unsigned long long)v[0], (unsigned long long)v[NVALUES - 1]);
	CHECK_INT(bp_histo_count(h), NVALUES);
	CHECK(bp_histo_min(h) == v[0]);
	CHECK(bp_histo_max(h) == v[NVALUES - 1]);
	CHECK_NEAR(bp_histo_mean(h) / (double)mean, 1.0, 1e-12);
	check_named_pcts(h, v, NVALUES);
	check_pct_grid(h, v, NVALUES);
	CHECK(bp_histo_percentile(h, 0.0) == v[0]);
	CHECK(bp_histo_percentile(h, -5.0) == v[0]);
	CHECK(bp_histo_percentile(h, NAN) == v[0]);
	CHECK(bp_histo_percentile(h, 100.0) == v[NVALUES - 1]);
	CHECK(bp_histo_percentile(h, 150.0) == v[NVALUES - 1]);
	CHECK(within_bound(bp_histo_percentile(h, 1e-9), v[0]));
	free(v);
	bp_histo_free(h);
}

/* Bucket for bucket: the same non-empty buckets, with the same ranges and counts. */
static int same_buckets(const struct bp_histo *a, const struct bp_histo *b)
{
	unsigned ia = 0, ib = 0;
	uint64_t na, nb, la, ha, lb, hb;

	do {
		na = bp_histo_next_bucket(a, &ia, &la, &ha);
		nb = bp_histo_next_bucket(b, &ib, &lb, &hb);
		if (na != nb || (na && (la != lb || ha != hb)))
			return 0;
	} while (na);
	return 1;
}

/* ... and as callers see them: count, min, max, mean and percentiles every 0.01 %. */
static int same_histo(const struct bp_histo *a, const struct bp_histo *b)
{
	int k;

	if (bp_histo_count(a) != bp_histo_count(b) || bp_histo_min(a) != bp_histo_min(b) ||
	    bp_histo_max(a) != bp_histo_max(b) || bp_histo_mean(a) != bp_histo_mean(b))
		return 0;
	for (k = 1; k <= 10000; k++)
		if (bp_histo_percentile(a, k / 100.0) != bp_histo_percentile(b, k / 100.0))
			return 0;
	return same_buckets(a, b);
}

static void test_merge(void)
{
	uint64_t *v = malloc(NVALUES * sizeof(*v));
	struct bp_histo *all = bp_histo_new(), *a = bp_histo_new(), *b = bp_histo_new();
	struct bp_histo *empty = bp_histo_new();
	size_t i;

	fill(v, NVALUES, DIST_MIXED);
	for (i = 0; i < NVALUES; i++) {
		bp_histo_record(all, v[i]);
		bp_histo_record(rng_next() % 3 ? a : b, v[i]);
	}
	CHECK(bp_histo_count(a) + bp_histo_count(b) == NVALUES);
	bp_histo_merge(a, b);
	CHECK(same_histo(a, all));
	/* Merging an empty histogram either way changes nothing; min stays exact. */
	bp_histo_merge(a, empty);
	CHECK(same_histo(a, all));
	bp_histo_merge(empty, all);
	CHECK(same_histo(empty, all));
	/* Into itself: twice every count, so the same percentiles and mean. */
	bp_histo_merge(a, a);
	CHECK(bp_histo_count(a) == 2 * (uint64_t)NVALUES);
	CHECK(bp_histo_percentile(a, 99.9) == bp_histo_percentile(all, 99.9));
	CHECK(bp_histo_mean(a) == bp_histo_mean(all));
	free(v);
	bp_histo_free(all);
	bp_histo_free(a);
	bp_histo_free(b);
	bp_histo_free(empty);
}

/*
 * record_n(v, n) alone must give a mean of v. With counts above 2^32 the 128-bit product
 * needs every carry: a lost one moves the sum by 2^64 and the mean by about 1e-10 of v.
 * The tolerance covers the rounding of a 128-bit sum to a long double (only 53 bits on
 * 32-bit ARM) and of the quotient to a double.
 */
static int record_n_mean_ok(struct bp_histo *h, uint64_t v, uint64_t n)
{
	double mean;

	bp_histo_reset(h);
	bp_histo_record_n(h, v, n);
	mean = bp_histo_mean(h);
	if (fabs(mean - (double)v) <= 1e-14 * (double)v)
		return 1;
	printf("#   record_n(%llu, %llu): mean %.17g\n", (unsigned long long)v,
	       (unsigned long long)n, mean);
	return 0;
}

static void test_record_n(void)
{
	struct bp_histo *h = bp_histo_new(), *g = bp_histo_new();
	int i, bad = 0;

	bp_histo_record_n(h, 12345, 0);  /* nothing recorded: min and max stay empty */
	CHECK_INT(bp_histo_count(h), 0);
	CHECK_INT(bp_histo_max(h), 0);
	for (i = 0; i < 1000; i++) {
		bp_histo_record(h, 777777);
		bp_histo_record(h, i);
	}
	bp_histo_record_n(g, 777777, 1000);
	for (i = 0; i < 1000; i++)
		bp_histo_record_n(g, i, 1);
	CHECK(same_histo(h, g));

	/* Full-range values times counts whose product needs all 128 bits of the sum. */
	for (i = 0; i < 20; i++) {
		uint64_t v = rng_next(), n = 1 + rng_next() % 300, j;

		bp_histo_reset(h);
		bp_histo_reset(g);
		for (j = 0; j < n; j++)
			bp_histo_record(h, v);
		bp_histo_record_n(g, v, n);
		bp_histo_record_n(g, 0, 0);
		if (!same_histo(h, g) && bad++ < 5)
			printf("#   record_n(%llu, %llu) differs\n", (unsigned long long)v,
			       (unsigned long long)n);
	}
	CHECK_INT(bad, 0);
	bp_histo_reset(h);
	bp_histo_record_n(h, UINT64_MAX, 3);
	CHECK(bp_histo_mean(h) == 0x1p64);
	CHECK(record_n_mean_ok(h, UINT64_MAX, ((uint64_t)1 << 33) - 1));
	for (i = 0, bad = 0; i < 1000; i++)
		bad += !record_n_mean_ok(h, rng_next(), ((uint64_t)1 << 32) + (rng_next() >> 24));
	CHECK_INT(bad, 0);

	/* Sums a 64-bit accumulator would wrap: the mean must still be exact. */
	bp_histo_reset(h);
	for (i = 0; i < 1000; i++)
		bp_histo_record(h, UINT64_MAX);
	CHECK(bp_histo_mean(h) == 0x1p64);  /* UINT64_MAX rounds to 2^64 as a double */
	bp_histo_reset(h);
	bp_histo_record_n(h, (uint64_t)1 << 63, (uint64_t)1 << 40);  /* sum 2^103 */
	CHECK(bp_histo_mean(h) == 0x1p63);
	bp_histo_record_n(h, 0, (uint64_t)1 << 40);
	CHECK(bp_histo_mean(h) == 0x1p62);
	CHECK_INT(bp_histo_min(h), 0);
	bp_histo_free(h);
	bp_histo_free(g);
}

static void test_reset(void)
{
	struct bp_histo *h = bp_histo_new();

	bp_histo_record(h, 5);
	bp_histo_record(h, 500000);
	bp_histo_reset(h);
	CHECK_INT(bp_histo_count(h), 0);
	CHECK_INT(bp_histo_min(h), 0);
	CHECK_INT(bp_histo_max(h), 0);
	CHECK_INT(bp_histo_percentile(h, 50.0), 0);
	bp_histo_record(h, 300);  /* min must not remember the 5 from before */
	CHECK_INT(bp_histo_min(h), 300);
	CHECK_NEAR(bp_histo_mean(h), 300.0, 0.0);
	bp_histo_free(h);
}

/* The summary is the histogram's own figures, field by field. */
static void test_summary(void)
{
	struct bp_histo *h = bp_histo_new();
	struct bp_histo_summary s;

	bp_histo_summarize(h, &s);
	CHECK_INT(s.count, 0);
	for (uint64_t v = 1; v <= 10000; v++)
		bp_histo_record(h, v * 1000);
	bp_histo_summarize(h, &s);
	CHECK_INT(s.count, 10000);
	CHECK(s.min == 1000 && s.max == 10000000);
	CHECK(s.mean == bp_histo_mean(h));
	CHECK(s.p50 == (double)bp_histo_percentile(h, 50));
	CHECK(s.p90 == (double)bp_histo_percentile(h, 90));
	CHECK(s.p99 == (double)bp_histo_percentile(h, 99));
	CHECK(s.p999 == (double)bp_histo_percentile(h, 99.9));
	CHECK(s.p9999 == (double)bp_histo_percentile(h, 99.99));
	CHECK(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 &&
	      s.p999 <= s.p9999 && s.p9999 <= s.max);
	bp_histo_free(h);
}

/*
 * The trimmed mean against the exact one over sorted values: the smallest 95 % of 1..1000
 * scaled by 1000 (values up to 1e6, where buckets are wide) and a distribution with a far
 * tail that the trim must leave out; empty, 0 % and 100 % at the edges.
 */
static void test_trimmed_mean(void)
{
	struct bp_histo *h = bp_histo_new();
	double exact = 0;

	CHECK_NEAR(bp_histo_trimmed_mean(h, 95), 0.0, 0.0);
	for (uint64_t v = 1; v <= 1000; v++)
		bp_histo_record(h, v * 1000);
	for (uint64_t v = 1; v <= 950; v++)
		exact += (double)(v * 1000);
	exact /= 950;
	CHECK_NEAR(bp_histo_trimmed_mean(h, 95), exact, exact * BP_HISTO_MAX_REL_ERROR);
	CHECK_NEAR(bp_histo_trimmed_mean(h, 100), bp_histo_mean(h), 0.0);
	CHECK_NEAR(bp_histo_trimmed_mean(h, 0), 1000.0, 0.0);
	bp_histo_reset(h);
	/* 96 round trips of 10 ms and 4 of 10 s: the best 95 % are all 10 ms. */
	bp_histo_record_n(h, 10000000, 96);
	bp_histo_record_n(h, 10000000000ull, 4);
	CHECK_NEAR(bp_histo_trimmed_mean(h, 95), 10e6, 10e6 * BP_HISTO_MAX_REL_ERROR);
	/* 91 % of 100 keeps the 90 fast values and one of the 10 slow ones. */
	bp_histo_reset(h);
	bp_histo_record_n(h, 1000, 90);
	bp_histo_record_n(h, 2000, 10);
	CHECK_NEAR(bp_histo_trimmed_mean(h, 91), (90 * 1000.0 + 2000) / 91, 2000 * BP_HISTO_MAX_REL_ERROR);
	bp_histo_free(h);
}

int main(void)
{
	test_trimmed_mean();
	test_summary();
	/* The bound the tests use in integers is the one the header states. */
	CHECK(BP_HISTO_MAX_REL_ERROR == 1.0 / (double)((uint64_t)1 << (BP_HISTO_SUB_BITS + 1)));
	test_empty();
	test_special_values();
	test_bucket_sweep();
	test_bucket_layout();
	test_rank_rounding();
	test_distribution(DIST_SMALL);
	test_distribution(DIST_LOGUNIFORM);
	test_distribution(DIST_MIXED);
	test_merge();
	test_record_n();
	test_reset();
	return tap_done();
}
