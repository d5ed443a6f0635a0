/*
 * The page: a heading, the runs table, a section per test with its charts, the compare
 * table. Everything it needs is inline (the style below, the SVG of each chart): the page
 * opens from a file, a mail attachment or a board without a network, and shows its figures
 * without script. Its only URL is the SVG namespace inside each chart.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "core/buildinfo.h"
#include "report/report_charts.h"
#include "report/report_data.h"
#include "svg/svg_chart.h"

static const char style[] =
	"body{font-family:sans-serif;margin:2em auto;max-width:1000px;padding:0 1em;"
	"color:#222;background:#fff}\n"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:.9em}\n"
	"th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\n"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"td.better{background:#e3f4e3}td.worse{background:#fbe3e3}td.differs{background:#fff3cd}\n"
	"tr.geomean td{font-weight:bold}tr.param td{color:#555}\n"
	"figure{margin:1.5em 0}svg.chart{max-width:100%;height:auto;border:1px solid #eee}\n"
	"p.note{color:#8a6d3b}\n";

static void put(FILE *out, const char *s)
{
	bp_svg_escape(out, s ? s : "");
}

/* A cell: the string, or "unknown" in grey when the document does not say. */
static void cell(FILE *out, const char *s)
{
	if (s && *s) {
		fputs("<td>", out);
		put(out, s);
		fputs("</td>", out);
	} else {
		fputs("<td class=\"unknown\">unknown</td>", out);
	}
}

/* "run: cpu, mem, disk" for a suite, the test otherwise. */
static void test_cell(FILE *out, const json_t *doc)
{
	const json_t *kids = json_object_get(doc, "results"), *k;
	size_t i;

	fputs("<td>", out);
	put(out, bp_report_str(doc, "test"));
	json_array_foreach(kids, i, k) {
		fputs(i ? ", " : ": ", out);
		put(out, bp_report_str(k, "test"));
	}
	fputs("</td>", out);
}

static void runs_table(FILE *out, const struct bp_report_run *runs, size_t n)
{
	fputs("<section id=\"runs\">\n<h2>Runs</h2>\n<table class=\"runs\">\n<tr><th>run</th>"
	      "<th>label</th><th>test</th><th>board (else CPU)</th><th>date</th><th>boardperf</th>"
	      "<th>error</th></tr>\n", out);
	for (size_t r = 0; r < n; r++) {
		const json_t *doc = runs[r].doc, *env = json_object_get(doc, "env");
		const json_t *inv = json_object_get(env, "inventory");
		/* as compare names a board: its model, else its CPU ("2x AMD EPYC") */
		const char *board = bp_report_str(json_object_get(inv, "board"), "model");
		const json_t *error = json_object_get(doc, "error");

		fputs("<tr class=\"run\">", out);
		cell(out, runs[r].name);
		cell(out, bp_report_str(json_object_get(doc, "params"), "label"));
		test_cell(out, doc);
		cell(out, board && *board ? board :
			  bp_report_str(json_object_get(inv, "cpu"), "summary"));
		cell(out, bp_report_str(env, "collected_at"));
		cell(out, bp_report_str(json_object_get(env, "boardperf"), "version"));
		if (json_is_object(error))
			cell(out, bp_report_str(error, "message"));
		else
			fputs("<td>none</td>", out);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n</section>\n", out);
}

static int test_section(FILE *out, const struct bp_report_test *t)
{
	int rc;

	fputs("<section class=\"test\" id=\"test-", out);
	put(out, t->test);
	fputs("\">\n<h2>", out);
	put(out, t->test);
	fprintf(out, "</h2>\n<p>%zu run%s.</p>\n", t->n, t->n == 1 ? "" : "s");
	rc = bp_report_interval_charts(out, t);
	if (!rc)
		rc = bp_report_latency_charts(out, t);
	if (!rc)
		rc = bp_report_bench_charts(out, t);
	fputs("</section>\n", out);
	return rc;
}

/* The compare table of every run, or why there is none (one run, nothing in common). */
static int compare_section(FILE *out, const struct bp_report_run *runs, size_t n)
{
	json_t **docs = calloc(n ? n : 1, sizeof(*docs));
	const char **names = calloc(n ? n : 1, sizeof(*names));
	struct bp_compare *c = NULL;
	char why[256] = "out of memory";
	int rc = 0;

	for (size_t i = 0; docs && names && i < n; i++) {
		docs[i] = runs[i].doc;
		names[i] = runs[i].name;
	}
	fputs("<section id=\"compare\">\n<h2>Comparison</h2>\n", out);
	if (docs && names)
		c = bp_compare_build(docs, names, n, why, sizeof(why));
	if (c) {
		rc = bp_compare_render(c, BP_COMPARE_HTML, out);
		bp_compare_free(c);
	} else {
		fputs("<p class=\"note\">No comparison table: ", out);
		put(out, why);
		fputs("</p>\n", out);
	}
	fputs("</section>\n", out);
	free(docs);
	free(names);
	return rc;
}

int bp_report_write(FILE *out, const struct bp_report_run *runs, size_t n, char *err,
		    size_t errlen)
{
	struct bp_report_data d;
	int rc = bp_report_data_build(&d, runs, n, err, errlen);

	if (rc) {
		bp_report_data_free(&d);
		return rc;
	}
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<title>boardperf report</title>\n<style>\n%s</style>\n</head>\n<body>\n"
		"<h1>boardperf report</h1>\n<p class=\"generator\">Drawn by boardperf %s from "
		"%zu result%s. Hover over a point for its figure.</p>\n", style, bp_version(),
		n, n == 1 ? "" : "s");
	runs_table(out, runs, n);
	for (size_t i = 0; !rc && i < d.ntests; i++)
		rc = test_section(out, &d.tests[i]);
	if (!rc)
		rc = compare_section(out, runs, n);
	fputs("</body>\n</html>\n", out);
	bp_report_data_free(&d);
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	if (rc)
		snprintf(err, errlen, "writing the report: %s", strerror(-rc));
	return rc;
}
