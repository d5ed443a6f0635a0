/*
 * --start-at TIME (issue 37): a test's measurement starts at a wall-clock instant, so that
 * several testers (boards under one orchestrator) start together, each against its own
 * clock. TIME is RFC 3339 ("2026-12-06T23:30:00Z", "2026-12-06T23:30:00.250+01:00") or
 * seconds since the epoch ("1796600000.25"); an instant in the past, or more than a day
 * ahead, is refused. Wall time labels results everywhere else in boardperf; here it is
 * the point: how well testers start together is how well their clocks agree, which every
 * such result says (board/start_at_result.h).
 */
#ifndef BP_CORE_START_AT_H
#define BP_CORE_START_AT_H

#include <stddef.h>
#include <stdint.h>

/* How far ahead an instant may be */
#define BP_START_AT_MAX_AHEAD_NS (86400 * 1000000000LL)

/* CLOCK_REALTIME in ns since the epoch */
int64_t bp_wall_ns(void);

/*
 * s as an instant (ns since the epoch) at most BP_START_AT_MAX_AHEAD_NS after now_ns and not
 * before it. 0, or -EINVAL with a one-line message in err naming the value and what was
 * expected.
 */
int bp_start_at_parse(const char *s, int64_t now_ns, int64_t *at_ns, char *err, size_t errlen);

/* at_ns as RFC 3339 in UTC with microseconds ("2026-12-06T23:30:00.250000Z"); returns buf */
char *bp_start_at_format(int64_t at_ns, char *buf, size_t len);

/*
 * Sleeps until the wall clock reads at_ns (at once when it already has): in slices, so that
 * Ctrl-C (core/signals.h) ends the wait within 100 ms (-EINTR), and the last one absolute
 * against CLOCK_REALTIME, so that a clock the time daemon slews meanwhile is still met.
 */
int bp_start_at_wait(int64_t at_ns);

/*
 * The same for a test that may have no instant (at_ns 0: returns 0 at once); with one,
 * *started_ns gets the wall clock as the wait ends: the test's actual start.
 */
int bp_start_at_wait_mark(int64_t at_ns, int64_t *started_ns);

#endif
