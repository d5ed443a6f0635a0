/*
 * One method's turn: take the line, start the edge reader of --loop-to, run the toggle
 * loop, stop the reader and give the line back (close() on every path, also after a
 * failed write or a signal).
 */
#ifndef BP_GPIO_GPIO_RUN_H
#define BP_GPIO_GPIO_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "gpio/gpio_loop.h"
#include "gpio/gpio_method.h"
#include "gpio/gpio_pulses.h"

struct bp_gpio_run_cfg {
	const struct bp_gpio_target *target;
	struct bp_gpio_loop_cfg loop;
	bool loop_to;
	unsigned loop_line;  /* --loop-to M */
};

struct bp_gpio_method_run {
	const struct bp_gpio_method *method;
	bool opened;         /* the method took the line (else reason and code say why not) */
	char reason[384];
	const char *code;    /* gpio_errors.h */
	char path[128];      /* describe() */
	struct bp_gpio_loop_result loop;
	bool edges;          /* --loop-to ran */
	struct bp_gpio_pulses pulses;
};

/*
 * Allocate the run's histograms. 0 or -ENOMEM.
 */
int bp_gpio_method_run_init(struct bp_gpio_method_run *mr, const struct bp_gpio_method *m);
void bp_gpio_method_run_free(struct bp_gpio_method_run *mr);

/*
 * Run m on cfg's line. 0 when it ran (mr->loop.error may still say a write failed);
 * -errno with mr->reason and mr->code when it could not take the line or the input.
 */
int bp_gpio_method_run(const struct bp_gpio_run_cfg *cfg, struct bp_gpio_method_run *mr);

#endif
