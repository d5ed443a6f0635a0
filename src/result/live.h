/*
 * The live sink: each interval's line when the interval ends, as iperf3 prints them, rather
 * than the whole table at the end. A test finds one in its context (struct bp_test_ctx,
 * NULL for none) and calls bp_live_interval when it closes an interval; the sink prints,
 * so a test still never does. Two forms (docs/json.md, "Live output" and "JSON Lines"):
 *
 *   text         the header line once, then the interval table's columns with one line
 *                per interval, flushed at once (a terminal, or a pipe read line by line);
 *   json-stream  JSON Lines as iperf3 3.17's --json-stream: {"event": "start", "data": ...}
 *                when the command starts, {"event": "interval", "data": <interval>} per
 *                interval, and at the end {"event": "error", ...} when it failed and
 *                {"event": "end", "data": <the whole result document>}.
 *
 * One thread at a time: a test calls it from its reporter (the thread that marks
 * intervals), never from two threads at once.
 */
#ifndef BP_RESULT_LIVE_H
#define BP_RESULT_LIVE_H

#include <stddef.h>
#include <stdio.h>

#include "result/result.h"

enum bp_live_format {
	BP_LIVE_TEXT,
	BP_LIVE_JSON_STREAM,
};

struct bp_live;

/* NULL when out of memory. out stays the caller's. */
struct bp_live *bp_live_new(FILE *out, enum bp_live_format format);
void bp_live_free(struct bp_live *l);

/*
 * Bind the sink to the result the command fills; json-stream prints "start" (schema, test,
 * params, env as known before the run). Intervals of any other result (a suite's children
 * fill their own) are not this sink's and print nothing.
 */
void bp_live_start(struct bp_live *l, const struct bp_result *r);

/*
 * Interval iv of result r has just ended (one the test added to r, or one it built on its
 * own with what it knows so far): its line now, flushed. NULL l does nothing.
 * In text the first interval fixes the columns (start, end, then its metrics by name, each
 * as wide as its name or a figure, "-" when a later interval lacks it); a metric that
 * appears only later is added after them as name=value, so nothing is hidden.
 */
void bp_live_interval(struct bp_live *l, const struct bp_result *r, const struct bp_interval *iv);

/* Interval lines printed so far (0 for NULL): the end-of-test text then skips its table. */
size_t bp_live_lines(const struct bp_live *l);

/*
 * The end. json-stream: "error" when r holds one, then "end" with the whole document (the
 * object --json prints). Text: nothing (the CLI renders the rest of the result).
 * Returns 0 or the first write error (negative errno) of the sink's whole life.
 */
int bp_live_finish(struct bp_live *l, const struct bp_result *r);

#endif
