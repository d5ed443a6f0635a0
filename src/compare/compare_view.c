/* The cells and sentences of compare's tables (compare_view.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_view.h"
#include "result/render.h"

static int add_row(struct bp_cmp_view *v, enum bp_cmp_kind kind)
{
	if (v->nrows == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		char **cells = realloc(v->cells, cap * v->ncols * sizeof(*cells));
		enum bp_cmp_cell *cls;
		enum bp_cmp_kind *kinds;

		if (!cells)
			return -ENOMEM;
		v->cells = cells;
		cls = realloc(v->cls, cap * v->ncols * sizeof(*cls));
		if (!cls)
			return -ENOMEM;
		v->cls = cls;
		kinds = realloc(v->kind, cap * sizeof(*kinds));
		if (!kinds)
			return -ENOMEM;
		v->kind = kinds;
		v->cap = cap;
	}
	for (size_t i = 0; i < v->ncols; i++) {
		v->cells[v->nrows * v->ncols + i] = NULL;
		v->cls[v->nrows * v->ncols + i] = BP_CMP_CELL_PLAIN;
	}
	v->kind[v->nrows++] = kind;
	return 0;
}

/* Sets a cell of the last row to a copy of text (NULL: empty). 0 or -ENOMEM. */
static int set(struct bp_cmp_view *v, size_t col, const char *text, enum bp_cmp_cell cls)
{
	size_t i = (v->nrows - 1) * v->ncols + col;

	free(v->cells[i]);
	v->cells[i] = strdup(text ? text : "");
	v->cls[i] = cls;
	return v->cells[i] ? 0 : -ENOMEM;
}

static enum bp_cmp_cell cell_of(enum bp_cmp_mark m)
{
	return m == BP_CMP_MARK_BETTER ? BP_CMP_CELL_BETTER :
	       m == BP_CMP_MARK_WORSE ? BP_CMP_CELL_WORSE :
	       m == BP_CMP_MARK_SAME ? BP_CMP_CELL_SAME : BP_CMP_CELL_PLAIN;
}

/* "1.30x better"; "1.00x" and a ratio without direction carry no word. */
static int set_ratio(struct bp_cmp_view *v, size_t col, double ratio, enum bp_cmp_mark m,
		     const char *tail)
{
	char r[BP_CMP_RATIO_LEN], buf[BP_CMP_RATIO_LEN + 64];
	bool word = m == BP_CMP_MARK_BETTER || m == BP_CMP_MARK_WORSE;

	/* 0 against 0.5 % loss has no ratio, but is still worse: the word alone. */
	if (word && !isfinite(ratio))
		r[0] = '\0';
	else
		bp_cmp_format_ratio(r, ratio);
	snprintf(buf, sizeof(buf), "%s%s%s%s", r, word && r[0] ? " " : "",
		 word ? bp_cmp_mark_word(m) : "", tail ? tail : "");
	return set(v, col, buf, cell_of(m));
}

static int header_row(const struct bp_compare *c, const struct bp_cmp_group *g,
		      struct bp_cmp_view *v)
{
	const char *base = c->runs[g->run[0]].name;
	int rc = add_row(v, BP_CMP_ROW_HEADER);

	if (!rc)
		rc = set(v, 0, "metric", BP_CMP_CELL_PLAIN);
	for (size_t k = 0; k < g->ncols && !rc; k++)
		rc = set(v, 1 + k, c->runs[g->run[k]].name, BP_CMP_CELL_PLAIN);
	for (size_t k = 1; k < g->ncols && !rc; k++) {
		char *s;

		if (asprintf(&s, "%s vs %s", c->runs[g->run[k]].name, base) < 0)
			return -ENOMEM;
		rc = set(v, v->nvalues + k, s, BP_CMP_CELL_PLAIN);
		free(s);
	}
	return rc;
}

static int param_rows(const struct bp_cmp_group *g, struct bp_cmp_view *v)
{
	int rc = 0;

	for (size_t i = 0; i < g->nparams && !rc; i++) {
		const struct bp_cmp_param *p = &g->params[i];
		char *name;

		rc = add_row(v, BP_CMP_ROW_PARAM);
		if (rc || asprintf(&name, "param %s", p->name) < 0)
			return -ENOMEM;
		rc = set(v, 0, name, BP_CMP_CELL_DIFFERS);
		free(name);
		for (size_t k = 0; k < g->ncols && !rc; k++) {
			char *text = bp_cmp_param_text(p->value[k]);

			if (!text)
				return -ENOMEM;
			rc = set(v, 1 + k, text, p->differs[k] ? BP_CMP_CELL_DIFFERS :
				 BP_CMP_CELL_PLAIN);
			free(text);
			if (!rc && k)
				rc = set(v, v->nvalues + k, p->differs[k] ? "differs" : "",
					 p->differs[k] ? BP_CMP_CELL_DIFFERS : BP_CMP_CELL_PLAIN);
		}
	}
	return rc;
}

static int metric_rows(const struct bp_cmp_group *g, struct bp_cmp_view *v)
{
	char buf[BP_TEXT_VALUE_LEN];
	int rc = 0;

	for (size_t i = 0; i < g->nrows && !rc; i++) {
		const struct bp_cmp_row *r = &g->rows[i];

		rc = add_row(v, BP_CMP_ROW_METRIC);
		if (!rc)
			rc = set(v, 0, r->name, BP_CMP_CELL_PLAIN);
		for (size_t k = 0; k < g->ncols && !rc; k++) {
			rc = set(v, 1 + k, bp_text_value(buf, r->value[k], r->unit),
				 BP_CMP_CELL_PLAIN);
			if (!rc && k)
				rc = set_ratio(v, v->nvalues + k, r->ratio[k], r->mark[k], NULL);
		}
	}
	return rc;
}

static int geomean_row(const struct bp_cmp_group *g, struct bp_cmp_view *v)
{
	int rc = add_row(v, BP_CMP_ROW_GEOMEAN);

	if (!rc)
		rc = set(v, 0, "geometric mean", BP_CMP_CELL_PLAIN);
	for (size_t k = 1; k < g->ncols && !rc; k++) {
		char tail[48];

		snprintf(tail, sizeof(tail), " (%zu figure%s)", g->geocount[k],
			 g->geocount[k] == 1 ? "" : "s");
		rc = set_ratio(v, v->nvalues + k, g->geomean[k], g->geomark[k], tail);
	}
	return rc;
}

/* A note under the mean, one cell per compared run: "  mixed", "  left out of the mean". */
static int mean_note_row(const struct bp_cmp_group *g, struct bp_cmp_view *v, char **per_run,
			 const char *label)
{
	bool any = false;
	int rc;

	for (size_t k = 1; k < g->ncols; k++)
		any = any || per_run[k];
	if (!any)
		return 0;
	rc = add_row(v, BP_CMP_ROW_WARNINGS);
	if (!rc)
		rc = set(v, 0, label, BP_CMP_CELL_PLAIN);
	for (size_t k = 1; k < g->ncols && !rc; k++)
		rc = set(v, v->nvalues + k, per_run[k] ? per_run[k] : "-", BP_CMP_CELL_PLAIN);
	return rc;
}

static int warnings_row(const struct bp_cmp_group *g, struct bp_cmp_view *v)
{
	bool any = false;
	int rc;

	for (size_t k = 0; k < g->ncols; k++)
		any = any || g->warnings[k];
	if (!any)
		return 0;
	rc = add_row(v, BP_CMP_ROW_WARNINGS);
	if (!rc)
		rc = set(v, 0, "warnings", BP_CMP_CELL_PLAIN);
	for (size_t k = 0; k < g->ncols && !rc; k++)
		rc = set(v, 1 + k, g->warnings[k] ? g->warnings[k] : "-", BP_CMP_CELL_PLAIN);
	return rc;
}

int bp_cmp_view_build(const struct bp_compare *c, const struct bp_cmp_group *g,
		      struct bp_cmp_view *v)
{
	int rc;

	memset(v, 0, sizeof(*v));
	v->nvalues = g->ncols;
	v->ncols = 2 * g->ncols;
	rc = header_row(c, g, v);
	if (!rc)
		rc = param_rows(g, v);
	if (!rc)
		rc = metric_rows(g, v);
	if (!rc)
		rc = geomean_row(g, v);
	if (!rc)
		rc = mean_note_row(g, v, g->mixed, "  mixed");
	if (!rc)
		rc = mean_note_row(g, v, g->left_out, "  left out of the mean");
	if (!rc)
		rc = warnings_row(g, v);
	/* Cells add_row left NULL (a ratio column of a value-only row) read as empty. */
	for (size_t i = 0; !rc && i < v->nrows * v->ncols; i++)
		if (!v->cells[i] && !(v->cells[i] = strdup("")))
			rc = -ENOMEM;
	if (rc)
		bp_cmp_view_free(v);
	return rc;
}

void bp_cmp_view_free(struct bp_cmp_view *v)
{
	for (size_t i = 0; v->cells && i < v->nrows * v->ncols; i++)
		free(v->cells[i]);
	free(v->cells);
	free(v->cls);
	free(v->kind);
	memset(v, 0, sizeof(*v));
}

/* "a.json, c.json": the names of the columns in mask. */
static void put_names(FILE *f, const struct bp_compare *c, const struct bp_cmp_group *g,
		      unsigned mask)
{
	const char *sep = "";

	for (size_t k = 0; k < g->ncols; k++)
		if (mask & (1u << k)) {
			fprintf(f, "%s%s", sep, c->runs[g->run[k]].name);
			sep = ", ";
		}
}

static int push(char ***lines, size_t *n, char *line)
{
	char **v;

	if (!line)
		return -ENOMEM;
	v = realloc(*lines, (*n + 1) * sizeof(*v));
	if (!v) {
		free(line);
		return -ENOMEM;
	}
	*lines = v;
	v[(*n)++] = line;
	return 0;
}

static char *params_note(const struct bp_cmp_group *g)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fputs("Parameters differ (", f);
	for (size_t i = 0; i < g->nparams; i++)
		fprintf(f, "%s%s", i ? ", " : "", g->params[i].name);
	fputs("): these runs did not measure the same thing.", f);
	return fclose(f) ? NULL : s;
}

/* One sentence per set of runs: "Only in rpi3: rsa2048.sign, rsa2048.verify." */
static char *partial_note(const struct bp_compare *c, const struct bp_cmp_group *g,
			  unsigned mask)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	const char *sep = "";

	if (!f)
		return NULL;
	fputs("Only in ", f);
	put_names(f, c, g, mask);
	fputs(": ", f);
	for (size_t i = 0; i < g->npartial; i++)
		if (g->partial[i].mask == mask) {
			fprintf(f, "%s%s", sep, g->partial[i].name);
			sep = ", ";
		}
	fputc('.', f);
	return fclose(f) ? NULL : s;
}

int bp_cmp_group_notes(const struct bp_compare *c, const struct bp_cmp_group *g,
		       char ***lines, size_t *n)
{
	int rc = 0;

	*lines = NULL;
	*n = 0;
	if (g->nparams)
		rc = push(lines, n, params_note(g));
	for (size_t i = 0; i < g->npartial && !rc; i++) {
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = g->partial[j].mask != g->partial[i].mask;
		if (first)
			rc = push(lines, n, partial_note(c, g, g->partial[i].mask));
	}
	for (size_t k = 0; k < g->ncols && !rc; k++) {
		char *s;

		if (!g->error[k])
			continue;
		if (asprintf(&s, "%s could not measure: %s", c->runs[g->run[k]].name,
			     g->error[k]) < 0)
			return -ENOMEM;
		rc = push(lines, n, s);
	}
	if (rc) {
		bp_cmp_notes_free(*lines, *n);
		*lines = NULL;
		*n = 0;
	}
	return rc;
}

void bp_cmp_notes_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* "2026-12-01T10:00:00Z" as "2026-12-01 10:00:00 UTC"; anything else as recorded. */
static void put_date(FILE *f, const char *d)
{
	size_t len = strlen(d);

	if (len == 20 && d[10] == 'T' && d[19] == 'Z')
		fprintf(f, "%.10s %.8s UTC", d, d + 11);
	else
		fputs(d, f);
}

char *bp_cmp_run_text(const struct bp_cmp_run *r)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fputs(r->test, f);
	if (r->label && strcmp(r->label, r->name))
		fprintf(f, ", label %s", r->label);
	fprintf(f, ", %s", r->board ? r->board : "unknown board");
	if (r->date) {
		fputs(", ", f);
		put_date(f, r->date);
	}
	if (r->version)
		fprintf(f, ", boardperf %s", r->version);
	return fclose(f) ? NULL : s;
}

char *bp_cmp_singles_text(const struct bp_compare *c, int *err)
{
	char *s = NULL;
	size_t len;
	FILE *f;

	*err = 0;
	if (!c->nsingles)
		return NULL;
	f = open_memstream(&s, &len);
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	fputs("Not compared (in one run only): ", f);
	for (size_t i = 0; i < c->nsingles; i++)
		fprintf(f, "%s%s (%s)", i ? ", " : "", c->singles[i].test,
			c->runs[c->singles[i].run].name);
	fputc('.', f);
	if (fclose(f)) {
		*err = -ENOMEM;
		return NULL;
	}
	return s;
}
