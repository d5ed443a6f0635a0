/*
 * What gpio emits (gpio_report.c, cmd_gpio.c): the loop's own write time, then per access
 * method (chardev, sysfs, mmap) <method>.<figure>. Its headline: the first method's toggle
 * rate and the cost of its write beyond the loop's own.
 */
#include "gpio/gpio_metrics.h"

#include "result/text_methods.h"

static const struct bp_metric_decl gpio_metrics[] = {
	BP_METRIC("loop.write.mean", "ns", LOWER, MEAN, TOTAL,
	  "the timing loop's own cost per write, without a pin"),
	BP_METRIC("*.periods.rate", "Hz", HIGHER, NONE, BOTH,
	  "square-wave periods per second the method toggled", .headline = 1),
	BP_METRIC("*.edges.rate", "op/s", HIGHER, NONE, TOTAL,
	  "pin writes (edges) per second"),
	BP_METRIC("*.write.mean", "ns", LOWER, NONE, TOTAL, "mean time of one write"),
	BP_METRIC("*.overhead", "ns", LOWER, NONE, TOTAL,
	  "a write's time less the loop's own", .headline = 2),
	BP_METRIC("*.readback.checks", "op", NONE, NONE, TOTAL,
	  "writes read back to check the level (--readback)"),
	BP_METRIC("*.readback.mismatches", "op", LOWER, NONE, TOTAL,
	  "read-backs that found the other level (--readback)"),
	BP_METRIC("*.input.edges", "count", NONE, NONE, TOTAL,
	  "edges seen on the looped-back input (--loop-to)"),
	BP_METRIC("*.input.edges.rate", "op/s", HIGHER, NONE, TOTAL,
	  "edges seen on the input per second (--loop-to)"),
};

const struct bp_kind bp_kind_gpio = {
	.name = "gpio",
	BP_KIND_CATALOGUE(gpio_metrics),
	.repeatable = true,
	/* --method all: the methods side by side, a column each */
	.figures = { bp_text_methods_applies, bp_text_methods_print },
};
