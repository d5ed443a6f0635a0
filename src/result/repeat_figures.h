/*
 * The figures of a repeated test (`--repeat`, `--until-stable`; the loop is cli/repeat.c):
 * the parent result holds each run as a child, and these functions read the runs' headline
 * figures (result/headline.h, as a suite's summary picks them) and add their median and
 * spread to the parent. No measurement: the runs measured, this only reads them.
 */
#ifndef BP_RESULT_REPEAT_FIGURES_H
#define BP_RESULT_REPEAT_FIGURES_H

#include <stddef.h>

#include "result/headline.h"
#include "result/result.h"
#include "stats/run_stats.h"

/* A headline metric and the headline latency's p50, so at most one more than the metrics. */
#define BP_REPEAT_FIGURES (BP_HEADLINE_METRICS + 1)

/* One headline figure: a metric by name, or a latency summary's p50 ("transaction.p50"). */
struct bp_repeat_figure {
	char name[96];         /* the parent's metric name: the metric's, or "WHAT.p50" */
	const char *latency;   /* the latency summary's name for a p50, NULL for a metric */
	char unit[32];
	enum bp_better better;
};

/*
 * The headline figures of the runs in parent->children, as the first run that measured
 * without an error has them (a test without a headline entry: its first metrics). Returns
 * how many (at most max), 0 when no run measured.
 */
size_t bp_repeat_figures_of(const struct bp_result *parent, struct bp_repeat_figure *f,
			    size_t max);

/* The figure's value in one run, NaN when that run lacks it. */
double bp_repeat_value(const struct bp_result *run, const struct bp_repeat_figure *f);

/*
 * The statistics of figure f over the runs that measured without an error (a failed run's
 * figures are of a cut-short test, not a sample of the same one).
 */
void bp_repeat_stats(const struct bp_result *parent, const struct bp_repeat_figure *f,
		     struct bp_run_stats *s);

/* The runs among parent's children that measured without an error. */
size_t bp_repeat_runs_ok(const struct bp_result *parent);

/*
 * Add to parent, for each headline figure F: F (the median, in F's unit and direction),
 * F.min, F.max and F.cov (percent, lower is better; left out where undefined, fewer than two
 * runs), and runs (the count of runs that measured). 0 or -ENOMEM.
 */
int bp_repeat_summarize(struct bp_result *parent);

#endif
