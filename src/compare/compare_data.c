/*
 * compare for programs: CSV (one wide table a spreadsheet opens) and JSON (the document
 * scripts read), both with the figures in base units as the results hold them; the shapes
 * are in docs/results.md, "Comparing boards (`compare`)".
 *
 * CSV: test,kind,name,unit,better, then one value column per run (headed by its name),
 * one "ratio NAME" and one "mark NAME" column per run. kind is run (name: test, label,
 * board, collected_at, version), param (a parameter that differs; mark "differs"), metric,
 * geomean (its values: how many metrics it took), partial (a metric only some runs have),
 * warnings, error, and not-compared (a test only one run has). RFC 4180 quoting.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_render.h"
#include "result/csv_field.h"
#include "result/text_tree.h"

/* The fixed head of a row: test,kind,name,unit,better */
static void csv_head(FILE *out, const char *test, const char *kind, const char *name,
		     const char *unit, const char *better)
{
	bp_csv_field(out, test);
	fputc(',', out);
	bp_csv_field(out, kind);
	fputc(',', out);
	bp_csv_field(out, name);
	fputc(',', out);
	bp_csv_field(out, unit);
	fputc(',', out);
	bp_csv_field(out, better);
}

/* One block of nruns cells: column k of the group goes under its run; others empty. */
struct cells {
	const char *text[BP_COMPARE_MAX_RUNS];
	double num[BP_COMPARE_MAX_RUNS];
	bool is_num;
};

static void csv_block(FILE *out, const struct bp_compare *c, const struct cells *b)
{
	for (size_t i = 0; i < c->nruns; i++) {
		fputc(',', out);
		if (b->is_num)
			bp_csv_number(out, b->num[i]);
		else
			bp_csv_field(out, b->text[i]);
	}
}

static struct cells text_cells(void)
{
	return (struct cells){ .is_num = false };
}

static struct cells num_cells(void)
{
	struct cells b = { .is_num = true };

	for (size_t i = 0; i < BP_COMPARE_MAX_RUNS; i++)
		b.num[i] = NAN;
	return b;
}

static void csv_header(FILE *out, const struct bp_compare *c)
{
	static const char *const prefix[] = { "", "ratio ", "mark " };

	fputs("test,kind,name,unit,better", out);
	for (size_t p = 0; p < 3; p++)
		for (size_t i = 0; i < c->nruns; i++) {
			char *s;

			fputc(',', out);
			if (asprintf(&s, "%s%s", prefix[p], c->runs[i].name) >= 0) {
				bp_csv_field(out, s);
				free(s);
			}
		}
	fputc('\n', out);
}

static void csv_runs(FILE *out, const struct bp_compare *c)
{
	static const char *const fields[] = { "test", "label", "board", "collected_at",
					      "version" };
	struct cells empty = text_cells();

	for (size_t f = 0; f < 5; f++) {
		struct cells b = text_cells();

		for (size_t i = 0; i < c->nruns; i++) {
			const struct bp_cmp_run *r = &c->runs[i];
			const char *const v[] = { r->test, r->label, r->board, r->date, r->version };

			b.text[i] = v[f];
		}
		csv_head(out, NULL, "run", fields[f], NULL, NULL);
		csv_block(out, c, &b);
		csv_block(out, c, &empty);
		csv_block(out, c, &empty);
		fputc('\n', out);
	}
}

static int csv_params(FILE *out, const struct bp_compare *c, const struct bp_cmp_group *g)
{
	for (size_t i = 0; i < g->nparams; i++) {
		struct cells v = text_cells(), empty = text_cells(), m = text_cells();
		char *texts[BP_COMPARE_MAX_RUNS] = { 0 };
		int rc = 0;

		for (size_t k = 0; k < g->ncols; k++) {
			texts[k] = bp_cmp_param_text(g->params[i].value[k]);
			rc = rc ? rc : texts[k] ? 0 : -ENOMEM;
			v.text[g->run[k]] = texts[k];
			m.text[g->run[k]] = g->params[i].differs[k] ? "differs" : NULL;
		}
		if (!rc) {
			csv_head(out, g->test, "param", g->params[i].name, NULL, NULL);
			csv_block(out, c, &v);
			csv_block(out, c, &empty);
			csv_block(out, c, &m);
			fputc('\n', out);
		}
		for (size_t k = 0; k < g->ncols; k++)
			free(texts[k]);
		if (rc)
			return rc;
	}
	return 0;
}

static const char *mark_or_null(enum bp_cmp_mark m)
{
	return m == BP_CMP_MARK_NONE ? NULL : bp_cmp_mark_word(m);
}

static void csv_metrics(FILE *out, const struct bp_compare *c, const struct bp_cmp_group *g)
{
	for (size_t i = 0; i < g->nrows; i++) {
		const struct bp_cmp_row *r = &g->rows[i];
		struct cells v = num_cells(), q = num_cells(), m = text_cells();

		for (size_t k = 0; k < g->ncols; k++) {
			v.num[g->run[k]] = r->value[k];
			q.num[g->run[k]] = r->ratio[k];
			m.text[g->run[k]] = mark_or_null(r->mark[k]);
		}
		csv_head(out, g->test, "metric", r->name, r->unit, bp_better_name(r->better));
		csv_block(out, c, &v);
		csv_block(out, c, &q);
		csv_block(out, c, &m);
		fputc('\n', out);
	}
}

static void csv_geomean(FILE *out, const struct bp_compare *c, const struct bp_cmp_group *g)
{
	struct cells v = num_cells(), q = num_cells(), m = text_cells();

	for (size_t k = 1; k < g->ncols; k++) {
		v.num[g->run[k]] = (double)g->geocount[k];
		q.num[g->run[k]] = g->geomean[k];
		m.text[g->run[k]] = mark_or_null(g->geomark[k]);
	}
	csv_head(out, g->test, "geomean", "geometric mean", NULL, "higher");
	csv_block(out, c, &v);
	csv_block(out, c, &q);
	csv_block(out, c, &m);
	fputc('\n', out);
}

static void csv_rest(FILE *out, const struct bp_compare *c, const struct bp_cmp_group *g)
{
	struct cells empty = text_cells(), nempty = num_cells();

	for (size_t i = 0; i < g->npartial; i++) {
		struct cells v = num_cells();

		for (size_t k = 0; k < g->ncols; k++)
			v.num[g->run[k]] = g->partial[i].value[k];
		csv_head(out, g->test, "partial", g->partial[i].name, g->partial[i].unit, NULL);
		csv_block(out, c, &v);
		csv_block(out, c, &nempty);
		csv_block(out, c, &empty);
		fputc('\n', out);
	}
	/* each run's text of that kind: warnings, error, the mean's notes (compare_model.h) */
	static const char *const kinds[] = { "warnings", "error", "mixed", "left_out" };
	char **const per_run[] = { g->warnings, g->error, g->mixed, g->left_out };

	for (size_t which = 0; which < sizeof(kinds) / sizeof(kinds[0]); which++) {
		struct cells v = text_cells();
		bool any = false;

		for (size_t k = 0; k < g->ncols; k++) {
			v.text[g->run[k]] = per_run[which][k];
			any = any || v.text[g->run[k]];
		}
		if (!any)
			continue;
		csv_head(out, g->test, kinds[which], kinds[which], NULL, NULL);
		csv_block(out, c, &v);
		csv_block(out, c, &empty);
		csv_block(out, c, &empty);
		fputc('\n', out);
	}
}

int bp_cmp_render_csv(const struct bp_compare *c, FILE *out)
{
	struct cells empty = text_cells();
	int rc = 0;

	csv_header(out, c);
	csv_runs(out, c);
	for (size_t i = 0; !rc && i < c->ngroups; i++) {
		rc = csv_params(out, c, &c->groups[i]);
		if (rc)
			break;
		csv_metrics(out, c, &c->groups[i]);
		csv_geomean(out, c, &c->groups[i]);
		csv_rest(out, c, &c->groups[i]);
	}
	for (size_t i = 0; !rc && i < c->nsingles; i++) {
		struct cells v = text_cells();

		v.text[c->singles[i].run] = "only here";
		csv_head(out, c->singles[i].test, "not-compared", c->singles[i].test, NULL, NULL);
		csv_block(out, c, &v);
		csv_block(out, c, &empty);
		csv_block(out, c, &empty);
		fputc('\n', out);
	}
	return rc;
}

/* A number, or null for NaN and infinities (the contract's rule). */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jmark(enum bp_cmp_mark m)
{
	return jstr(mark_or_null(m));
}

static json_t *runs_json(const struct bp_compare *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->nruns; i++) {
		const struct bp_cmp_run *r = &c->runs[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "name",
						   r->name, "test", r->test, "label", jstr(r->label),
						   "board", jstr(r->board), "collected_at",
						   jstr(r->date), "version", jstr(r->version)));
	}
	return a;
}

static json_t *rows_json(const struct bp_cmp_group *g)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < g->nrows; i++) {
		const struct bp_cmp_row *r = &g->rows[i];
		json_t *v = json_array(), *q = json_array(), *m = json_array();

		for (size_t k = 0; v && q && m && k < g->ncols; k++) {
			json_array_append_new(v, jnum(r->value[k]));
			json_array_append_new(q, jnum(r->ratio[k]));
			json_array_append_new(m, jmark(r->mark[k]));
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o*, s:o*, s:o*}", "name",
						   r->name, "unit", r->unit, "better",
						   bp_better_name(r->better), "values", v, "ratios",
						   q, "marks", m));
	}
	return a;
}

static json_t *params_json(const struct bp_cmp_group *g)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < g->nparams; i++) {
		json_t *v = json_array(), *d = json_array();

		for (size_t k = 0; v && d && k < g->ncols; k++) {
			json_t *val = g->params[i].value[k];

			json_array_append_new(v, val ? json_incref(val) : json_null());
			json_array_append_new(d, json_boolean(g->params[i].differs[k]));
		}
		json_array_append_new(a, json_pack("{s:s, s:o*, s:o*}", "name",
						   g->params[i].name, "values", v, "differs", d));
	}
	return a;
}

static json_t *partial_json(const struct bp_cmp_group *g)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < g->npartial; i++) {
		json_t *v = json_array(), *runs = json_array();

		for (size_t k = 0; v && runs && k < g->ncols; k++) {
			json_array_append_new(v, jnum(g->partial[i].value[k]));
			if (g->partial[i].mask & (1u << k))
				json_array_append_new(runs, json_integer((json_int_t)g->run[k]));
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:o*, s:o*}", "name",
						   g->partial[i].name, "unit", g->partial[i].unit,
						   "runs", runs, "values", v));
	}
	return a;
}

static json_t *group_json(const struct bp_cmp_group *g)
{
	json_t *runs = json_array(), *gq = json_array(), *gn = json_array(), *gm = json_array();
	json_t *w = json_array(), *e = json_array(), *mx = json_array(), *lo = json_array();

	for (size_t k = 0; runs && gq && gn && gm && w && e && mx && lo && k < g->ncols; k++) {
		json_array_append_new(mx, jstr(g->mixed[k]));
		json_array_append_new(lo, jstr(g->left_out[k]));
		json_array_append_new(runs, json_integer((json_int_t)g->run[k]));
		json_array_append_new(gq, jnum(g->geomean[k]));
		json_array_append_new(gn, json_integer((json_int_t)g->geocount[k]));
		json_array_append_new(gm, jmark(g->geomark[k]));
		json_array_append_new(w, jstr(g->warnings[k]));
		json_array_append_new(e, jstr(g->error[k]));
	}
	return json_pack("{s:s, s:o*, s:o*, s:o*, s:{s:o*, s:o*, s:o*, s:o*, s:o*}, s:o*, s:o*, "
			 "s:o*}", "test", g->test, "runs", runs, "params_differ", params_json(g),
			 "metrics", rows_json(g), "geomean", "ratios", gq, "counts", gn, "marks",
			 gm, "mixed", mx, "left_out", lo, "only_in_some", partial_json(g),
			 "warnings", w, "errors", e);
}

json_t *bp_cmp_to_json(const struct bp_compare *c)
{
	json_t *tests = json_array(), *singles = json_array();

	for (size_t i = 0; tests && i < c->ngroups; i++) {
		json_t *g = group_json(&c->groups[i]);

		if (!g || json_array_append_new(tests, g)) {
			json_decref(tests);
			json_decref(singles);
			return NULL;
		}
	}
	for (size_t i = 0; singles && i < c->nsingles; i++)
		json_array_append_new(singles, json_pack("{s:s, s:I}", "test", c->singles[i].test,
							 "run", (json_int_t)c->singles[i].run));
	return json_pack("{s:s, s:o*, s:o*, s:o*}", "schema", "boardperf-compare/1", "runs",
			 runs_json(c), "tests", tests, "not_compared", singles);
}

int bp_cmp_render_json(const struct bp_compare *c, FILE *out)
{
	json_t *doc = bp_cmp_to_json(c);
	int rc;

	if (!doc)
		return -ENOMEM;
	/* 15 digits, as the result documents: the figures read back as the results print them. */
	rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ?
	     -EIO : 0;
	json_decref(doc);
	if (!rc)
		fputc('\n', out);
	return rc;
}
