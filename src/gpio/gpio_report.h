/*
 * What a gpio run puts in its result (docs/board.md, "boardperf gpio"): per method METHOD the
 * metrics METHOD.periods.rate (Hz: full periods, what a scope shows), METHOD.edges.rate
 * (op/s: level changes, twice that), METHOD.write.mean and METHOD.overhead (ns), the
 * latency METHOD.write (every 1024th pair timed), with --readback METHOD.readback.checks
 * and .mismatches, with --loop-to METHOD.input.edges, .input.edges.rate and the latency
 * METHOD.input.pulse; the baseline loop's loop.write.mean; warnings readback-mismatch,
 * no-edges, sysfs-deprecated, uapi-v1.
 */
#ifndef BP_GPIO_GPIO_REPORT_H
#define BP_GPIO_GPIO_REPORT_H

#include <stdbool.h>

#include "gpio/gpio_run.h"

struct bp_result;

struct bp_gpio_report_opts {
	bool readback;
	bool loop_to;
	unsigned loop_line;
	double loop_write_ns;  /* the baseline's mean ns per write */
};

/* The figures and warnings of one method that ran. 0 or -ENOMEM. */
int bp_gpio_report_method(struct bp_result *r, const struct bp_gpio_method_run *mr,
			  const struct bp_gpio_report_opts *o);

/* loop.write.mean and the params of the run's timing. 0 or -ENOMEM. */
int bp_gpio_report_baseline(struct bp_result *r, const struct bp_gpio_loop_result *base,
			    uint64_t clock_ns);

#endif
