/*
 * bp_compare_build: result documents in, the comparison model (compare_model.h) out. Each
 * document is one run; a suite's children are its tests. Tests are matched by name and,
 * in a suite that ran one test twice, by which occurrence ("cpu (2)"), so a suite compares
 * test by test with another suite or with a single result of one of its tests.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_model.h"
#include "compare/compare_metrics.h"
#include "core/unconst.h"

/* One test result of one run: the document itself, or a suite's child. */
struct entry {
	const json_t *doc;
	size_t run;
	char *key;      /* the group it belongs to: "tcp", "cpu (2)" */
};

struct entries {
	size_t n, cap;
	struct entry *v;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A non-empty string at the end of path below obj, "unknown" counting as none; or NULL. */
static const char *json_path_str(const json_t *obj, const char *const *path)
{
	const char *s;

	for (; *path && obj; path++)
		obj = json_object_get(obj, *path);
	if (!json_is_string(obj))
		return NULL;
	s = json_string_value(obj);
	return *s && strcmp(s, "unknown") ? s : NULL;
}

static int run_meta(struct bp_cmp_run *r, const json_t *doc)
{
	static const char *const label[] = { "params", "label", NULL };
	static const char *const board[] = { "env", "inventory", "board", "model", NULL };
	static const char *const cpu[] = { "env", "inventory", "cpu", "summary", NULL };
	static const char *const date[] = { "env", "collected_at", NULL };
	static const char *const version[] = { "env", "boardperf", "version", NULL };
	const char *b = json_path_str(doc, board);

	r->test = strdup(json_string_value(json_object_get(doc, "test")));
	r->label = dup_or_null(json_path_str(doc, label));
	r->board = dup_or_null(b ? b : json_path_str(doc, cpu));
	r->date = dup_or_null(json_path_str(doc, date));
	r->version = dup_or_null(json_path_str(doc, version));
	return r->test ? 0 : -ENOMEM;
}

/* The heading of column i: the name given, made unique with " (2)", " (3)"... */
static char *unique_name(const struct bp_compare *c, const char *name, size_t i)
{
	char fallback[32];

	if (!name) {
		snprintf(fallback, sizeof(fallback), "run %zu", i + 1);
		name = fallback;
	}
	/* At most i names are taken, so one of the first i + 1 candidates is free. */
	for (unsigned k = 1; k <= i + 1; k++) {
		bool taken = false;
		char *s;

		if (k == 1 ? !(s = strdup(name)) : asprintf(&s, "%s (%u)", name, k) < 0)
			return NULL;
		for (size_t j = 0; j < i && !taken; j++)
			taken = !strcmp(c->runs[j].name, s);
		if (!taken)
			return s;
		free(s);
	}
	return NULL;
}

/* Is doc a boardperf/1 result? Else a reason naming the column. */
static int check_doc(const json_t *doc, const char *name, char *err, size_t errlen)
{
	const json_t *schema = json_object_get(doc, "schema");

	if (!json_is_object(doc) || !json_is_string(schema)) {
		set_err(err, errlen, "'%s': not a boardperf result (expected a JSON object with "
			"\"schema\": \"%s\")", name, BP_RESULT_SCHEMA);
		return -EINVAL;
	}
	if (strcmp(json_string_value(schema), BP_RESULT_SCHEMA)) {
		set_err(err, errlen, "'%s': schema '%s' is not one this boardperf reads (%s)", name,
			json_string_value(schema), BP_RESULT_SCHEMA);
		return -EINVAL;
	}
	if (!json_is_string(json_object_get(doc, "test"))) {
		set_err(err, errlen, "'%s': the result names no test (\"test\")", name);
		return -EINVAL;
	}
	return 0;
}

static int add_entry(struct entries *e, const json_t *doc, size_t run)
{
	const char *test = json_string_value(json_object_get(doc, "test"));
	unsigned seen = 1;

	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 16;
		struct entry *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].run == run &&
		    !strcmp(json_string_value(json_object_get(e->v[i].doc, "test")), test))
			seen++;
	e->v[e->n].doc = doc;
	e->v[e->n].run = run;
	if (seen == 1 ? !(e->v[e->n].key = strdup(test)) :
	    asprintf(&e->v[e->n].key, "%s (%u)", test, seen) < 0)
		return -ENOMEM;
	e->n++;
	return 0;
}

/* The tests of run i: a suite's children (each checked), or the result itself. */
static int collect_entries(struct entries *e, const json_t *doc, size_t run, const char *name,
			   char *err, size_t errlen)
{
	const json_t *children = json_object_get(doc, "results");
	const json_t *child;
	size_t k;
	int rc;

	if (!json_is_array(children))
		return add_entry(e, doc, run);
	json_array_foreach(bp_unconst(children), k, child) {
		if (!json_is_object(child) || !json_is_string(json_object_get(child, "test"))) {
			set_err(err, errlen, "'%s': results[%zu] is not a result (no \"test\")",
				name, k);
			return -EINVAL;
		}
		rc = add_entry(e, child, run);
		if (rc)
			return rc;
	}
	return 0;
}

static void free_entries(struct entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].key);
	free(e->v);
}

static int add_single(struct bp_compare *c, const char *test, size_t run)
{
	struct bp_cmp_single *v = realloc(c->singles, (c->nsingles + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->singles = v;
	v[c->nsingles].test = strdup(test);
	v[c->nsingles].run = run;
	return v[c->nsingles++].test ? 0 : -ENOMEM;
}

/* The group of key: its columns are the entries with that key, one per run at most. */
static int add_group(struct bp_compare *c, const struct entries *e, const char *key)
{
	const json_t *docs[BP_COMPARE_MAX_RUNS];
	size_t runs[BP_COMPARE_MAX_RUNS], n = 0;
	struct bp_cmp_group *v;

	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].key, key)) {
			docs[n] = e->v[i].doc;
			runs[n++] = e->v[i].run;
		}
	if (n == 1)
		return add_single(c, key, runs[0]);
	v = realloc(c->groups, (c->ngroups + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->groups = v;
	memset(&v[c->ngroups], 0, sizeof(*v));
	c->ngroups++;
	return bp_cmp_group_fill(&v[c->ngroups - 1], key, docs, runs, n);
}

/* "no test that two runs have: 'a.json' ran tcp, 'b.json' ran udp". */
static void say_nothing_common(const struct bp_compare *c, char *err, size_t errlen)
{
	size_t used;

	set_err(err, errlen, "no test that two of the runs have:");
	for (size_t i = 0; i < c->nruns; i++) {
		used = strlen(err);
		if (used + 1 < errlen)
			snprintf(err + used, errlen - used, "%s '%s' ran %s", i ? "," : "",
				 c->runs[i].name, c->runs[i].test);
	}
}

static int build_groups(struct bp_compare *c, json_t *const *docs, char *err, size_t errlen)
{
	struct entries e = { 0 };
	int rc = 0;

	for (size_t i = 0; i < c->nruns && !rc; i++)
		rc = collect_entries(&e, docs[i], i, c->runs[i].name, err, errlen);
	for (size_t i = 0; i < e.n && !rc; i++) {
		bool first = true;

		for (size_t j = 0; j < i && first; j++)
			first = strcmp(e.v[j].key, e.v[i].key) != 0;
		if (first)
			rc = add_group(c, &e, e.v[i].key);
	}
	if (rc == -ENOMEM)
		set_err(err, errlen, "out of memory");
	else if (!rc && !c->ngroups) {
		say_nothing_common(c, err, errlen);
		rc = -EINVAL;
	}
	free_entries(&e);
	return rc;
}

struct bp_compare *bp_compare_build(json_t *const *docs, const char *const *names, size_t n,
				    char *err, size_t errlen)
{
	struct bp_compare *c;
	int rc = 0;

	if (n < 2 || n > BP_COMPARE_MAX_RUNS || !docs) {
		set_err(err, errlen, "compare needs two to %d runs, got %zu", BP_COMPARE_MAX_RUNS,
			n);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->runs = calloc(n, sizeof(*c->runs)))) {
		free(c);
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	c->nruns = n;
	for (size_t i = 0; i < n && !rc; i++) {
		c->runs[i].name = unique_name(c, names ? names[i] : NULL, i);
		if (!c->runs[i].name) {
			rc = -ENOMEM;
			set_err(err, errlen, "out of memory");
			break;
		}
		rc = check_doc(docs[i], c->runs[i].name, err, errlen);
		if (!rc && run_meta(&c->runs[i], docs[i])) {
			rc = -ENOMEM;
			set_err(err, errlen, "out of memory");
		}
	}
	if (!rc)
		rc = build_groups(c, docs, err, errlen);
	if (rc) {
		bp_compare_free(c);
		return NULL;
	}
	return c;
}

static void free_group(struct bp_cmp_group *g)
{
	for (size_t i = 0; i < g->nrows; i++) {
		free(g->rows[i].name);
		free(g->rows[i].unit);
		free(g->rows[i].value);
		free(g->rows[i].ratio);
		free(g->rows[i].mark);
	}
	for (size_t i = 0; i < g->nparams; i++) {
		for (size_t k = 0; g->params[i].value && k < g->ncols; k++)
			json_decref(g->params[i].value[k]);
		free(g->params[i].name);
		free(g->params[i].value);
		free(g->params[i].differs);
	}
	for (size_t i = 0; i < g->npartial; i++) {
		free(g->partial[i].name);
		free(g->partial[i].unit);
		free(g->partial[i].value);
	}
	for (size_t k = 0; k < g->ncols; k++) {
		if (g->warnings)
			free(g->warnings[k]);
		if (g->error)
			free(g->error[k]);
	}
	free(g->test);
	free(g->run);
	free(g->rows);
	free(g->params);
	free(g->partial);
	for (size_t k = 0; k < g->ncols; k++) {
		if (g->mixed)
			free(g->mixed[k]);
		if (g->left_out)
			free(g->left_out[k]);
	}
	free(g->mixed);
	free(g->left_out);
	free(g->geomean);
	free(g->geocount);
	free(g->geomark);
	free(g->warnings);
	free(g->error);
}

void bp_compare_free(struct bp_compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nruns; i++) {
		free(c->runs[i].name);
		free(c->runs[i].test);
		free(c->runs[i].label);
		free(c->runs[i].board);
		free(c->runs[i].date);
		free(c->runs[i].version);
	}
	for (size_t i = 0; i < c->ngroups; i++)
		free_group(&c->groups[i]);
	for (size_t i = 0; i < c->nsingles; i++)
		free(c->singles[i].test);
	free(c->runs);
	free(c->groups);
	free(c->singles);
	free(c);
}
