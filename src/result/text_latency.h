/*
 * The latency table of the text (count, min, p50, p90, p99, p99.9, max per series): whole
 * when it fits the width, else without p90 and p99.9, else with -v only (docs/results.md,
 * "Text output"). The JSON keeps every percentile.
 */
#ifndef BP_RESULT_TEXT_LATENCY_H
#define BP_RESULT_TEXT_LATENCY_H

#include <stdio.h>

#include "result/result.h"

int bp_text_latency_print(FILE *out, const struct bp_result *r);

#endif
