/*
 * What rfc2544 emits (cmd_rfc2544.c): per frame size frame<size>.<figure>, and one interval
 * per trial. No headline yet: its summary shows the first two figures it emitted.
 */
#include "rfc2544/rfc2544_metrics.h"

#define H BP_BETTER_HIGHER
#define L BP_BETTER_LOWER
#define N BP_BETTER_NONE
#define T BP_SCOPE_TOTAL
#define IV BP_SCOPE_INTERVAL

static const struct bp_metric_decl rfc2544_metrics[] = {
	{ "*.zero_loss.fps", "pkt/s", H, 0, BP_COMBINE_SUM, T, false,
	  "frame<size>: highest rate without loss (throughput)" },
	{ "*.zero_loss.bitrate", "bit/s", H, 0, BP_COMBINE_SUM, T, false,
	  "that rate in bits per second on the wire" },
	{ "*.zero_loss.percent_of_max", "percent", H, 0, BP_COMBINE_MEAN, T, false,
	  "that rate in percent of the line rate" },
	{ "*.trials", "count", N, 0, BP_COMBINE_NONE, T, false, "trials the search ran" },
	{ "*.tester_egress.fps", "pkt/s", N, 0, BP_COMBINE_SUM, T, false,
	  "what the tester's own egress carried when that was the limit" },
	{ "*.*.percent", "percent", L, 0, BP_COMBINE_MEAN, T, false,
	  "frame<size>.loss_at_<N>.percent: frames lost at N % of the line rate" },
	{ "frame", "B", N, 0, BP_COMBINE_NONE, IV, false, "the trial's frame size" },
	{ "target.fps", "pkt/s", N, 0, BP_COMBINE_SUM, IV, false, "the rate the trial aimed at" },
	{ "offered.fps", "pkt/s", N, 0, BP_COMBINE_SUM, IV, false, "frames per second sent" },
	{ "carried.fps", "pkt/s", N, 0, BP_COMBINE_SUM, IV, false,
	  "frames per second received" },
	{ "loss.percent", "percent", L, 0, BP_COMBINE_MEAN, IV, false,
	  "frames lost in percent of those sent" },
	{ "passed", "count", N, 0, BP_COMBINE_MIN, IV, false, "1 when the trial lost nothing" },
	{ "runqueue_wait.percent", "percent", L, 0, BP_COMBINE_MAX, IV, false,
	  "the sender's time waiting for a CPU" },
	{ "starved.percent", "percent", L, 0, BP_COMBINE_MAX, IV, false,
	  "the sender's time it could not run" },
};

const struct bp_kind bp_kind_rfc2544 = {
	.name = "rfc2544",
	.metrics = rfc2544_metrics,
	.nmetrics = sizeof(rfc2544_metrics) / sizeof(rfc2544_metrics[0]),
	.repeatable = true,
};
