#include "io/pacer.h"

#include <errno.h>
#include <math.h>

#include "core/clock.h"
#include "io/frame.h"

/* The largest denominator that keeps n * r below 2^64 for any n < 2^32 (see advance()). */
#define DEN_MAX (1ULL << 32)

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* interval = units * 1e9 / rate ns, exact when the rate is an integer and den fits. */
static void set_interval(struct bp_pacer *p, double rate, uint64_t units)
{
	double x;

	p->unpaced = !(rate > 0.0) || !isfinite(rate) || units == 0;
	if (p->unpaced)
		return;
	if (rate == floor(rate) && rate < 0x1p63 && units <= UINT64_MAX / BP_NS_PER_SEC) {
		uint64_t num = units * BP_NS_PER_SEC, den = (uint64_t)rate;
		uint64_t g = gcd(num, den);

		num /= g;
		den /= g;
		if (den <= DEN_MAX) {
			p->q = num / den;
			p->r = num % den;
			p->den = den;
			return;
		}
	}
	/* Rounded once, to 1/2^32 ns: the schedule stays exact from here on. */
	x = (double)units * 1e9 / rate;
	if (x >= 0x1p63)
		x = 0x1p63;
	p->q = (uint64_t)x;
	p->den = DEN_MAX;
	p->r = (uint64_t)llround((x - (double)p->q) * 0x1p32);
	if (p->r >= p->den) {
		p->q++;
		p->r = 0;
	}
	p->unpaced = p->q == 0 && p->r == 0;
}

/* Catch-up spacing: the interval shrunk to catchup_pct, rounded down (never slower). */
static void set_step(struct bp_pacer *p)
{
	if (p->unpaced || !p->catchup_pct) {
		p->step_ns = 0;
		return;
	}
	p->step_ns = (p->q * 100 + p->r * 100 / p->den) / p->catchup_pct;
}

static void init_units(struct bp_pacer *p, double rate, uint64_t units, uint64_t start_ns)
{
	*p = (struct bp_pacer){
		.start_ns = start_ns,
		.next_ns = start_ns,
		.den = 1,
		.max_batch = BP_PACER_MAX_BATCH,
		.catchup_pct = BP_PACER_CATCHUP_PCT,
	};
	set_interval(p, rate, units);
	set_step(p);
}

void bp_pacer_init(struct bp_pacer *p, double bits_per_sec, size_t bits_per_datagram,
		   uint64_t start_ns)
{
	init_units(p, bits_per_sec, bits_per_datagram, start_ns);
}

void bp_pacer_init_pps(struct bp_pacer *p, double datagrams_per_sec, uint64_t start_ns)
{
	init_units(p, datagrams_per_sec, 1, start_ns);
}

void bp_pacer_init_line_rate(struct bp_pacer *p, double line_bps, unsigned frame_len,
			     uint64_t start_ns)
{
	init_units(p, line_bps, (uint64_t)bp_frame_wire_bytes(frame_len) * 8, start_ns);
}

void bp_pacer_init_period(struct bp_pacer *p, uint64_t period_ns, uint64_t start_ns)
{
	init_units(p, 0.0, 1, start_ns);
	p->unpaced = period_ns == 0;
	p->q = period_ns;
	set_step(p);
}

int bp_pacer_set_limits(struct bp_pacer *p, unsigned max_batch, unsigned catchup_pct)
{
	if (catchup_pct && catchup_pct <= 100)
		return -EINVAL;
	if (max_batch)
		p->max_batch = max_batch;
	p->catchup_pct = catchup_pct;
	set_step(p);
	return 0;
}

/*
 * Move the due time *t (with its sub-nanosecond part *frac) on by n intervals. In chunks
 * below 2^32 datagrams, so that m * r (r < den <= 2^32) cannot overflow.
 */
static void advance(const struct bp_pacer *p, uint64_t *t, uint64_t *frac, uint64_t n)
{
	while (n) {
		uint64_t m = n > UINT32_MAX ? UINT32_MAX : n;
		uint64_t x = m * p->r;

		*t += m * p->q + x / p->den;
		*frac += x % p->den;
		if (*frac >= p->den) {
			*frac -= p->den;
			(*t)++;
		}
		n -= m;
	}
}

/*
 * The catch-up bucket as a GCRA: the virtual clock tat_ns runs step_ns ahead per datagram
 * sent, and a datagram conforms while tat is at most tau ahead of now. tau holds a full
 * batch plus BP_PACER_SLACK_NS, the tokens that accrue while a sleeping sender's timer
 * wakes it late: without them, every late wake-up would be lost to the catch-up rate, and
 * a sender that needs its whole catch-up margin (1.5 Mpps woken every 50 us) would fall
 * further behind for good.
 */
static uint64_t tau(const struct bp_pacer *p)
{
	return (uint64_t)(p->max_batch - 1) * p->step_ns + BP_PACER_SLACK_NS;
}

/* Tokens in the bucket at now_ns; a clock at or behind now is a full bucket. */
static uint64_t bucket(const struct bp_pacer *p, uint64_t now_ns)
{
	uint64_t ahead;

	if (!p->step_ns || p->tat_ns <= now_ns)
		return UINT64_MAX;
	ahead = p->tat_ns - now_ns;
	return ahead > tau(p) ? 0 : (tau(p) - ahead) / p->step_ns + 1;
}

/* When the bucket holds j tokens: tau - (j - 1) steps before tat, by the above. */
static uint64_t bucket_holds_at(const struct bp_pacer *p, uint64_t j)
{
	uint64_t back = tau(p) - (j - 1) * p->step_ns;

	return p->tat_ns > back ? p->tat_ns - back : 0;
}

/* Datagrams of the schedule due by now_ns, counted up to max_batch (so at most 64 steps). */
static uint64_t backlog(const struct bp_pacer *p, uint64_t now_ns)
{
	uint64_t t = p->next_ns, frac = p->frac, n = 0;

	while (n < p->max_batch && t <= now_ns) {
		n++;
		advance(p, &t, &frac, 1);
	}
	return n;
}

uint64_t bp_pacer_due(const struct bp_pacer *p, uint64_t now_ns)
{
	uint64_t n, tokens;

	if (p->unpaced)
		return p->max_batch;
	n = backlog(p, now_ns);
	tokens = bucket(p, now_ns);
	return n < tokens ? n : tokens;
}

void bp_pacer_sent(struct bp_pacer *p, uint64_t n, uint64_t now_ns)
{
	if (!n)
		return;
	p->sent += n;
	if (p->unpaced)
		return;
	if (now_ns > p->next_ns && now_ns - p->next_ns > p->max_lag_ns)
		p->max_lag_ns = now_ns - p->next_ns;
	if (p->step_ns)
		p->tat_ns = (p->tat_ns > now_ns ? p->tat_ns : now_ns) + n * p->step_ns;
	advance(p, &p->next_ns, &p->frac, n);
}

/*
 * Not the first token but the time a whole batch may go: while j datagrams are due (from
 * the j-th due time until the next one), the answer is the first j whose window contains
 * the time the bucket holds j; with max_batch or more due, max_batch tokens. So a sender
 * that waits for this catches up in whole batches, not one datagram per system call as
 * each token arrives. Both backlog and tokens only grow with time, so bp_pacer_due is
 * positive at any time from here on.
 */
uint64_t bp_pacer_next_ns(const struct bp_pacer *p)
{
	uint64_t t = p->next_ns, frac = p->frac, j;

	if (p->unpaced)
		return 0;
	if (!p->step_ns || p->tat_ns <= t)
		return t;
	for (j = 1; j < p->max_batch; j++) {
		uint64_t tj = t, u = bucket_holds_at(p, j);

		advance(p, &t, &frac, 1);
		if (u < t)
			return u > tj ? u : tj;
	}
	return bucket_holds_at(p, p->max_batch) > t ? bucket_holds_at(p, p->max_batch) : t;
}

uint64_t bp_pacer_due_time_ns(const struct bp_pacer *p, uint64_t i)
{
	uint64_t t = p->next_ns, frac = p->frac;

	if (p->unpaced)
		return 0;
	advance(p, &t, &frac, i);
	return t;
}

uint64_t bp_pacer_sent_count(const struct bp_pacer *p)
{
	return p->sent;
}

double bp_pacer_interval_ns(const struct bp_pacer *p)
{
	return p->unpaced ? 0.0 : (double)p->q + (double)p->r / (double)p->den;
}

uint64_t bp_pacer_max_lag_ns(const struct bp_pacer *p)
{
	return p->max_lag_ns;
}

/*
 * floor(k * interval) = k q + floor(k r / den), with k = a den + b: a r + floor(b r / den).
 * b r < den^2 <= 2^64 and each term is at most the sum, so nothing overflows that the
 * result itself would not.
 */
static uint64_t slot_offset(const struct bp_pacer *p, uint64_t k)
{
	return k * p->q + k / p->den * p->r + k % p->den * p->r / p->den;
}

uint64_t bp_pacer_slot_ns(const struct bp_pacer *p, uint64_t k)
{
	return p->unpaced ? p->start_ns : p->start_ns + slot_offset(p, k);
}

uint64_t bp_pacer_sub_slot_ns(const struct bp_pacer *p, uint64_t j, uint64_t n, uint64_t m)
{
	return bp_pacer_slot_ns(p, m * n + j);
}

/* a * b as hi * 2^64 + lo from 32-bit halves: 32-bit ARM has no __int128. */
static void mul_wide(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t a0 = a & UINT32_MAX, a1 = a >> 32, b0 = b & UINT32_MAX, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
	uint64_t mid = (p00 >> 32) + (p01 & UINT32_MAX) + (p10 & UINT32_MAX);

	*lo = (mid << 32) | (p00 & UINT32_MAX);
	*hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The largest x with x^2 <= hi * 2^64 + lo, bit by bit from the top (x < 2^64). */
static uint64_t isqrt_wide(uint64_t hi, uint64_t lo)
{
	uint64_t x = 0;

	for (int bit = hi ? 63 : 31; bit >= 0; bit--) {
		uint64_t c = x | 1ULL << bit, sh, sl;

		mul_wide(c, c, &sh, &sl);
		if (sh < hi || (sh == hi && sl <= lo))
			x = c;
	}
	return x;
}

uint64_t bp_pacer_ramp_slot_ns(const struct bp_pacer *p, uint64_t ramp_ns, uint64_t k)
{
	uint64_t s, hi, lo;

	if (p->unpaced)
		return p->start_ns;
	s = slot_offset(p, k);
	if (s >= ramp_ns / 2 + ramp_ns % 2)  /* 2 s >= R without computing 2 s */
		return p->start_ns + s + ramp_ns / 2;
	mul_wide(2 * s, ramp_ns, &hi, &lo);  /* 2 s < R: no overflow, and x < R below */
	return p->start_ns + isqrt_wide(hi, lo);
}
