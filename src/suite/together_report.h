/*
 * What `together` reports from the runs it made (docs/run.md, "Tests at the same time"): per
 * test and headline figure its median alone and together over the rounds and the
 * degradation in percent with its median, min and max; the intervals of every together
 * phase on the common start's clock; warnings for runs that failed and for tests that
 * did not overlap for most of their time.
 */
#ifndef BP_SUITE_TOGETHER_REPORT_H
#define BP_SUITE_TOGETHER_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"

/* One test's run in one phase: its result is a child of the suite's (owned there). */
struct bp_together_run {
	size_t test;                  /* which test (index into the labels) */
	int round;                    /* from 1 */
	bool together;                /* the together phase, else alone */
	const struct bp_result *res;
	double start_s;               /* its clock's start after the common start */
	bool has_start;               /* it had intervals, so the start is known */
};

/* A phase's runs overlap less than this share of the shorter one: "not-overlapping". */
#define BP_TOGETHER_MIN_OVERLAP 0.9

/*
 * Adds to r the figures, intervals and warnings of runs[0..nruns) of ntests tests
 * labelled labels[i] (A, B, ...). 0 or -ENOMEM.
 */
int bp_together_report(struct bp_result *r, const struct bp_together_run *runs, size_t nruns,
		       size_t ntests, const char *const *labels);

#endif
