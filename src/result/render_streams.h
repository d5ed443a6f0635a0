/*
 * Rendering a result's per-stream figures (bp_result.streams; docs/network.md, "Per-stream
 * figures"): in JSON the top-level "streams" and each interval's "streams", in text a
 * table per stream with [SUM] rows (and one per interval with -v), in CSV one row per
 * figure. The renderers call these hooks; each does nothing for a result without streams.
 */
#ifndef BP_RESULT_RENDER_STREAMS_H
#define BP_RESULT_RENDER_STREAMS_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "result/result.h"

/* Set doc's "streams" and every doc.intervals[i]'s "streams". 0 or -1 (out of memory). */
int bp_streams_json_into(json_t *doc, const struct bp_result *r);

/* Text: the table at the end, shown when some direction has more than one stream. */
bool bp_streams_text_has(const struct bp_result *r);
int bp_streams_text(FILE *out, const struct bp_result *r);
/* Text: the per-interval table, shown as well when r->text_show_stream_intervals. */
bool bp_streams_text_has_intervals(const struct bp_result *r);
int bp_streams_text_intervals(FILE *out, const struct bp_result *r);

/* One per-stream figure as CSV carries it: "stream.<id>.<sender|receiver>.<field>". */
struct bp_stream_figure {
	bool interval;          /* scope "stream-interval", else "stream" */
	double start, end;      /* seconds: the side's span, or the interval's */
	const char *name;
	double value;
	const char *value_text; /* instead of value (the direction) */
	const char *unit;
	enum bp_better better;
};

/* Call fn for every figure, the totals first; stops at fn's first non-zero return. */
int bp_streams_figures(const struct bp_result *r,
		       int (*fn)(void *arg, const struct bp_stream_figure *f), void *arg);

#endif
