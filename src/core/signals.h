/*
 * SIGINT/SIGTERM ask the running test to stop; it then ends its measurement early and the
 * CLI still renders what was measured ("nothing loses a result already measured").
 */
#ifndef BP_CORE_SIGNALS_H
#define BP_CORE_SIGNALS_H

#include <stdbool.h>

/* Install the handlers (once, from main, before any worker thread starts). */
int bp_signals_install(void);

/* True once SIGINT or SIGTERM arrived; tests poll it in their loops. */
bool bp_stop_requested(void);

/*
 * How many times a stop was asked for; signals within 250 ms of the last counted one are
 * one request (a wrapper or the terminal may deliver one Ctrl-C twice). What runs after a
 * test stopped (the results exchange) ends early only on a request beyond those it began
 * with: a second Ctrl-C.
 */
unsigned bp_stop_requests(void);

/* The signal that asked to stop, 0 if none. */
int bp_stop_signal(void);

#endif
