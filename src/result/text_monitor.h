/*
 * The monitor's one line in the text output (docs/json.md, "The monitor"): the clock range and
 * where it started, the temperature range, the firmware's throttle bits when a Pi has them,
 * other processes' and the hypervisor's shares of the CPUs.
 */
#ifndef BP_RESULT_TEXT_MONITOR_H
#define BP_RESULT_TEXT_MONITOR_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

bool bp_text_monitor_has(const struct bp_result *r);
int bp_text_monitor_print(FILE *out, const struct bp_result *r);

#endif
