/*
 * compare as an HTML fragment for a page that has its own <html> and style (the report,
 * a blog post): one <section class="bp-compare">, the runs as a list, each test a heading,
 * a table and its notes. Every text is escaped; the cells carry classes (better, worse,
 * same, differs, num) for the page's CSS, and no style of their own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare/compare_render.h"
#include "compare/compare_view.h"
#include "core/text_escape.h"

static void html_put(FILE *out, const char *s)
{
	bp_html_escape(out, s);
}

static const char *cell_class(enum bp_cmp_cell cls)
{
	switch (cls) {
	case BP_CMP_CELL_BETTER: return "better";
	case BP_CMP_CELL_WORSE: return "worse";
	case BP_CMP_CELL_SAME: return "same";
	case BP_CMP_CELL_DIFFERS: return "differs";
	case BP_CMP_CELL_PLAIN: break;
	}
	return NULL;
}

static const char *row_class(enum bp_cmp_kind kind)
{
	switch (kind) {
	case BP_CMP_ROW_PARAM: return "param";
	case BP_CMP_ROW_GEOMEAN: return "geomean";
	case BP_CMP_ROW_WARNINGS: return "warnings";
	case BP_CMP_ROW_METRIC: return "metric";
	case BP_CMP_ROW_HEADER: break;
	}
	return NULL;
}

static void html_row(FILE *out, const struct bp_cmp_view *v, size_t row)
{
	const char *tag = row ? "td" : "th";

	fprintf(out, "<tr");
	if (row_class(v->kind[row]))
		fprintf(out, " class=\"%s\"", row_class(v->kind[row]));
	fputc('>', out);
	for (size_t col = 0; col < v->ncols; col++) {
		const char *cls = cell_class(v->cls[row * v->ncols + col]);
		bool num = row && col;

		fprintf(out, "<%s", tag);
		if (num || cls)
			fprintf(out, " class=\"%s%s%s\"", num ? "num" : "", num && cls ? " " : "",
				cls ? cls : "");
		fputc('>', out);
		html_put(out, bp_cmp_view_cell(v, row, col));
		fprintf(out, "</%s>", tag);
	}
	fputs("</tr>\n", out);
}

static int html_group(const struct bp_compare *c, const struct bp_cmp_group *g, FILE *out)
{
	struct bp_cmp_view v;
	char **notes;
	size_t nnotes;
	int rc = bp_cmp_view_build(c, g, &v);

	if (rc)
		return rc;
	fputs("<h3>", out);
	html_put(out, g->test);
	fputs("</h3>\n<table class=\"bp-compare-table\">\n<thead>\n", out);
	html_row(out, &v, 0);
	fputs("</thead>\n<tbody>\n", out);
	for (size_t row = 1; row < v.nrows; row++)
		html_row(out, &v, row);
	fputs("</tbody>\n</table>\n", out);
	bp_cmp_view_free(&v);
	rc = bp_cmp_group_notes(c, g, &notes, &nnotes);
	for (size_t i = 0; !rc && i < nnotes; i++) {
		fputs("<p class=\"bp-compare-note\">", out);
		html_put(out, notes[i]);
		fputs("</p>\n", out);
	}
	if (!rc)
		bp_cmp_notes_free(notes, nnotes);
	return rc;
}

int bp_cmp_render_html(const struct bp_compare *c, FILE *out)
{
	char *singles;
	int rc = 0;

	fputs("<section class=\"bp-compare\">\n<ul class=\"bp-compare-runs\">\n", out);
	for (size_t i = 0; i < c->nruns; i++) {
		char *desc = bp_cmp_run_text(&c->runs[i]);

		if (!desc)
			return -ENOMEM;
		fputs("<li><b>", out);
		html_put(out, c->runs[i].name);
		fputs("</b>: ", out);
		html_put(out, desc);
		fputs("</li>\n", out);
		free(desc);
	}
	fputs("</ul>\n", out);
	for (size_t i = 0; !rc && i < c->ngroups; i++)
		rc = html_group(c, &c->groups[i], out);
	if (rc)
		return rc;
	singles = bp_cmp_singles_text(c, &rc);
	if (singles) {
		fputs("<p class=\"bp-compare-note\">", out);
		html_put(out, singles);
		fputs("</p>\n", out);
	}
	free(singles);
	if (!rc)
		fputs("</section>\n", out);
	return rc;
}
