/*
 * --loop-to M: line M of the same chip requested as an input with edge events on both
 * edges (GPIO_V2_LINE_FLAG_EDGE_RISING | _FALLING, timestamps from CLOCK_MONOTONIC, the
 * uAPI's default), read by a thread of its own while the toggle loop runs, so that the
 * loop never stops to read them. The kernel queues at most 1024 events per request; the
 * count survives an overflow (gpio_pulses.h), the widths of the lost ones do not.
 */
#ifndef BP_GPIO_GPIO_EDGES_H
#define BP_GPIO_GPIO_EDGES_H

#include <stddef.h>

#include "gpio/gpio_method.h"
#include "gpio/gpio_pulses.h"

struct bp_gpio_edges;

/*
 * Request line `line` of t's chip for edges and start its reader. t->force decides about
 * a line in use as for the output. NULL with err and *code (gpio_errors.h) on failure.
 */
struct bp_gpio_edges *bp_gpio_edges_start(const struct bp_gpio_target *t, unsigned line,
					  struct bp_gpio_pulses *out, char *err,
					  size_t errlen, const char **code);

/* Let the last events arrive, stop the reader and release the line; out is complete. */
void bp_gpio_edges_stop(struct bp_gpio_edges *e);

#endif
