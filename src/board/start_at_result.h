/*
 * A start at an instant (--start-at, core/start_at.h) in the result: env.start, and the
 * warnings that say how far several testers' starts can be trusted to agree:
 *
 *   env.start = { "at": "2026-12-06T23:30:00.000000Z", "at_epoch_s", "actual_epoch_s",
 *                 "late_ms" (the first byte after the instant), "clock": this host's clock
 *                 facts at the start (board/clock_sync.h) }
 *   clock-unsynced  this host's clock is not synchronised, or the kernel's bound on its error
 *                   is above BP_START_CLOCK_ERROR_MS: testers start no closer together than
 *                   their clocks agree
 *   start-late      the first byte left more than BP_START_LATE_MS after the instant (a
 *                   connection and set-up that took longer than the lead, a busy machine)
 */
#ifndef BP_BOARD_START_AT_RESULT_H
#define BP_BOARD_START_AT_RESULT_H

#include <stdint.h>

#include "board/clock_sync.h"
#include "result/result.h"

#define BP_START_CLOCK_ERROR_MS 1.0
#define BP_START_LATE_MS 10.0

/* How long before the instant a test that connects first is let go (its set-up's time) */
#define BP_START_LEAD_NS 2000000000LL

/* Records the start with the clock facts c (read now by bp_start_at_record). 0 or -ENOMEM. */
int bp_start_at_record_with(struct bp_result *r, int64_t at_ns, int64_t actual_ns,
			    const struct bp_clock_sync *c);

/* As above, this host's clock read now. */
int bp_start_at_record(struct bp_result *r, int64_t at_ns, int64_t actual_ns);

#endif
