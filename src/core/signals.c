#include "core/signals.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

/*
 * Written by the handler, read by worker threads: volatile sig_atomic_t is only defined for
 * the thread that took the signal, so the other threads need an atomic. A handler may only
 * touch a lock-free one (C17 7.14.1.1), hence the check.
 */
static _Atomic int stop_signal;
static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be lock-free for the handler");

static void on_stop(int sig)
{
	atomic_store(&stop_signal, sig);
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

int bp_stop_signal(void)
{
	return atomic_load(&stop_signal);
}
