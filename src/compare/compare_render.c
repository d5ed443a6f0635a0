/*
 * compare's text and Markdown: the same cells (compare_view.h), aligned for a terminal or
 * as GitHub/forum tables. Every format has a heading that names each run (its test,
 * label, board, date and version), then one table per test, its notes under it, and last
 * the tests only one run has.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_render.h"
#include "compare/compare_view.h"
#include "result/text_table.h"

static int text_runs(const struct bp_compare *c, FILE *out)
{
	struct bp_table t;
	int rc = bp_table_init(&t, 2, 2);

	for (size_t i = 0; i < c->nruns && !rc; i++) {
		char *name, *desc = bp_cmp_run_text(&c->runs[i]);

		if (!desc || asprintf(&name, "%s:", c->runs[i].name) < 0) {
			free(desc);
			rc = -ENOMEM;
			break;
		}
		rc = bp_table_add(&t, (const char *const[]){ name, desc });
		free(name);
		free(desc);
	}
	if (!rc) {
		fputs("runs\n", out);
		rc = bp_table_print(out, &t);
	}
	bp_table_free(&t);
	return rc;
}

static int text_group(const struct bp_compare *c, const struct bp_cmp_group *g, FILE *out)
{
	struct bp_cmp_view v;
	struct bp_table t;
	char **notes;
	size_t nnotes;
	int rc = bp_cmp_view_build(c, g, &v);

	if (rc)
		return rc;
	rc = bp_table_init(&t, v.ncols, 0);
	for (size_t col = 1; !rc && col < v.ncols; col++)
		t.right[col] = true;
	for (size_t row = 0; !rc && row < v.nrows; row++)
		rc = bp_table_add(&t, (const char *const *)&v.cells[row * v.ncols]);
	if (!rc) {
		fputc('\n', out);
		bp_text_put(out, g->test);
		fputc('\n', out);
		rc = bp_table_print(out, &t);
	}
	bp_table_free(&t);
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
