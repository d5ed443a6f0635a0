/*
 * The result model: growable arrays of copied strings and owned JSON references.
 * Every adder leaves the result unchanged when it fails, so a test that runs out of
 * memory half-way still holds a consistent (if shorter) result that can be freed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"
#include "result/result.h"

#include "result/kind.h"

const char *bp_better_name(enum bp_better better)
{
	switch (better) {
	case BP_BETTER_HIGHER:
		return "higher";
	case BP_BETTER_LOWER:
		return "lower";
	case BP_BETTER_NONE:
		break;
	}
	return "none";
}

/*
 * Make room for one more element of size `size` in *arr. Doubling keeps appends
 * amortised O(1); the first allocation is small because most results hold a handful.
 */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* strdup that maps NULL to NULL, so optional strings stay optional. */
static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

struct bp_result *bp_result_new(const char *test)
{
	struct bp_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (dup_opt(&r->test, test)) {
		free(r);
		return NULL;
	}
	return r;
}

static void metric_clear(struct bp_metric *m)
{
	free(m->name);
	free(m->unit);
}

void bp_interval_clear(struct bp_interval *iv)
{
	for (size_t i = 0; i < iv->nmetrics; i++)
		metric_clear(&iv->metrics[i]);
	free(iv->metrics);
	iv->metrics = NULL;
	iv->nmetrics = 0;
	json_decref(iv->monitor);
	iv->monitor = NULL;
}

void bp_result_free(struct bp_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nmetrics; i++)
		metric_clear(&r->metrics[i]);
	for (size_t i = 0; i < r->nlatency; i++) {
		/* The copies bp_result_add_latency made; the fields are const for its callers. */
		free(bp_unconst(r->latency[i].what));
		free(bp_unconst(r->latency[i].unit));
		json_decref(r->latency[i].histogram);
	}
	for (size_t i = 0; i < r->nintervals; i++)
		bp_interval_clear(&r->intervals[i]);
	for (size_t i = 0; i < r->nwarnings; i++) {
		free(r->warnings[i].code);
		free(r->warnings[i].message);
	}
	for (size_t i = 0; i < r->nchildren; i++)
		bp_result_free(r->children[i]);
	free(r->metrics);
	free(r->latency);
	free(r->intervals);
	free(r->warnings);
	free(r->children);
	json_decref(r->params);
	json_decref(r->params_defaulted);
	json_decref(r->env);
	json_decref(r->streams);
	json_decref(r->chips);
	json_decref(r->monitor);
	json_decref(r->merged);
	json_decref(r->cpu);
	free(r->error.code);
	free(r->error.message);
	free(r->test);
	free(r);
}

static void set_json(json_t **slot, json_t *value)
{
	/* value is a reference of its own even when it is the tree already held. */
	json_t *old = *slot;

	*slot = value;
	json_decref(old);
}

void bp_result_set_params(struct bp_result *r, json_t *params)
{
	set_json(&r->params, params);
}

void bp_result_set_params_defaulted(struct bp_result *r, json_t *keys)
{
	set_json(&r->params_defaulted, keys);
}

void bp_result_set_env(struct bp_result *r, json_t *env)
{
	set_json(&r->env, env);
}

void bp_result_set_cpu(struct bp_result *r, json_t *cpu)
{
	set_json(&r->cpu, cpu);
}

void bp_result_set_monitor(struct bp_result *r, json_t *monitor)
{
	set_json(&r->monitor, monitor);
}

void bp_result_set_merged(struct bp_result *r, json_t *merged)
{
	set_json(&r->merged, merged);
}

void bp_interval_set_monitor(struct bp_interval *iv, json_t *monitor)
{
	set_json(&iv->monitor, monitor);
}

/* Fill *m with copies; on failure nothing is left allocated. */
static int metric_init(struct bp_metric *m, const char *name, double value,
		       const char *unit, enum bp_better better)
{
	if (dup_opt(&m->name, name))
		return -ENOMEM;
	if (dup_opt(&m->unit, unit)) {
		free(m->name);
		return -ENOMEM;
	}
	m->value = value;
	m->better = better;
	return 0;
}

int bp_result_add_metric(struct bp_result *r, const char *name, double value,
			 const char *unit, enum bp_better better)
{
	int err = grow((void **)&r->metrics, &r->cap_metrics, r->nmetrics,
		       sizeof(*r->metrics));

	if (err)
		return err;
	err = metric_init(&r->metrics[r->nmetrics], name, value, unit, better);
	if (err)
		return err;
	r->nmetrics++;
	return 0;
}

int bp_result_add_latency(struct bp_result *r, const struct bp_latency *lat)
{
	struct bp_latency *l;
	char *what, *unit;
	int err = grow((void **)&r->latency, &r->cap_latency, r->nlatency,
		       sizeof(*r->latency));

	if (err)
		return err;
	if (dup_opt(&what, lat->what))
		return -ENOMEM;
	if (dup_opt(&unit, lat->unit)) {
		free(what);
		return -ENOMEM;
	}
	l = &r->latency[r->nlatency++];
	*l = *lat;
	l->what = what;
	l->unit = unit;
	json_incref(l->histogram);
	return 0;
}

/*
 * The pointer returned stays valid only until the next interval is added (the array
 * may move), which is how tests use it: add an interval, fill it, go on.
 */
struct bp_interval *bp_result_add_interval(struct bp_result *r, double start, double end)
{
	struct bp_interval *iv;

	if (grow((void **)&r->intervals, &r->cap_intervals, r->nintervals,
		 sizeof(*r->intervals)))
		return NULL;
	iv = &r->intervals[r->nintervals++];
	memset(iv, 0, sizeof(*iv));
	iv->start = start;
	iv->end = end;
	return iv;
}

/* Interval arrays carry no capacity: it is always the count rounded up to 4, 8, 16... */
static size_t interval_cap(size_t n)
{
	size_t cap = 4;

	if (!n)
		return 0;
	while (cap < n)
		cap *= 2;
	return cap;
}

int bp_interval_add_metric(struct bp_interval *iv, const char *name, double value,
			   const char *unit, enum bp_better better)
{
	size_t cap = interval_cap(iv->nmetrics);
	int err = grow((void **)&iv->metrics, &cap, iv->nmetrics, sizeof(*iv->metrics));

	if (err)
		return err;
	err = metric_init(&iv->metrics[iv->nmetrics], name, value, unit, better);
	if (err)
		return err;
	iv->nmetrics++;
	return 0;
}

int bp_result_add_warning(struct bp_result *r, const char *code, const char *fmt, ...)
{
	struct bp_warning *w;
	va_list ap;
	int n;
	int err = grow((void **)&r->warnings, &r->cap_warnings, r->nwarnings,
		       sizeof(*r->warnings));

	if (err)
		return err;
	w = &r->warnings[r->nwarnings];
	if (dup_opt(&w->code, code))
		return -ENOMEM;
	va_start(ap, fmt);
	n = vasprintf(&w->message, fmt, ap);
	va_end(ap);
	if (n < 0) {
		free(w->code);
		return -ENOMEM;
	}
	r->nwarnings++;
	return 0;
}

/*
 * Ownership passes even on failure (the child is freed then), as json_object_set_new()
 * does: a caller's error path never has to remember whether the hand-over happened.
 */
int bp_result_add_child(struct bp_result *r, struct bp_result *child)
{
	int err;

	if (!child)
		return -EINVAL;
	err = grow((void **)&r->children, &r->cap_children, r->nchildren,
		   sizeof(*r->children));
	if (err) {
		bp_result_free(child);
		return err;
	}
	r->children[r->nchildren++] = child;
	return 0;
}

const struct bp_metric *bp_result_find_metric(const struct bp_result *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (r->metrics[i].name && strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	return NULL;
}

const struct bp_metric *bp_result_find_matching(const struct bp_result *r, const char *pattern)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (r->metrics[i].name && bp_metric_pattern_matches(pattern, r->metrics[i].name))
			return &r->metrics[i];
	return NULL;
}

bool bp_result_has_warning(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (r->warnings[i].code && strcmp(r->warnings[i].code, code) == 0)
			return true;
	return false;
}

void bp_result_set_text_layout(struct bp_result *r, int verbose, int width)
{
	r->text_verbose = verbose;
	r->text_width = width;
	for (size_t i = 0; i < r->nchildren; i++)
		bp_result_set_text_layout(r->children[i], verbose, width);
}
