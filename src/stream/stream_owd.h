/*
 * One-way delays (udp --iperf2 --trip-times: the server's report, or with -R this side's
 * receivers; rr --iperf2 --trip-times: the server's times in each answer) as metrics, and
 * the warning a one-way delay needs: it is read across two clocks, so it is only as good as
 * their agreement (board/clock_sync.h).
 */
#ifndef BP_STREAM_OWD_H
#define BP_STREAM_OWD_H

#include <stdbool.h>

#include "proto/results.h"
#include "result/result.h"
#include "stats/welford.h"

/*
 * A share of the one-way delay that this host's clock error bound (the kernel's maxerror)
 * may reach before the figure is flagged: above it, the clock's possible error is no
 * longer small beside what is measured.
 */
#define BP_OWD_CLOCK_ERROR_SHARE 0.1

/*
 * Adds prefix + "owd.mean", "owd.min", "owd.max", "owd.stdev" (ns) of the one-way delays in
 * w (nothing when it holds none), and the warning "clock-unsynced" when they cannot be
 * trusted: a negative delay (the clocks differ at least by that; server_reads: the server's
 * clock took the later reading, so it is behind this host's, else ahead), or, when the
 * server is another machine (same_clock false), this host's clock unsynchronised or its
 * error bound above BP_OWD_CLOCK_ERROR_SHARE of the mean. 0 or the metric's error.
 */
int bp_report_owd(struct bp_result *r, const char *prefix, const struct bp_welford *w,
		  bool same_clock, bool server_reads);

#endif
