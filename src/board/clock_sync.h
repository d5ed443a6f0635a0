/*
 * The system clock's synchronisation, as the kernel and the time daemons tell it: what a
 * figure read across two machines' clocks (a one-way delay, a start at an agreed instant)
 * rests on. Every result carries it under env.inventory.clock (docs/board.md, "The clock").
 *
 * The kernel's account (adjtimex(2), asked without changing anything): its state, the
 * STA_UNSYNC flag a time daemon clears while it disciplines the clock, and maxerror, the
 * bound on the clock's error that the kernel grows by 500 ppm of elapsed time between the
 * daemon's updates (16 s at most, where it sets STA_UNSYNC). A daemon that steps the clock
 * without the kernel's discipline (systemd-timesyncd on some kernels, chrony without
 * rtcsync) leaves the flag set: hence the daemons found running are named beside it.
 */
#ifndef BP_BOARD_CLOCK_SYNC_H
#define BP_BOARD_CLOCK_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/timex.h>

#include <jansson.h>

#define BP_CLOCK_MAX_DAEMONS 4

struct bp_clock_sync {
	bool kernel_known;	/* adjtimex answered: only the real machine's root ("/") */
	int state;		/* adjtimex's return: TIME_OK .. TIME_ERROR */
	int status;		/* STA_* bits */
	int64_t maxerror_us;	/* the kernel's bound on the clock's error */
	int64_t esterror_us;	/* the daemon's estimate of it */
	double offset_us;	/* the last offset the daemon measured (STA_NANO aware) */
	int n_daemons;
	char daemons[BP_CLOCK_MAX_DAEMONS][24];	/* "chronyd", "systemd-timesyncd", ... */
	int timesyncd_synchronized;	/* -1: no timesyncd; else its "synchronized" flag file */
};

/* The facts from one adjtimex answer (tx as returned, state its return value). */
void bp_clock_sync_from_timex(const struct timex *tx, int state, struct bp_clock_sync *c);

/*
 * Reads the facts below root: the time daemons from root's /proc/PID/comm and timesyncd's
 * flag file; adjtimex only when root is "/" (a fixture tree has no kernel). Never fails:
 * what cannot be read stays unknown.
 */
void bp_clock_sync_read(const char *root, struct bp_clock_sync *c);

/*
 * The kernel says the clock is synchronised: STA_UNSYNC clear and its state not TIME_ERROR.
 * -1 when the kernel was not asked.
 */
int bp_clock_sync_synchronized(const struct bp_clock_sync *c);

/*
 * The facts in a few words for a log line, e.g. "synchronised, maxerror 1.500 ms; chronyd",
 * "not synchronised (STA_UNSYNC), no time daemon", "kernel not asked; chronyd". Returns buf.
 */
const char *bp_clock_sync_describe(const struct bp_clock_sync *c, char *buf, size_t len);

/*
 * {"synchronized", "state", "maxerror_us", "esterror_us", "offset_us", "daemons",
 *  "timesyncd_synchronized"}: null where unknown (new reference).
 */
json_t *bp_clock_sync_to_json(const struct bp_clock_sync *c);

#endif
