/*
 * The text of `boardperf gpio --list` (bp_result.chips): per chip a line with its name,
 * label, line count, device and sysfs base, then one row per line as gpioinfo prints it
 * (offset, name, direction, active-low) with a column that says "free" or whom it is used
 * by. JSON carries the same tree as "chips" (render_json.c).
 */
#ifndef BP_RESULT_RENDER_CHIPS_H
#define BP_RESULT_RENDER_CHIPS_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

bool bp_chips_text_has(const struct bp_result *r);
int bp_chips_text(FILE *out, const struct bp_result *r);

#endif
