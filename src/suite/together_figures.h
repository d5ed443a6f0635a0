/*
 * The arithmetic of `together`: how much worse a figure is beside the other tests than
 * alone, per round, and the median and spread over the rounds. Pure functions, so the
 * integration test's recomputation from the children's documents has one definition to
 * agree with (docs/run.md, "Tests at the same time").
 */
#ifndef BP_SUITE_TOGETHER_FIGURES_H
#define BP_SUITE_TOGETHER_FIGURES_H

#include <stddef.h>

#include "result/result.h"

/*
 * Percent by which together is worse than alone: (alone - together) / alone * 100 for a
 * figure where higher is better, (together - alone) / alone * 100 where lower is; below
 * zero when together did better. NaN when either is not a number, alone is 0, or the
 * figure has no better direction (a count of retransmits).
 */
double bp_together_degradation(double alone, double together, enum bp_better better);

/* The median, min and max of the finite values among v[0..n) (NaN each when none). */
struct bp_spread {
	size_t n;      /* finite values counted */
	double median, min, max;
};
void bp_spread_of(const double *v, size_t n, struct bp_spread *s);

#endif
