#include "core/clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

/*
 * The fake clock (clock.h says why it exists). Atomics: a test's worker threads read it and
 * their waits move it on while the test's own thread does. fake_now is written before
 * fake_on is set (release), so a reader that sees the flag (acquire) sees the start time.
 * The signal handler of core/signals.c reads them: fake_on is a lock-free bool, and
 * fake_now is read only while the fake clock runs, in unit tests.
 */
static _Atomic bool fake_on;
static _Atomic uint64_t fake_now;

static inline bool fake(void)
{
	return __builtin_expect(atomic_load_explicit(&fake_on, memory_order_acquire), 0);
}

/* Move the fake time on to t, never back: threads that wait race to move it. */
static void fake_advance_to(uint64_t t)
{
	uint64_t cur = atomic_load(&fake_now);

	while (cur < t && !atomic_compare_exchange_weak(&fake_now, &cur, t))
		;
}

uint64_t bp_now_ns(void)
{
	struct timespec ts;

	if (fake())
		return atomic_load(&fake_now);
	/* CLOCK_MONOTONIC cannot fail with a valid clock id and pointer. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

int bp_sleep_until_ns(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / BP_NS_PER_SEC),
		.tv_nsec = (long)(deadline_ns % BP_NS_PER_SEC),
	};
	int rc;

	if (fake()) {
		fake_advance_to(deadline_ns);
		return 0;
	}
	rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc == 0 ? 0 : -rc;
}

void bp_clock_fake_start(uint64_t start_ns)
{
	atomic_store(&fake_now, start_ns);
	atomic_store_explicit(&fake_on, true, memory_order_release);
}

void bp_clock_fake_stop(void)
{
	atomic_store(&fake_on, false);
}

void bp_clock_fake_advance(uint64_t ns)
{
	atomic_fetch_add(&fake_now, ns);
}

bool bp_clock_is_fake(void)
{
	return fake();
}

uint64_t bp_clock_wait_ns(uint64_t ns)
{
	return fake() && ns != UINT64_MAX ? 0 : ns;
}

int bp_clock_wait_ms(int ms)
{
	return fake() && ms > 0 ? 0 : ms;
}

void bp_clock_timed_out(uint64_t deadline_ns)
{
	if (fake())
		fake_advance_to(deadline_ns);
}
