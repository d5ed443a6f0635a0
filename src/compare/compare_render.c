/*
 * compare's text and Markdown: the same cells (compare_view.h), aligned for a terminal or
 * as GitHub/forum tables. Every format has a heading that names each run (its test,
 * label, board, date and version), then one table per test, its notes under it, and last
 * the tests only one run has.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_render.h"
#include "compare/compare_view.h"
#include "core/term.h"
#include "result/text_table.h"

/* "runs", then "  NAME:  test, board, date, version" each, filled to the terminal's width. */
static int text_runs(const struct bp_compare *c, FILE *out)
{
	int width = bp_term_width_of(out);
	size_t namew = 0;

	for (size_t i = 0; i < c->nruns; i++) {
		size_t n = bp_text_width(c->runs[i].name) + 1;

		namew = n > namew ? n : namew;
	}
	fputs("runs\n", out);
	for (size_t i = 0; i < c->nruns; i++) {
		char *desc = bp_cmp_run_text(&c->runs[i]);
		int col = 2 + (int)namew + 2;

		if (!desc)
			return -ENOMEM;
		fputs("  ", out);
		bp_text_put(out, c->runs[i].name);
		fprintf(out, ":%*s", (int)(namew - bp_text_width(c->runs[i].name)) + 1, "");
		bp_text_clean(desc);
		bp_term_fill(out, desc, col, col, width);
		fputc('\n', out);
		free(desc);
	}
	return 0;
}

/* The widest cell of each column of v into w[0..v->ncols). */
static void column_widths(const struct bp_cmp_view *v, size_t *w)
{
	for (size_t col = 0; col < v->ncols; col++) {
		w[col] = 0;
		for (size_t row = 0; row < v->nrows; row++) {
			size_t n = bp_text_width(bp_cmp_view_cell(v, row, col));

			w[col] = n > w[col] ? n : w[col];
		}
	}
}

/* A row with nothing in columns cols[0..n): left out of that part of the table. */
static bool empty_in(const struct bp_cmp_view *v, size_t row, const size_t *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (*bp_cmp_view_cell(v, row, cols[i]))
			return false;
	return true;
}

/* The metric column and columns cols[0..n) of v as one aligned table. */
static int text_part(const struct bp_cmp_view *v, const size_t *cols, size_t n, FILE *out)
{
	struct bp_table t;
	int rc = bp_table_init(&t, n + 1, 0);

	for (size_t i = 1; !rc && i <= n; i++)
		t.right[i] = true;
	for (size_t row = 0; !rc && row < v->nrows; row++) {
		if (row && empty_in(v, row, cols, n))
			continue;
		rc = bp_table_add_row(&t);
		if (!rc)
			rc = bp_table_set(&t, 0, bp_cmp_view_cell(v, row, 0));
		for (size_t i = 0; !rc && i < n; i++)
			rc = bp_table_set(&t, i + 1, bp_cmp_view_cell(v, row, cols[i]));
	}
	if (!rc)
		rc = bp_table_print(out, &t);
	bp_table_free(&t);
	return rc;
}

/*
 * The table, to the terminal's width (core/term.h): whole when it fits, else in parts of
 * as many run columns as fit beside the metric column (the values, then the ratios), one
 * under the other, each part without the rows it has nothing of.
 */
static int text_table(const struct bp_cmp_view *v, FILE *out)
{
	size_t w[2 * BP_COMPARE_MAX_RUNS + 2], cols[2 * BP_COMPARE_MAX_RUNS + 2];
	size_t width = (size_t)bp_term_width_of(out), n = 0, used;
	int rc = 0;

	if (v->ncols > sizeof(w) / sizeof(w[0]))
		return -EINVAL;
	column_widths(v, w);
	used = w[0];
	for (size_t col = 1; col < v->ncols; col++) {
		/* a part is full: print it, the next starts with this column */
		if (n && used + 2 + w[col] > width) {
			rc = text_part(v, cols, n, out);
			if (rc)
				return rc;
			fputc('\n', out);
			n = 0;
			used = w[0];
		}
		cols[n++] = col;
		used += 2 + w[col];
	}
	return n ? text_part(v, cols, n, out) : 0;
}

static int text_group(const struct bp_compare *c, const struct bp_cmp_group *g, FILE *out)
{
	struct bp_cmp_view v;
	char **notes;
	size_t nnotes;
	int rc = bp_cmp_view_build(c, g, &v);

	if (rc)
		return rc;
	fputc('\n', out);
	bp_text_put(out, g->test);
	fputc('\n', out);
	rc = text_table(&v, out);
	bp_cmp_view_free(&v);
	if (!rc)
		rc = bp_cmp_group_notes(c, g, &notes, &nnotes);
	for (size_t i = 0; !rc && i < nnotes; i++) {
		bp_text_put(out, notes[i]);
		fputc('\n', out);
	}
	if (!rc)
		bp_cmp_notes_free(notes, nnotes);
	return rc;
}

static int render_text(const struct bp_compare *c, FILE *out)
{
	int rc = text_runs(c, out);
	char *singles;

	for (size_t i = 0; !rc && i < c->ngroups; i++)
		rc = text_group(c, &c->groups[i], out);
	if (rc)
		return rc;
	singles = bp_cmp_singles_text(c, &rc);
	if (singles) {
		fputc('\n', out);
		bp_text_put(out, singles);
		fputc('\n', out);
	}
	free(singles);
	return rc;
}

/*
 * Text in a Markdown cell or line: the characters that would end the cell (|), start
 * emphasis, code or a link (* _ ` [ ] < >) or escape (\) get a backslash, which
 * CommonMark (GitHub, Discourse) and most forum dialects drop; control characters are
 * blanks (a CR LF would end the table row).
 */
static void md_put(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f)
			fputc(' ', out);
		else if (strchr("\\|*_`[]<>", ch))
			fprintf(out, "\\%c", ch);
		else
			fputc(ch, out);
	}
}

static void md_runs(const struct bp_compare *c, FILE *out)
{
	fputs("Runs:", out);
	for (size_t i = 0; i < c->nruns; i++) {
		char *desc = bp_cmp_run_text(&c->runs[i]);

		fputs(i ? "; **" : " **", out);
		md_put(out, c->runs[i].name);
		fputs("** (", out);
		md_put(out, desc ? desc : "");
		fputc(')', out);
		free(desc);
	}
	fputs("\n", out);
}

static void md_cell(FILE *out, const struct bp_cmp_view *v, size_t row, size_t col)
{
	const char *s = bp_cmp_view_cell(v, row, col);
	enum bp_cmp_cell cls = v->cls[row * v->ncols + col];
	bool bold = *s && (v->kind[row] == BP_CMP_ROW_GEOMEAN ||
			   (cls == BP_CMP_CELL_DIFFERS && col > v->nvalues));

	fputs(col ? " | " : "| ", out);
	if (bold)
		fputs("**", out);
	md_put(out, s);
	if (bold)
		fputs("**", out);
}

static int md_group(const struct bp_compare *c, const struct bp_cmp_group *g, FILE *out)
{
	struct bp_cmp_view v;
	char **notes;
	size_t nnotes;
	int rc = bp_cmp_view_build(c, g, &v);

	if (rc)
		return rc;
	fputs("\n### ", out);
	md_put(out, g->test);
	fputs("\n\n", out);
	for (size_t row = 0; row < v.nrows; row++) {
		for (size_t col = 0; col < v.ncols; col++)
			md_cell(out, &v, row, col);
		fputs(" |\n", out);
		if (row)
			continue;
		for (size_t col = 0; col < v.ncols; col++)
			fputs(col ? " | ---:" : "| :---", out);
		fputs(" |\n", out);
	}
	bp_cmp_view_free(&v);
	rc = bp_cmp_group_notes(c, g, &notes, &nnotes);
	for (size_t i = 0; !rc && i < nnotes; i++) {
		fputc('\n', out);
		md_put(out, notes[i]);
		fputc('\n', out);
	}
	if (!rc)
		bp_cmp_notes_free(notes, nnotes);
	return rc;
}

static int render_markdown(const struct bp_compare *c, FILE *out)
{
	char *singles;
	int rc = 0;

	md_runs(c, out);
	for (size_t i = 0; !rc && i < c->ngroups; i++)
		rc = md_group(c, &c->groups[i], out);
	if (rc)
		return rc;
	singles = bp_cmp_singles_text(c, &rc);
	if (singles) {
		fputc('\n', out);
		md_put(out, singles);
		fputc('\n', out);
	}
	free(singles);
	return rc;
}

int bp_compare_render(const struct bp_compare *c, enum bp_compare_format f, FILE *out)
{
	int rc;

	if (!c || !out)
		return -EINVAL;
	switch (f) {
	case BP_COMPARE_TEXT: rc = render_text(c, out); break;
	case BP_COMPARE_MARKDOWN: rc = render_markdown(c, out); break;
	case BP_COMPARE_CSV: rc = bp_cmp_render_csv(c, out); break;
	case BP_COMPARE_HTML: rc = bp_cmp_render_html(c, out); break;
	case BP_COMPARE_JSON: rc = bp_cmp_render_json(c, out); break;
	default: return -EINVAL;
	}
	if (!rc && ferror(out))
		rc = -EIO;
	return rc;
}
