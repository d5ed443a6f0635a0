#include "core/signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
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
	return stop_signal != 0;
}

int bp_stop_signal(void)
{
	return stop_signal;
}
