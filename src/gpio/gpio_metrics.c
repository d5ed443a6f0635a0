/*
 * What gpio emits (gpio_report.c, cmd_gpio.c): the loop's own write time, then per access
 * method (chardev, sysfs, mmap) <method>.<figure>. No headline yet: its summary shows the
 * first two figures it emitted.
 */
#include "gpio/gpio_metrics.h"

#define H BP_BETTER_HIGHER
#define L BP_BETTER_LOWER
#define N BP_BETTER_NONE
#define T BP_SCOPE_TOTAL

static const struct bp_metric_decl gpio_metrics[] = {
	{ "loop.write.mean", "ns", L, 0, BP_COMBINE_MEAN, T, false,
	  "the timing loop's own cost per write, without a pin" },
	{ "*.periods.rate", "Hz", H, 0, BP_COMBINE_NONE, BP_SCOPE_BOTH, false,
	  "square-wave periods per second the method toggled" },
	{ "*.edges.rate", "op/s", H, 0, BP_COMBINE_NONE, T, false,
	  "pin writes (edges) per second" },
	{ "*.write.mean", "ns", L, 0, BP_COMBINE_NONE, T, false, "mean time of one write" },
	{ "*.overhead", "ns", L, 0, BP_COMBINE_NONE, T, false,
	  "a write's time less the loop's own" },
	{ "*.readback.checks", "op", N, 0, BP_COMBINE_NONE, T, false,
	  "writes read back to check the level (--readback)" },
	{ "*.readback.mismatches", "op", L, 0, BP_COMBINE_NONE, T, false,
	  "read-backs that found the other level (--readback)" },
	{ "*.input.edges", "count", N, 0, BP_COMBINE_NONE, T, false,
	  "edges seen on the looped-back input (--loop-to)" },
	{ "*.input.edges.rate", "op/s", H, 0, BP_COMBINE_NONE, T, false,
	  "edges seen on the input per second (--loop-to)" },
};

const struct bp_kind bp_kind_gpio = {
	.name = "gpio",
	.metrics = gpio_metrics,
	.nmetrics = sizeof(gpio_metrics) / sizeof(gpio_metrics[0]),
	.repeatable = true,
};
