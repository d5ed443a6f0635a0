#include "core/signals.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "core/clock.h"

/*
 * Written by the handler, read by worker threads: volatile sig_atomic_t is only defined for
 * the thread that took the signal, so the other threads need an atomic. A handler may only
 * touch a lock-free one (C17 7.14.1.1), hence the check.
 */
static _Atomic int stop_signal;
static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be lock-free for the handler");

/*
 * Requests, counted for bp_stop_requests. A signal within REPEAT_MS of the last counted one
 * is the same request: `timeout` sends what it forwards to the child and to its process
 * group, and a terminal to every process of the job, so one Ctrl-C can arrive twice within
 * microseconds; a person's second press comes a few hundred ms later. The time is in ms of
 * CLOCK_MONOTONIC in 32 bits (a 64-bit atomic is not lock-free on armel), compared by
 * unsigned difference, which wraps cleanly.
 */
#define REPEAT_MS 250u
static _Atomic unsigned stop_requests, counted_ms;

static void on_stop(int sig)
{
	/*
	 * bp_now_ns, so that a test on the fake clock (core/clock.h) can place the repeat window
	 * exactly: it is clock_gettime, async-signal-safe but may set errno, or a lock-free load.
	 */
	int saved = errno;
	unsigned now_ms = (unsigned)(bp_now_ns() / BP_NS_PER_MS);

	if (!atomic_load(&stop_requests) || now_ms - atomic_load(&counted_ms) >= REPEAT_MS) {
		atomic_store(&counted_ms, now_ms);
		atomic_fetch_add(&stop_requests, 1);
	}
	atomic_store(&stop_signal, sig);
	errno = saved;
}

int bp_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking call returns EINTR so the loop sees the request. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	/* A peer that vanishes must show up as EPIPE on write, not kill the process. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

bool bp_stop_requested(void)
{
	return atomic_load(&stop_signal) != 0;
}

unsigned bp_stop_requests(void)
{
	return atomic_load(&stop_requests);
}

int bp_stop_signal(void)
{
	return atomic_load(&stop_signal);
}
