/*
 * A test's headline: the figures its section of the manual (docs/) leads with, which a
 * suite's summary (result/text_summary.c) shows for each test and `together` compares alone
 * and together. Read from the kind's metric catalogue (result/kind.h): the metrics it
 * declares a headline place for, in that order, and its headline latency.
 * Presentation, not measurement: it lives with the renderers.
 */
#ifndef BP_RESULT_HEADLINE_H
#define BP_RESULT_HEADLINE_H

#define BP_HEADLINE_METRICS 4

struct bp_headline {
	/*
	 * by name or catalogue pattern (the first figure that matches it,
	 * bp_result_find_matching), in headline order; NULL ends (always, the last slot is NULL)
	 */
	const char *metrics[BP_HEADLINE_METRICS + 1];
	const char *latency;  /* the latency summary's name, shown as its p50; NULL for none */
};

/*
 * The headline of test kind test, filled into buf: buf, or NULL for a test without one (no
 * installed kind of that name: a document of another version, which shows its first
 * metrics; every installed kind declares one, test_catalogue holds them to it).
 */
const struct bp_headline *bp_headline_of(const char *test, struct bp_headline *buf);

/* How many metrics a test without a headline shows: its first ones. */
#define BP_HEADLINE_FALLBACK 2

#endif
