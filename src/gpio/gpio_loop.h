/*
 * The toggle loop every method runs: set 1, set 0, for the given time, as the wiringPi loop
 * of board reviews does. The clock is read only around every 1024th pair (BP_GPIO_SAMPLE_EVERY),
 * which times that pair for the distribution of ns per write and checks the deadline, the
 * interval mark and bp_stop_requested(); the 1023 pairs between run with no clock at all,
 * so timing does not slow the loop it times.
 *
 * The loop's own cost (the call through the method table, the counter, the branch) is
 * measured first by the same loop with the write replaced by a volatile store
 * (bp_gpio_loop_baseline): a method's overhead is its mean ns per write minus that.
 */
#ifndef BP_GPIO_GPIO_LOOP_H
#define BP_GPIO_GPIO_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "gpio/gpio_method.h"

#define BP_GPIO_SAMPLE_EVERY 1024u

struct bp_histo;

struct bp_gpio_loop_cfg {
	uint64_t time_ns;
	unsigned readback;      /* read the line back after every Nth write; 0: never */
	uint64_t clock_ns;      /* one clock read's cost, taken off each timed pair */
	uint64_t interval_ns;   /* 0: no interval reports */
	/* Called at each interval mark with the pairs toggled since the last (optional). */
	void (*on_interval)(void *arg, uint64_t start_ns, uint64_t end_ns, uint64_t pairs);
	void *arg;
};

struct bp_gpio_loop_result {
	uint64_t pairs;          /* set 1 + set 0 */
	uint64_t writes;         /* 2 x pairs */
	uint64_t start_ns, elapsed_ns;
	struct bp_histo *histo;  /* ns per write of each timed pair (caller's, may be NULL) */
	uint64_t checks, mismatches;
	int error;               /* the -errno of a write or read that failed, else 0 */
	bool stopped;            /* SIGINT/SIGTERM ended it early */
};

/*
 * Run the loop on an open line. res->histo is the caller's (reset by the caller). Returns 0,
 * or the -errno of a failed write/read (also in res->error), the loop then ended at once.
 */
int bp_gpio_loop_run(const struct bp_gpio_method *m, struct bp_gpio_line *l,
		     const struct bp_gpio_loop_cfg *cfg, struct bp_gpio_loop_result *res);

/* The same loop over a volatile store: a method whose set() costs nothing of its own. */
extern const struct bp_gpio_method bp_gpio_loop_baseline;
/* Its line (the store's target); open() of the baseline returns it. */
struct bp_gpio_line *bp_gpio_loop_baseline_line(void);

/* The median cost of one bp_now_ns() in ns, from back-to-back reads. */
uint64_t bp_gpio_clock_cost_ns(void);

/* Mean ns per write of a run: elapsed / writes (NAN for none). */
double bp_gpio_loop_write_ns(const struct bp_gpio_loop_result *res);
/* Full periods (high then low) per second: what a scope shows. */
double bp_gpio_loop_period_rate(const struct bp_gpio_loop_result *res);

#endif
