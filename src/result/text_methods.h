/*
 * A `gpio --method all` result side by side: one column per method (the metric name's first
 * part: loop, chardev, sysfs, mmap), one row per figure (the rest: periods.rate, edges.rate,
 * write.mean, overhead, readback.*, input.*), in place of the list of metrics, so that the
 * paths compare at a glance. Same figures, same units.
 */
#ifndef BP_RESULT_TEXT_METHODS_H
#define BP_RESULT_TEXT_METHODS_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* r is a gpio result with figures of more than one method. */
bool bp_text_methods_applies(const struct bp_result *r);

/* 0, -ENOMEM or -EIO. */
int bp_text_methods_print(FILE *out, const struct bp_result *r);

#endif
