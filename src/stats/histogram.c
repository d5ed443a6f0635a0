/*
 * Log-linear histogram; see histogram.h for the idea and the error bound.
 *
 * Bucket layout, with S = BP_HISTO_SUB_BITS and a value v whose top set bit is m:
 * shift = max(0, m - S) and index = shift * 2^S + (v >> shift). For v < 2^(S+1) the shift
 * is 0 and the index is v itself, so every value below 256 has a bucket of its own. Above,
 * v >> shift keeps the top S+1 bits of v (2^S .. 2^(S+1)-1), i.e. 2^S equal buckets per
 * power of two, each 2^shift wide. The last bucket ends exactly at UINT64_MAX.
 */
#include "stats/histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_COUNT (1u << BP_HISTO_SUB_BITS)
/* shifts 0 .. 63-S, each holding indexes up to (shift+2) * 2^S - 1 */
#define NBUCKETS ((65u - BP_HISTO_SUB_BITS) * SUB_COUNT)

/*
 * The running sum is kept exactly in 128 bits, as two halves rather than unsigned __int128,
 * because 32-bit ARM compilers have no 128-bit integer type. Even 2^64 values of
 * UINT64_MAX fit, so the sum cannot overflow before the count itself would (and a 64-bit
 * count takes 584 years to wrap at a billion records a second).
 */
struct sum128 {
	uint64_t lo, hi;
};

struct bp_histo {
	uint64_t count;
	uint64_t min;  /* UINT64_MAX while empty, so recording needs no "first value" branch */
	uint64_t max;
	struct sum128 sum;
	uint64_t buckets[NBUCKETS];
};

static inline unsigned bucket_of(uint64_t v)
{
	/* OR-ing in 2^S keeps clz defined for 0 and makes the shift 0 below 2^(S+1). */
	unsigned shift = (63u - BP_HISTO_SUB_BITS) - (unsigned)__builtin_clzll(v | SUB_COUNT);

	return (shift << BP_HISTO_SUB_BITS) + (unsigned)(v >> shift);
}

/* The inverse of bucket_of: the smallest value of bucket i and the bucket's width. */
static uint64_t bucket_low(unsigned i, uint64_t *width)
{
	unsigned shift = i >> BP_HISTO_SUB_BITS;

	shift = shift ? shift - 1 : 0;
	*width = (uint64_t)1 << shift;
	return (uint64_t)(i - (shift << BP_HISTO_SUB_BITS)) << shift;
}

/*
 * The middle of the bucket, rounded down: the farthest value of the bucket is then at most
 * width/2 away, and every value of a bucket with shift > 0 is at least 2^S * width, which
 * gives the 1/2^(S+1) bound. Written as low + (width-1)/2 so the top bucket cannot overflow.
 */
static uint64_t bucket_mid(unsigned i)
{
	uint64_t width;
	uint64_t low = bucket_low(i, &width);

	return low + (width - 1) / 2;
}

static void sum_add(struct sum128 *s, uint64_t lo, uint64_t hi)
{
	s->lo += lo;
	s->hi += hi + (s->lo < lo);
}

/* a * b as 128 bits from 32-bit halves: record_n must not wrap either. */
static struct sum128 mul_64x64(uint64_t a, uint64_t b)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32;
	uint64_t b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	/* each term fits: (2^32-1) + 2 * (2^32-1) < 2^64 */
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	struct sum128 r;

	r.lo = (mid << 32) | (uint32_t)p00;
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

struct bp_histo *bp_histo_new(void)
{
	struct bp_histo *h = calloc(1, sizeof(*h));

	if (h)
		h->min = UINT64_MAX;
	return h;
}

void bp_histo_free(struct bp_histo *h)
{
	free(h);
}

void bp_histo_reset(struct bp_histo *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/* The hot path: one clz, a shift, an add; no loop, no division, no branch on the data. */
void bp_histo_record(struct bp_histo *h, uint64_t value)
{
	h->buckets[bucket_of(value)]++;
	h->count++;
	h->min = value < h->min ? value : h->min;
	h->max = value > h->max ? value : h->max;
	sum_add(&h->sum, value, 0);
}

void bp_histo_record_n(struct bp_histo *h, uint64_t value, uint64_t count)
{
	struct sum128 add;

	/* Recording nothing must not move min and max. */
	if (count == 0)
		return;
	h->buckets[bucket_of(value)] += count;
	h->count += count;
	h->min = value < h->min ? value : h->min;
	h->max = value > h->max ? value : h->max;
	add = mul_64x64(value, count);
	sum_add(&h->sum, add.lo, add.hi);
}

void bp_histo_merge(struct bp_histo *dst, const struct bp_histo *src)
{
	/* Copied first so that merging a histogram into itself doubles it correctly. */
	struct sum128 add = src->sum;
	unsigned i;

	for (i = 0; i < NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	/* An empty src holds min = UINT64_MAX and max = 0, which change nothing here. */
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	sum_add(&dst->sum, add.lo, add.hi);
}

uint64_t bp_histo_count(const struct bp_histo *h)
{
	return h->count;
}

uint64_t bp_histo_min(const struct bp_histo *h)
{
	return h->count ? h->min : 0;
}

uint64_t bp_histo_max(const struct bp_histo *h)
{
	return h->max;
}

/*
 * The sum is exact; only its conversion and the division round. long double keeps 64 bits
 * of mantissa on x86 (more on aarch64), and is plain double on 32-bit ARM, where the mean
 * is still good to a few parts in 1e16.
 */
double bp_histo_mean(const struct bp_histo *h)
{
	long double sum;

	if (h->count == 0)
		return 0.0;
	sum = ldexpl((long double)h->sum.hi, 64) + (long double)h->sum.lo;
	return (double)(sum / (long double)h->count);
}

/*
 * The 1-based rank of the value at pct: ceil(pct/100 * count), within [1, count].
 * A caller's 99.9 is really 99.900000000000006 in a double, which for 200000 values would
 * ask for rank 199801 rather than 199800; shaving a relative 1e-12 off before rounding up
 * absorbs that representation error. It can only matter for a true fractional part below
 * 1e-12 * rank, i.e. for percentiles given with more than ~12 significant digits.
 */
static uint64_t rank_of(double pct, uint64_t count)
{
	long double x = (long double)pct / 100.0L * (long double)count;
	long double r = ceill(x - x * 1e-12L);

	if (r < 1.0L)
		return 1;
	if (r >= (long double)count)
		return count;
	return (uint64_t)r;
}

uint64_t bp_histo_percentile(const struct bp_histo *h, double pct)
{
	uint64_t rank, seen = 0, mid;
	unsigned i;

	if (h->count == 0)
		return 0;
	/* The negated test also sends NaN to min. */
	if (!(pct > 0.0))
		return h->min;
	if (pct >= 100.0)
		return h->max;
	rank = rank_of(pct, h->count);
	/* Not a hot path: at most NBUCKETS steps, and none below the bucket of min. */
	for (i = bucket_of(h->min); i < NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == NBUCKETS)  /* unreachable while the counts add up; max is the safe answer */
		return h->max;
	mid = bucket_mid(i);
	if (mid < h->min)
		return h->min;
	return mid > h->max ? h->max : mid;
}

/*
 * Each bucket's values stand at its midpoint clamped to [min, max] (as for a percentile),
 * so the mean of the kept values is within BP_HISTO_MAX_REL_ERROR of the exact one; the
 * bucket holding the last kept rank counts only the ranks up to it.
 */
double bp_histo_trimmed_mean(const struct bp_histo *h, double pct)
{
	uint64_t keep, seen = 0;
	long double sum = 0;
	unsigned i;

	if (h->count == 0)
		return 0.0;
	if (!(pct > 0.0))
		return (double)h->min;
	if (pct >= 100.0)
		return bp_histo_mean(h);
	keep = rank_of(pct, h->count);
	for (i = bucket_of(h->min); i < NBUCKETS && seen < keep; i++) {
		uint64_t n = h->buckets[i], mid = bucket_mid(i);

		if (!n)
			continue;
		if (n > keep - seen)
			n = keep - seen;
		mid = mid < h->min ? h->min : mid > h->max ? h->max : mid;
		sum += (long double)mid * (long double)n;
		seen += n;
	}
	return (double)(sum / (long double)seen);
}

uint64_t bp_histo_next_bucket(const struct bp_histo *h, unsigned *iter,
			      uint64_t *low, uint64_t *high)
{
	uint64_t width;
	unsigned i;

	for (i = *iter; i < NBUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		*low = bucket_low(i, &width);
		*high = *low + (width - 1);
		*iter = i + 1;
		return h->buckets[i];
	}
	*iter = NBUCKETS;
	return 0;
}

void bp_histo_summarize(const struct bp_histo *h, struct bp_histo_summary *s)
{
	s->count = bp_histo_count(h);
	s->min = (double)bp_histo_min(h);
	s->mean = bp_histo_mean(h);
	s->p50 = (double)bp_histo_percentile(h, 50);
	s->p90 = (double)bp_histo_percentile(h, 90);
	s->p99 = (double)bp_histo_percentile(h, 99);
	s->p999 = (double)bp_histo_percentile(h, 99.9);
	s->p9999 = (double)bp_histo_percentile(h, 99.99);
	s->max = (double)bp_histo_max(h);
}

uint64_t bp_histo_bucket_low(uint64_t value)
{
	uint64_t width;

	return bucket_low(bucket_of(value), &width);
}

void bp_histo_set_extremes(struct bp_histo *h, uint64_t min, uint64_t max)
{
	if (!h->count)
		return;
	h->min = min;
	h->max = max;
}
