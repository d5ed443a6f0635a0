/*
 * The monitor's samples reduced to what a result says about the whole test, and the
 * thresholds of its four warnings (docs/json.md, "The monitor"): throttled, clock-dropped, hot,
 * busy-machine. Pure functions of the samples, so unit tests check every threshold at and
 * past its value.
 */
#ifndef BP_BOARD_MONITOR_SUMMARY_H
#define BP_BOARD_MONITOR_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "board/monitor.h"
#include "board/throttle.h"

/* The firmware's "now" bits (under-voltage, capped, throttled, soft limit) and "since boot". */
#define BP_FW_NOW_MASK 0xfu
#define BP_FW_OCCURRED_MASK (0xfu << BP_FW_OCCURRED_SHIFT)

struct bp_monitor_summary {
	double span_s;
	/* the fastest core's clock per sample: at the start, its lowest, at the end (kHz) */
	int64_t clock_start_khz, clock_low_khz, clock_end_khz;
	int64_t clock_min_khz, clock_max_khz;	/* any core, any sample */
	double temp_start_c, temp_max_c;	/* hottest zone */
	int hot_zone;		/* index into m->zones of the first zone at its limit, -1 */
	double hot_c;		/* its highest temperature */
	const char *fw_source;	/* "sysfs", "vcgencmd" or NULL */
	uint32_t fw_start, fw_end, fw_now_seen;	/* now_seen: now bits of any sample, ORed */
	double below_max_percent;	/* time_in_state below each policy's top clock */
	struct bp_cpu_shares shares;	/* first sample to last */
};

void bp_monitor_summarize(const struct bp_monitor *m, struct bp_monitor_summary *s);

/* Shares between samples a and b (a <= b); all NAN when a == b. */
void bp_monitor_shares(const struct bp_monitor *m, size_t a, size_t b, struct bp_cpu_shares *s);

/* Share of time_in_state below the top clock between samples a and b; NAN unknown. */
double bp_monitor_below_max(const struct bp_monitor *m, size_t a, size_t b);

/* The fastest readable core of sample i (kHz), BP_INT_UNKNOWN when none reads. */
int64_t bp_monitor_fastest_khz(const struct bp_monitor *m, size_t i);

/*
 * Thresholds. throttled: the bits that make the test throttled, 0 for none: any "now" bit
 * seen during it, or an "occurred" bit that was clear at the start and set at the end.
 */
uint32_t bp_monitor_throttle_bits(uint32_t start, uint32_t end, uint32_t now_seen);
/* The clock fell more than BP_MONITOR_CLOCK_DROP_PERCENT below start; unknown never did. */
bool bp_monitor_clock_dropped(int64_t start_khz, int64_t low_khz);
/* At or above the limit. */
bool bp_monitor_is_hot(double temp_c, double limit_c);
/* More than limit_percent; unknown never is. */
bool bp_monitor_is_busy(double other_percent, double limit_percent);

#endif
