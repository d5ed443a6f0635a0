/*
 * The send schedule on a simulated clock: a sender that sleeps until the pacer says,
 * wakes 20-80 us late as timers on small boards do, and pays per system call and per
 * datagram. Over 10 simulated seconds the datagrams sent must match the target within
 * 0.1 %, no call may allow more than a batch, and a sender stalled for 100 ms must catch
 * up at the bounded catch-up rate and still hit the long-run rate.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "io/pacer.h"
#include "tap.h"

#define START_NS (5 * BP_NS_PER_SEC)	/* a monotonic clock is rarely near 0 */
#define RUN_NS (10 * BP_NS_PER_SEC)
#define CALL_NS 2000			/* one sendmmsg */
#define PER_DGRAM_NS 100

struct sim {
	uint64_t now;
	uint32_t rng;
	uint64_t min_batch;	/* > 1: sleep until that many are due (fewer, larger batches) */
	uint64_t sleeps;
	uint64_t sent;
	uint64_t max_call;	/* the largest answer of bp_pacer_due */
	uint64_t bad_wakeups;	/* next_ns said go, due said nothing (or next_ns <= now) */
	uint64_t stall_at, stall_ns;
	bool stalled;
	uint64_t caught_up_ns;	/* first time after the stall with nothing left due */
	uint64_t win_ns;	/* win_sent: datagrams sent in the win_ns after the stall */
	uint64_t win_end_ns;
	uint64_t win_sent;
};

/* 20-80 us: how late a timer wakes a sleeping thread on a small board. */
static uint64_t wake_latency(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 17;
	s->rng ^= s->rng << 5;
	return 20000 + s->rng % 60001;
}

static void note_sent(struct sim *s, struct bp_pacer *p, uint64_t n)
{
	s->sent += n;
	if (n > s->max_call)
		s->max_call = n;
	if (s->stalled && s->now < s->win_end_ns)
		s->win_sent += n;
	if (s->stalled && !s->caught_up_ns && bp_pacer_due_time_ns(p, 0) > s->now)
		s->caught_up_ns = s->now;
}

/* When a sender that got n (< its minimum batch) wakes up next; 0 if the pacer lies. */
static uint64_t wake_time(const struct bp_pacer *p, const struct sim *s, uint64_t n)
{
	uint64_t next = bp_pacer_next_ns(p);

	if (s->min_batch > 1 && n) {
		uint64_t batch = bp_pacer_due_time_ns(p, s->min_batch - 1);

		next = batch > next ? batch : next;
	}
	if (next <= s->now || !bp_pacer_due(p, next))
		return 0;
	return next;
}

static void run(struct bp_pacer *p, struct sim *s, uint64_t until)
{
	while (s->now < until) {
		uint64_t n, next;

		if (s->stall_ns && !s->stalled && s->now >= s->stall_at) {
			s->now += s->stall_ns;
			s->stalled = true;
			s->win_end_ns = s->now + s->win_ns;
			continue;
		}
		n = bp_pacer_due(p, s->now);
		if (n && n >= s->min_batch) {
			bp_pacer_sent(p, n, s->now);
			note_sent(s, p, n);
			s->now += CALL_NS + n * PER_DGRAM_NS;
			continue;
		}
		next = wake_time(p, s, n);
		if (!next) {
			s->bad_wakeups++;
			next = s->now + 1000;
		}
		s->now = next + wake_latency(s);
		s->sleeps++;
	}
}

/* Datagrams due by end: datagram k is due at START + k * interval. */
static double target(const struct bp_pacer *p, uint64_t end)
{
	return (double)((uint64_t)((double)(end - START_NS) / bp_pacer_interval_ns(p)) + 1);
}

static void check_run(struct bp_pacer *p, const char *what, uint64_t min_batch, double tol)
{
	struct sim s = { .now = START_NS, .rng = 2463534242u, .min_batch = min_batch };
	double want;

	run(p, &s, START_NS + RUN_NS);
	want = target(p, START_NS + RUN_NS);
	printf("# %s: sent %llu of %.0f, largest call %llu, %llu sleeps\n", what,
	       (unsigned long long)s.sent, want, (unsigned long long)s.max_call,
	       (unsigned long long)s.sleeps);
	CHECK_NEAR((double)s.sent / want, 1.0, tol);
	CHECK(s.max_call <= BP_PACER_MAX_BATCH);
	CHECK_INT(s.bad_wakeups, 0);
	CHECK_INT(bp_pacer_sent_count(p), s.sent);
}

static void test_rates(void)
{
	struct bp_pacer p;

	/* iperf3's -b counts payload bits: 100 Mbit/s of 1470-byte datagrams, 8,503.4/s. */
	bp_pacer_init(&p, 100e6, 1470 * 8, START_NS);
	CHECK_NEAR(bp_pacer_interval_ns(&p), 117600.0, 0.0);
	check_run(&p, "100 Mbit/s, 1470 B", 1, 0.001);

	bp_pacer_init(&p, 1e9, 1470 * 8, START_NS);
	CHECK_NEAR(bp_pacer_interval_ns(&p), 11760.0, 0.0);
	check_run(&p, "1 Gbit/s, 1470 B", 1, 0.001);

	/* 850 datagrams in 10 s: 0.1 % allows none to be missing. */
	bp_pacer_init(&p, 1e6, 1470 * 8, START_NS);
	check_run(&p, "1 Mbit/s, 1470 B", 1, 0.001);

	/* RFC 2544's worst case: 64-byte frames at 1 Gbit/s line rate, 1,488,095/s. A sender
	 * that never sleeps gets a few at a time; one that sleeps for batches of 32 finds
	 * up to 150 due when its timer wakes it, more than a batch, every time. */
	bp_pacer_init_line_rate(&p, 1e9, 64, START_NS);
	CHECK_NEAR(bp_pacer_interval_ns(&p), 672.0, 0.0);
	check_run(&p, "1 Gbit/s line rate, 64 B frames", 1, 0.001);
	bp_pacer_init_line_rate(&p, 1e9, 64, START_NS);
	check_run(&p, "the same, sleeping for batches of 32", 32, 0.001);

	/* A fractional frame rate goes through the rounded fraction. */
	bp_pacer_init_pps(&p, 1e9 / 672.0 * 0.37, START_NS);
	check_run(&p, "37 % of 1 Gbit/s, 64 B frames, in frames/s", 1, 0.001);
}

/* Due times are start + k * interval exactly, whatever the batches they were sent in. */
static void test_no_drift(void)
{
	struct bp_pacer p;
	uint64_t k;
	bool exact = true;

	bp_pacer_init(&p, 100e6, 1470 * 8, START_NS);
	for (k = 0; k < 1000000; k += 7)
		bp_pacer_sent(&p, 7, START_NS);
	CHECK_INT(bp_pacer_due_time_ns(&p, 0), START_NS + k * 117600);

	/* 333,333 1/3 ns: the thirds carry over instead of being rounded away. */
	bp_pacer_init(&p, 3e6, 125 * 8, START_NS);
	CHECK_INT(bp_pacer_due_time_ns(&p, 1), START_NS + 333333);
	CHECK_INT(bp_pacer_due_time_ns(&p, 2), START_NS + 666666);
	CHECK_INT(bp_pacer_due_time_ns(&p, 3), START_NS + 1000000);
	for (k = 1; k <= 3000; k++) {
		bp_pacer_sent(&p, 1, START_NS);
		exact &= bp_pacer_due_time_ns(&p, 0) == START_NS + k * 1000000 / 3;
	}
	CHECK(exact);
	/* Beyond 2^32 datagrams in one step, where k * r would overflow 64 bits. */
	bp_pacer_sent(&p, 6000000000ULL - 3000, START_NS);
	CHECK_INT(bp_pacer_due_time_ns(&p, 0), START_NS + 2000000000000000ULL);

	/* A fractional rate is rounded once: after 10^9 datagrams still within 1 ns. */
	bp_pacer_init_pps(&p, 1e9 / 672.0, START_NS);
	bp_pacer_sent(&p, 1000000000ULL, START_NS);
	CHECK_NEAR((double)(bp_pacer_due_time_ns(&p, 0) - START_NS), 672e9, 1.0);
}

/* A 100 ms stall at 1 Gbit/s: catch-up at twice the rate, in batches, then on time. */
static void test_stall(unsigned pct)
{
	struct bp_pacer p;
	struct sim s = {
		.now = START_NS, .rng = 88172645u,
		.stall_at = START_NS + 2 * BP_NS_PER_SEC, .stall_ns = 100 * BP_NS_PER_MS,
		.win_ns = 50 * BP_NS_PER_MS,
	};
	double want, interval, bound;

	bp_pacer_init(&p, 1e9, 1470 * 8, START_NS);
	CHECK_INT(bp_pacer_set_limits(&p, 0, pct), 0);
	interval = bp_pacer_interval_ns(&p);
	run(&p, &s, START_NS + RUN_NS);
	want = target(&p, START_NS + RUN_NS);
	printf("# stall, catch-up %u %%: sent %llu of %.0f, caught up after %.1f ms, "
	       "lag %.1f ms\n", pct, (unsigned long long)s.sent, want,
	       (double)(s.caught_up_ns - (s.stall_at + s.stall_ns)) / 1e6,
	       (double)bp_pacer_max_lag_ns(&p) / 1e6);
	CHECK_NEAR((double)s.sent / want, 1.0, 0.01);
	CHECK_NEAR((double)s.sent / want, 1.0, 0.001);
	CHECK(s.max_call <= BP_PACER_MAX_BATCH);
	CHECK_INT(s.bad_wakeups, 0);
	CHECK(bp_pacer_max_lag_ns(&p) >= s.stall_ns);
	CHECK(s.caught_up_ns > s.stall_at + s.stall_ns);
	if (!pct) {
		/* No rate limit: the backlog goes out as fast as the sender can (a burst). */
		CHECK(s.caught_up_ns - (s.stall_at + s.stall_ns) < 5 * BP_NS_PER_MS);
		return;
	}
	/* Made up within S * 100 / (pct - 100), plus 10 % for the sleeping sender. */
	CHECK(s.caught_up_ns - (s.stall_at + s.stall_ns) <=
	      s.stall_ns * 100 / (pct - 100) * 11 / 10);
	/* The first 50 ms after the stall: the catch-up rate, a batch and the slack's tokens. */
	bound = 50e6 / (interval * 100 / pct) + BP_PACER_MAX_BATCH +
		(double)BP_PACER_SLACK_NS / (interval * 100 / pct) + 1;
	CHECK((double)s.win_sent <= bound);
	CHECK((double)s.win_sent >= 50e6 / interval * 1.5);
}

static void test_limits_and_unpaced(void)
{
	struct bp_pacer p;

	bp_pacer_init(&p, 0, 1470 * 8, START_NS);
	CHECK_INT(bp_pacer_due(&p, 0), BP_PACER_MAX_BATCH);
	CHECK_INT(bp_pacer_next_ns(&p), 0);
	bp_pacer_sent(&p, 1000, START_NS);
	CHECK_INT(bp_pacer_due(&p, START_NS), BP_PACER_MAX_BATCH);
	CHECK_NEAR(bp_pacer_interval_ns(&p), 0.0, 0.0);
	CHECK_INT(bp_pacer_sent_count(&p), 1000);

	bp_pacer_init(&p, 100e6, 1470 * 8, START_NS);
	CHECK_INT(bp_pacer_set_limits(&p, 16, 100), -EINVAL);
	CHECK_INT(bp_pacer_set_limits(&p, 16, 150), 0);
	/* Before the start nothing is due; at the start, datagram 0. */
	CHECK_INT(bp_pacer_due(&p, START_NS - 1), 0);
	CHECK_INT(bp_pacer_next_ns(&p), START_NS);
	CHECK_INT(bp_pacer_due(&p, START_NS), 1);
	CHECK_INT(bp_pacer_due(&p, START_NS + 117600), 2);
	/* A second late, the smaller batch still caps each call. */
	CHECK_INT(bp_pacer_due(&p, START_NS + BP_NS_PER_SEC), 16);
	bp_pacer_sent(&p, 16, START_NS + BP_NS_PER_SEC);
	CHECK_INT(bp_pacer_max_lag_ns(&p), BP_NS_PER_SEC);
	/*
	 * The bucket (a batch of 16 plus 250 us of tokens, at 150 % of 117.6 us per datagram)
	 * has 3 tokens left: an eager caller gets 3, one that waits for next_ns a whole batch.
	 */
	CHECK_INT(bp_pacer_due(&p, START_NS + BP_NS_PER_SEC), 3);
	CHECK_INT(bp_pacer_next_ns(&p), START_NS + BP_NS_PER_SEC + 16 * 78400 - 250000);
	CHECK_INT(bp_pacer_due(&p, bp_pacer_next_ns(&p)), 16);
	CHECK_INT(bp_pacer_due(&p, bp_pacer_next_ns(&p) - 1), 15);
}

/*
 * The slots against the schedules they replace (copied here as they were, doubles and all):
 * http --rate's bp_http_due_ns and rr/crr --rate's due_of. The doubles round k * 1e9 /
 * rate and the square root before truncating, so they may differ from the exact integer
 * answer by 1 ns; never more (below 2^52 ns, where doubles hold every integer).
 */
static uint64_t old_http_due(uint64_t start, double rate, int total, int first_j, uint64_t m)
{
	double k = (double)m * total + first_j;

	return start + (uint64_t)(k * 1e9 / rate);
}

static uint64_t old_rr_due(uint64_t start, uint64_t phase, uint64_t period_ns,
			   uint64_t ramp_ns, uint64_t k)
{
	double period = (double)period_ns, ramp = (double)ramp_ns;
	double t = (double)k * period;

	if (ramp > 0 && t < ramp / 2)
		t = sqrt(2 * t * ramp);
	else
		t += ramp / 2;
	return start + phase + (uint64_t)t;
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* slot_ns is the sender's own schedule: bp_pacer_due_time_ns of a pacer that sent nothing. */
static void test_slots_are_the_schedule(void)
{
	static const double rates[] = { 1, 3, 400, 7777, 1e6, 1234.5, 0.3, 8503.4, 1488095 };
	bool same = true;

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct bp_pacer p;

		bp_pacer_init_pps(&p, rates[i], START_NS);
		for (uint64_t k = 0; k < 3000; k += 1 + k / 16)
			same &= bp_pacer_slot_ns(&p, k) == bp_pacer_due_time_ns(&p, k);
		same &= bp_pacer_slot_ns(&p, 5000000000ULL) == bp_pacer_due_time_ns(&p, 5000000000ULL);
	}
	CHECK(same);
}

static void test_http_sub_slots(void)
{
	static const double rates[] = { 1, 3, 400, 1000, 7777, 1e6, 1234.5, 0.5, 33.3 };
	static const int totals[] = { 1, 2, 3, 7, 64, 1000 };
	uint64_t worst = 0, off = 0, n = 0;

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct bp_pacer p;

		bp_pacer_init_pps(&p, rates[i], START_NS);
		for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
			for (int j = 0; j < totals[t]; j += 1 + totals[t] / 5) {
				uint64_t old = START_NS;

				/* Up to 2^52 ns (52 days) from the start, where doubles are exact. */
				for (uint64_t m = 0; m < 100000 && old < START_NS + (1ULL << 52);
				     m += 1 + m / 8) {
					uint64_t d;

					old = old_http_due(START_NS, rates[i], totals[t], j, m);
					d = diff(bp_pacer_sub_slot_ns(&p, (uint64_t)j, (uint64_t)totals[t],
								      m), old);

					worst = d > worst ? d : worst;
					off += d != 0;
					n++;
				}
			}
		}
	}
	CHECK(worst <= 1);
	printf("# http: %llu of %llu due times 1 ns off the double formula, none more\n",
		 (unsigned long long)off, (unsigned long long)n);
	/* Integer rates are exact: request 3 of 3/s is due at 1 s, not 999,999,999 ns. */
	{
		struct bp_pacer p;

		bp_pacer_init_pps(&p, 3, 0);
		CHECK_INT(bp_pacer_sub_slot_ns(&p, 1, 2, 1), BP_NS_PER_SEC);
		CHECK_INT(bp_pacer_sub_slot_ns(&p, 0, 2, 2), 1333333333);
	}
}

/* The largest x with x^2 <= v, by brute force below 2^32. */
static bool is_isqrt(uint64_t x, uint64_t v)
{
	return x * x <= v && (x + 1) * (x + 1) > v;
}

static void test_rr_ramp_slots(void)
{
	static const uint64_t periods[] = { 1, 7, 1000, 33333, 1000003, BP_NS_PER_SEC,
					    3 * BP_NS_PER_SEC };
	static const uint64_t ramps[] = { 0, 1, 2, 999, 1000000, BP_NS_PER_SEC + 1,
					  10 * BP_NS_PER_SEC, 3600 * BP_NS_PER_SEC };
	uint64_t worst = 0, off = 0, n = 0;
	bool monotone = true;

	for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++) {
		for (size_t r = 0; r < sizeof(ramps) / sizeof(ramps[0]); r++) {
			uint64_t phase = periods[i] / 3, kr = ramps[r] / periods[i] / 2, prev = 0;
			struct bp_pacer p;

			bp_pacer_init_period(&p, periods[i], START_NS + phase);
			/* From 0, around the end of the ramp (2 k P = R), and well after. */
			for (uint64_t k = 0; k < 3 * kr + 2000; k += k < 1000 ? 1 : 1 + diff(k, kr) / 64) {
				uint64_t got = bp_pacer_ramp_slot_ns(&p, ramps[r], k);
				uint64_t d = diff(got, old_rr_due(START_NS, phase, periods[i],
								  ramps[r], k));

				worst = d > worst ? d : worst;
				off += d != 0;
				n++;
				monotone &= got >= prev;
				prev = got;
			}
		}
	}
	CHECK(worst <= 1);
	CHECK(monotone);
	printf("# rr: %llu of %llu due times 1 ns off the double formula, none more\n",
		 (unsigned long long)off, (unsigned long long)n);
	/* No ramp: slot k exactly. Within the ramp: the exact integer square root. */
	{
		struct bp_pacer p;
		bool exact = true;

		bp_pacer_init_period(&p, 1000, 0);
		CHECK_INT(bp_pacer_ramp_slot_ns(&p, 0, 12345), 12345000);
		for (uint64_t k = 0; k < 5000; k++) {
			uint64_t x = bp_pacer_ramp_slot_ns(&p, 10000000, k);

			exact &= k * 1000 * 2 >= 10000000 ? x == k * 1000 + 5000000 :
				 is_isqrt(x, 2 * k * 1000 * 10000000);
		}
		CHECK(exact);
		/* The hour-long ramp's largest product, 2 s R just below R^2 = 1.3e25 > 2^64. */
		bp_pacer_init_period(&p, 1, 0);
		CHECK_INT(bp_pacer_ramp_slot_ns(&p, 3600 * BP_NS_PER_SEC, 1800 * BP_NS_PER_SEC - 1),
			  3600 * BP_NS_PER_SEC - 2);
		CHECK_INT(bp_pacer_ramp_slot_ns(&p, 3600 * BP_NS_PER_SEC, 1800 * BP_NS_PER_SEC),
			  3600 * BP_NS_PER_SEC);
		/* Unpaced: everything due at the start. */
		bp_pacer_init_period(&p, 0, 7);
		CHECK_INT(bp_pacer_ramp_slot_ns(&p, 100, 5), 7);
		CHECK_INT(bp_pacer_slot_ns(&p, 5), 7);
	}
}

int main(void)
{
	test_rates();
	test_no_drift();
	test_stall(BP_PACER_CATCHUP_PCT);
	test_stall(150);
	test_stall(0);
	test_limits_and_unpaced();
	test_slots_are_the_schedule();
	test_http_sub_slots();
	test_rr_ramp_slots();
	return tap_done();
}
