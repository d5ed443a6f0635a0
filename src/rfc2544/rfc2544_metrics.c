/*
 * What rfc2544 emits (cmd_rfc2544.c): per frame size frame<size>.<figure>, and one interval
 * per trial. Its headline: the first frame size's zero-loss rate, in frames and in bits.
 */
#include "rfc2544/rfc2544_metrics.h"

static const struct bp_metric_decl rfc2544_metrics[] = {
	BP_METRIC("*.zero_loss.fps", "pkt/s", HIGHER, SUM, TOTAL,
	  "frame<size>: highest rate without loss (throughput)", .headline = 1),
	BP_METRIC("*.zero_loss.bitrate", "bit/s", HIGHER, SUM, TOTAL,
	  "that rate in bits per second on the wire", .headline = 2),
	BP_METRIC("*.zero_loss.percent_of_max", "percent", HIGHER, MEAN, TOTAL,
	  "that rate in percent of the line rate"),
	BP_METRIC("*.trials", "count", NONE, NONE, TOTAL, "trials the search ran"),
	BP_METRIC("*.tester_egress.fps", "pkt/s", NONE, SUM, TOTAL,
	  "what the tester's own egress carried when that was the limit"),
	BP_METRIC("*.*.percent", "percent", LOWER, MEAN, TOTAL,
	  "frame<size>.loss_at_<N>.percent: frames lost at N % of the line rate"),
	BP_METRIC("pass", "count", HIGHER, MIN, TOTAL,
	  "1 when every frame size reached --min-percent of the medium's rate, else 0"),
	BP_METRIC("frame", "B", NONE, NONE, INTERVAL, "the trial's frame size"),
	BP_METRIC("target.fps", "pkt/s", NONE, SUM, INTERVAL, "the rate the trial aimed at"),
	BP_METRIC("offered.fps", "pkt/s", NONE, SUM, INTERVAL, "frames per second sent"),
	BP_METRIC("carried.fps", "pkt/s", NONE, SUM, INTERVAL,
	  "frames per second received"),
	BP_METRIC("loss.percent", "percent", LOWER, MEAN, INTERVAL,
	  "frames lost in percent of those sent"),
	BP_METRIC("passed", "count", NONE, MIN, INTERVAL, "1 when the trial lost nothing"),
	BP_METRIC("runqueue_wait.percent", "percent", LOWER, MAX, INTERVAL,
	  "the sender's time waiting for a CPU"),
	BP_METRIC("starved.percent", "percent", LOWER, MAX, INTERVAL,
	  "the sender's time it could not run"),
};

/* "frame64.fps": the frame size */
static const struct bp_label_part rfc2544_label_parts[] = {
	{ "frame", "frame_size", false },
};

const struct bp_kind bp_kind_rfc2544 = {
	.name = "rfc2544",
	BP_KIND_CATALOGUE(rfc2544_metrics),
	.repeatable = true,
	BP_KIND_LABEL_PARTS(rfc2544_label_parts),
	.charts = BP_CHARTS_FRAME_SIZES,
};
