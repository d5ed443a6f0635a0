/*
 * One test's group of the comparison: the metrics each column's result has (its "metrics"
 * and, from each latency summary, p50 and p99 as latency.<what>.p50 and .p99, lower being
 * better), the rows every column has with their ratios and marks, the metrics only some
 * have, the geometric mean per column, warnings, errors and differing parameters.
 */
#ifndef BP_COMPARE_COMPARE_METRICS_H
#define BP_COMPARE_COMPARE_METRICS_H

#include <stddef.h>

#include <jansson.h>

#include "compare/compare_model.h"

/* Fills the zeroed g from the n >= 2 results docs of runs runs[]. 0 or -ENOMEM. */
int bp_cmp_group_fill(struct bp_cmp_group *g, const char *test, const json_t *const *docs,
		      const size_t *runs, size_t n);

#endif
