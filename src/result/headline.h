/*
 * A test's headline: the figures its section of the manual (docs/) leads with, which a
 * suite's summary (result/text_summary.c) shows for each test and `together` compares alone
 * and together.
 * Presentation, not measurement: it lives with the renderers.
 */
#ifndef BP_RESULT_HEADLINE_H
#define BP_RESULT_HEADLINE_H

#define BP_HEADLINE_METRICS 4

struct bp_headline {
	const char *test;
	const char *metrics[BP_HEADLINE_METRICS];  /* by name, in this order; NULL ends */
	const char *latency;  /* the latency summary's name, shown as its p50; NULL for none */
};

/* The headline of test kind test, or NULL for one without (it shows its first metrics). */
const struct bp_headline *bp_headline_of(const char *test);

/* How many metrics a test without a headline entry shows: its first ones. */
#define BP_HEADLINE_FALLBACK 2

#endif
