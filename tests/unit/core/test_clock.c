/*
 * The fake clock of core/clock.h, which the tests of timing logic rely on: it stands still
 * until moved, sleeps and timed-out waits move it on to their deadlines and never back,
 * kernel waits with a limit become polls, one without stays one, and threads may read and
 * move it at once (TSan checks the atomics). Then the real clock is back.
 */
#include <pthread.h>
#include <stdint.h>

#include "core/clock.h"
#include "tap.h"

#define T0 (1000 * BP_NS_PER_SEC)
#define THREADS 4
#define STEPS 10000

static void test_real(void)
{
	uint64_t a = bp_now_ns(), b;

	CHECK(!bp_clock_is_fake());
	CHECK_INT(bp_sleep_until_ns(a + BP_NS_PER_MS), 0);
	b = bp_now_ns();
	CHECK(b >= a + BP_NS_PER_MS);
	/* Waits are the callers' own; a timed-out one changes nothing. */
	CHECK_INT(bp_clock_wait_ns(12345), 12345);
	CHECK_INT(bp_clock_wait_ns(UINT64_MAX) == UINT64_MAX, 1);
	CHECK_INT(bp_clock_wait_ms(7), 7);
	CHECK_INT(bp_clock_wait_ms(-1), -1);
	bp_clock_timed_out(UINT64_MAX / 2);
	CHECK(bp_now_ns() < UINT64_MAX / 2);
}

static void test_fake(void)
{
	bp_clock_fake_start(T0);
	CHECK(bp_clock_is_fake());
	CHECK_INT(bp_now_ns(), T0);
	CHECK_INT(bp_now_ns(), T0);  /* stands still */
	bp_clock_fake_advance(5);
	CHECK_INT(bp_now_ns(), T0 + 5);
	CHECK_INT(bp_sleep_until_ns(T0 + BP_NS_PER_SEC), 0);
	CHECK_INT(bp_now_ns(), T0 + BP_NS_PER_SEC);
	/* never back: a sleep or a wait whose deadline has passed returns at once */
	CHECK_INT(bp_sleep_until_ns(T0), 0);
	bp_clock_timed_out(T0 + 1);
	CHECK_INT(bp_now_ns(), T0 + BP_NS_PER_SEC);
	bp_clock_timed_out(T0 + 2 * BP_NS_PER_SEC);
	CHECK_INT(bp_now_ns(), T0 + 2 * BP_NS_PER_SEC);
	/* a wait with a limit only asks the kernel what is ready; one without still blocks */
	CHECK_INT(bp_clock_wait_ns(12345), 0);
	CHECK_INT(bp_clock_wait_ns(UINT64_MAX) == UINT64_MAX, 1);
	CHECK_INT(bp_clock_wait_ms(7), 0);
	CHECK_INT(bp_clock_wait_ms(0), 0);
	CHECK_INT(bp_clock_wait_ms(-1), -1);
	/* a new start sets the time, even back: each test chooses its own */
	bp_clock_fake_start(T0);
	CHECK_INT(bp_now_ns(), T0);
}

struct racer {
	int index;
	int went_back;  /* readings smaller than the one before */
};

/* Half the threads sleep forward in steps, half advance by 1 ns; all of them read. */
static void *race(void *arg)
{
	struct racer *r = arg;
	uint64_t last = bp_now_ns();

	for (int i = 1; i <= STEPS; i++) {
		uint64_t now;

		if (r->index % 2)
			bp_sleep_until_ns(T0 + (uint64_t)i * 1000);
		else
			bp_clock_fake_advance(1);
		now = bp_now_ns();
		if (now < last)
			r->went_back++;
		last = now;
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[THREADS];
	struct racer r[THREADS];
	uint64_t end;

	bp_clock_fake_start(T0);
	for (int i = 0; i < THREADS; i++) {
		r[i] = (struct racer){ .index = i };
		CHECK_INT(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(r[i].went_back, 0);
	}
	/*
	 * The sleepers reached T0 + STEPS us; the 1 ns advances add on top of wherever the
	 * time was, so the end is there plus at most all of them, and at least the last one.
	 */
	end = bp_now_ns();
	CHECK(end >= T0 + STEPS * 1000ULL && end <= T0 + STEPS * 1000ULL + THREADS / 2 * STEPS);
	bp_clock_fake_stop();
}

int main(void)
{
	test_real();
	test_fake();
	test_threads();
	/* and the real clock again */
	test_real();
	return tap_done();
}
