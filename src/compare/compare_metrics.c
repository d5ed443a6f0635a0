/*
 * The rows of one test's table. A metric every column has is a row (ratio to column 0,
 * marked by the base column's "better"); one only some columns have is listed with the
 * columns that have it, never dropped. Latency summaries count by their p50 and p99: the
 * two figures people quote. The geometric mean takes the kind's headline figures only
 * (result/headline.h), so a side figure cannot swing the verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_metrics.h"
#include "core/unconst.h"
#include "result/headline.h"
#include "result/kind.h"

struct mitem {
	char *name;
	const char *unit;      /* the document's own string */
	enum bp_better better;
	double value;
};

struct mlist {
	size_t n, cap;
	struct mitem *v;
};

static enum bp_better better_of(const json_t *v)
{
	const char *s = json_string_value(v);

	if (s && !strcmp(s, "higher"))
		return BP_BETTER_HIGHER;
	if (s && !strcmp(s, "lower"))
		return BP_BETTER_LOWER;
	return BP_BETTER_NONE;
}

/* A figure; null (the contract's non-finite value) or anything else is NaN. */
static double number_of(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const struct mitem *mlist_find(const struct mlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

/* Takes name; a name seen before keeps its first value. 0 or -ENOMEM. */
static int mlist_add(struct mlist *l, char *name, const char *unit, enum bp_better better,
		     double value)
{
	if (!name)
		return -ENOMEM;
	if (mlist_find(l, name)) {
		free(name);
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct mitem *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			free(name);
			return -ENOMEM;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct mitem){ name, unit ? unit : "", better, value };
	return 0;
}

static void mlist_free(struct mlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
}

static int collect_latency(const json_t *latency, struct mlist *l)
{
	static const char *const stats[] = { "p50", "p99" };
	const char *what;
	json_t *summary;
	int rc = 0;

	json_object_foreach(bp_unconst(latency), what, summary) {
		const char *unit = json_string_value(json_object_get(summary, "unit"));

		for (size_t i = 0; i < 2 && !rc; i++) {
			const json_t *v = json_object_get(summary, stats[i]);
			char *name;

			if (!v)
				continue;
			if (asprintf(&name, "latency.%s.%s", what, stats[i]) < 0)
				return -ENOMEM;
			rc = mlist_add(l, name, unit ? unit : "ns", BP_BETTER_LOWER, number_of(v));
		}
	}
	return rc;
}

static int collect(const json_t *doc, struct mlist *l)
{
	const json_t *m;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(doc, "metrics"), i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));

		if (!name)
			continue;  /* not a metric of the contract: nothing to match it by */
		rc = mlist_add(l, strdup(name), json_string_value(json_object_get(m, "unit")),
			       better_of(json_object_get(m, "better")),
			       number_of(json_object_get(m, "value")));
		if (rc)
			return rc;
	}
	return collect_latency(json_object_get(doc, "latency"), l);
}

/* value / base; 1 when both are 0; NaN when either is not finite or only base is 0. */
static double ratio_of(double base, double value)
{
	if (!isfinite(base) || !isfinite(value))
		return NAN;
	if (base == 0)
		return value == 0 ? 1 : NAN;
	return value / base;
}

static int add_row(struct bp_cmp_group *g, const struct mlist *cols, const char *name)
{
	const struct mitem *base = mlist_find(&cols[0], name);
	struct bp_cmp_row *row = &g->rows[g->nrows];

	row->name = strdup(name);
	row->unit = strdup(base->unit);
	row->better = base->better;
	row->value = calloc(g->ncols, sizeof(*row->value));
	row->ratio = calloc(g->ncols, sizeof(*row->ratio));
	row->mark = calloc(g->ncols, sizeof(*row->mark));
	g->nrows++;
	if (!row->name || !row->unit || !row->value || !row->ratio || !row->mark)
		return -ENOMEM;
	for (size_t k = 0; k < g->ncols; k++) {
		row->value[k] = mlist_find(&cols[k], name)->value;
		row->ratio[k] = ratio_of(base->value, row->value[k]);
		row->mark[k] = k ? bp_cmp_mark_of(row->better, base->value, row->value[k],
						  row->ratio[k]) : BP_CMP_MARK_NONE;
	}
	return 0;
}

static int add_partial(struct bp_cmp_group *g, const struct mlist *cols, const char *name,
		       unsigned mask)
{
	struct bp_cmp_partial *p = &g->partial[g->npartial];
	const struct mitem *first = NULL;

	p->mask = mask;
	p->value = calloc(g->ncols, sizeof(*p->value));
	g->npartial++;
	if (!p->value)
		return -ENOMEM;
	for (size_t k = 0; k < g->ncols; k++) {
		const struct mitem *m = mlist_find(&cols[k], name);

		p->value[k] = m ? m->value : NAN;
		if (m && !first)
			first = m;
	}
	p->name = strdup(name);
	p->unit = strdup(first->unit);
	return p->name && p->unit ? 0 : -ENOMEM;
}

/* Every name any column has, in the order the columns list them: rows and partials. */
static int split_rows(struct bp_cmp_group *g, const struct mlist *cols)
{
	size_t total = 0;
	int rc = 0;

	for (size_t k = 0; k < g->ncols; k++)
		total += cols[k].n;
	g->rows = calloc(total ? total : 1, sizeof(*g->rows));
	g->partial = calloc(total ? total : 1, sizeof(*g->partial));
	if (!g->rows || !g->partial)
		return -ENOMEM;
	for (size_t k = 0; k < g->ncols && !rc; k++)
		for (size_t i = 0; i < cols[k].n && !rc; i++) {
			const char *name = cols[k].v[i].name;
			unsigned mask = 0;
			bool seen = false;

			for (size_t j = 0; j < k && !seen; j++)
				seen = mlist_find(&cols[j], name) != NULL;
			if (seen)
				continue;
			for (size_t j = 0; j < g->ncols; j++)
				if (mlist_find(&cols[j], name))
					mask |= 1u << j;
			rc = mask == (1u << g->ncols) - 1 ? add_row(g, cols, name) :
			     add_partial(g, cols, name, mask);
		}
	return rc;
}

/* The kind's name of a group: "cpu" of a suite's second cpu, "cpu (2)". */
static void kind_of(const char *test, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(test, " "), test);
}

/*
 * A row the summary takes: a headline figure of the test's kind (a pattern's every match:
 * rfc2544's frame sizes), its headline latency's p50; every row with a direction for a test
 * no kind declares (a document of another version).
 */
static bool headline_row(const struct bp_headline *h, const struct bp_cmp_row *r)
{
	char lat[96];

	if (r->better == BP_BETTER_NONE)
		return false;
	if (!h)
		return true;
	for (size_t i = 0; i < BP_HEADLINE_METRICS && h->metrics[i]; i++)
		if (bp_metric_pattern_matches(h->metrics[i], r->name))
			return true;
	snprintf(lat, sizeof(lat), "latency.%s.p50", h->latency ? h->latency : "");
	return h->latency && !strcmp(r->name, lat);
}

/* Appends "name what" to *list, ", "-joined; -ENOMEM on failure. */
static int note(char **list, const char *name, const char *what)
{
	char *t;

	if (asprintf(&t, "%s%s%s %s", *list ? *list : "", *list ? ", " : "", name, what) < 0)
		return -ENOMEM;
	free(*list);
	*list = t;
	return 0;
}

/*
 * Over the headline rows with a positive finite ratio: exp of the mean log of the ratio
 * oriented so that above 1 is better (1/ratio where lower is better), so one row twice as
 * good and one half as good give 1, whichever way each metric points. A headline row it
 * cannot take (a 0 or a missing ratio) is named in left_out, never dropped silently; rows
 * that point different ways are named in mixed, so a mean near 1 is not read as "same".
 */
static int geomeans(struct bp_cmp_group *g)
{
	char kind[64];
	struct bp_headline buf;
	const struct bp_headline *h;
	int rc = 0;

	kind_of(g->test, kind, sizeof(kind));
	h = bp_headline_of(kind, &buf);
	for (size_t k = 1; k < g->ncols && !rc; k++) {
		double sum = 0;
		size_t n = 0;
		bool better = false, worse = false;
		char *marks = NULL;

		for (size_t i = 0; i < g->nrows && !rc; i++) {
			const struct bp_cmp_row *r = &g->rows[i];

			if (!headline_row(h, r))
				continue;
			/* a figure left out of the mean still says which way it went */
			better = better || r->mark[k] == BP_CMP_MARK_BETTER;
			worse = worse || r->mark[k] == BP_CMP_MARK_WORSE;
			if (r->mark[k] == BP_CMP_MARK_BETTER || r->mark[k] == BP_CMP_MARK_WORSE)
				rc = note(&marks, r->name, bp_cmp_mark_word(r->mark[k]));
			if (!rc && (!isfinite(r->ratio[k]) || r->ratio[k] <= 0)) {
				rc = note(&g->left_out[k], r->name, r->value[0] == 0 ?
					  "(0 in the base run)" : r->value[k] == 0 ? "(0 in this run)" :
					  "(no ratio)");
				continue;
			}
			sum += r->better == BP_BETTER_HIGHER ? log(r->ratio[k]) : -log(r->ratio[k]);
			n++;
		}
		if (better && worse) {
			g->mixed[k] = marks;
			marks = NULL;
		}
		free(marks);
		g->geocount[k] = n;
		g->geomean[k] = n ? exp(sum / (double)n) : NAN;
		g->geomark[k] = n ? bp_cmp_mark_of(BP_BETTER_HIGHER, 1, g->geomean[k],
						   g->geomean[k]) : BP_CMP_MARK_NONE;
	}
	g->geomean[0] = NAN;
	return rc;
}

/* The warning codes, ", "-joined; NULL when there are none. */
static int warnings_of(const json_t *doc, char **out)
{
	const json_t *w;
	size_t i;
	char *s = NULL, *t;

	json_array_foreach(json_object_get(doc, "warnings"), i, w) {
		const char *code = json_string_value(json_object_get(w, "code"));

		if (!code)
			continue;
		if (asprintf(&t, "%s%s%s", s ? s : "", s ? ", " : "", code) < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
		s = t;
	}
	*out = s;
	return 0;
}

static int error_of(const json_t *doc, char **out)
{
	const json_t *e = json_object_get(doc, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));
	const char *code = json_string_value(json_object_get(e, "code"));

	*out = NULL;
	if (!json_is_object(e))
		return 0;
	*out = strdup(msg ? msg : code ? code : "failed");
	return *out ? 0 : -ENOMEM;
}

static int alloc_columns(struct bp_cmp_group *g, const char *test, const size_t *runs,
			 size_t n)
{
	g->ncols = n;
	g->test = strdup(test);
	g->run = calloc(n, sizeof(*g->run));
	g->geomean = calloc(n, sizeof(*g->geomean));
	g->geocount = calloc(n, sizeof(*g->geocount));
	g->geomark = calloc(n, sizeof(*g->geomark));
	g->mixed = calloc(n, sizeof(*g->mixed));
	g->left_out = calloc(n, sizeof(*g->left_out));
	g->warnings = calloc(n, sizeof(*g->warnings));
	g->error = calloc(n, sizeof(*g->error));
	if (!g->test || !g->run || !g->geomean || !g->geocount || !g->geomark || !g->warnings ||
	    !g->error || !g->mixed || !g->left_out)
		return -ENOMEM;
	memcpy(g->run, runs, n * sizeof(*runs));
	return 0;
}

int bp_cmp_group_fill(struct bp_cmp_group *g, const char *test, const json_t *const *docs,
		      const size_t *runs, size_t n)
{
	struct mlist cols[BP_COMPARE_MAX_RUNS] = { { 0 } };
	const json_t *params[BP_COMPARE_MAX_RUNS];
	json_t *compared[BP_COMPARE_MAX_RUNS] = { 0 };
	int rc = alloc_columns(g, test, runs, n);

	for (size_t k = 0; k < n && !rc; k++) {
		rc = collect(docs[k], &cols[k]);
		if (!rc)
			rc = warnings_of(docs[k], &g->warnings[k]);
		if (!rc)
			rc = error_of(docs[k], &g->error[k]);
		compared[k] = rc ? NULL : bp_cmp_params_compared(docs[k]);
		if (!rc && !compared[k])
			rc = -ENOMEM;
		params[k] = compared[k];
	}
	if (!rc)
		rc = split_rows(g, cols);
	if (!rc)
		rc = geomeans(g);
	if (!rc)
		rc = bp_cmp_params_diff(g, params);
	for (size_t k = 0; k < n; k++) {
		mlist_free(&cols[k]);
		json_decref(compared[k]);
	}
	return rc;
}
