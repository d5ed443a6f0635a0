/*
 * The HTML report (`boardperf report`, docs/results.md, "HTML report (`report`)"): one
 * self-contained page from result documents (the JSON contract), with inline CSS and
 * boardperf's own SVG charts (src/svg), no script and no network reference: a runs table, then
 * per test its interval series, latency percentile curves and the figures particular to it
 * (rfc2544's zero-loss rate per frame size, cpu by threads, mem by working set), every run of
 * a test in one chart, and the compare table (src/compare) last.
 */
#ifndef BP_REPORT_REPORT_H
#define BP_REPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

struct bp_report_run {
	const char *name;   /* the legend's and the table's name: a label, "#12", a file name */
	json_t *doc;        /* a result document; a suite's children are drawn test by test */
};

/*
 * Writes the page to out. 0, or -errno with a one-line reason (a document that is not a
 * boardperf/1 result, naming its run; out of memory; a write error). A chart that cannot be
 * drawn from what a document holds is said in the page where it would be, not an error.
 */
int bp_report_write(FILE *out, const struct bp_report_run *runs, size_t n, char *err,
		    size_t errlen);

#endif
