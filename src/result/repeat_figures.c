#include "result/repeat_figures.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool run_ok(const struct bp_result *run)
{
	return !run->error.code;
}

static const struct bp_latency *find_latency(const struct bp_result *run, const char *what)
{
	for (size_t i = 0; i < run->nlatency; i++)
		if (!strcmp(run->latency[i].what, what))
			return &run->latency[i];
	return NULL;
}

static void set_metric_figure(struct bp_repeat_figure *f, const struct bp_metric *m)
{
	snprintf(f->name, sizeof(f->name), "%s", m->name);
	snprintf(f->unit, sizeof(f->unit), "%s", m->unit);
	f->latency = NULL;
	f->better = m->better;
}

/* The figures of one run, by its headline entry as text_summary.c shows them. */
static size_t figures_of_run(const struct bp_result *run, struct bp_repeat_figure *f,
			     size_t max)
{
	struct bp_headline buf;
	const struct bp_headline *h = bp_headline_of(run->test, &buf);
	const struct bp_latency *lat;
	size_t n = 0;

	for (size_t i = 0; h && i < BP_HEADLINE_METRICS && h->metrics[i] && n < max; i++) {
		const struct bp_metric *m = bp_result_find_matching(run, h->metrics[i]);

		if (m)
			set_metric_figure(&f[n++], m);
	}
	lat = h && h->latency ? find_latency(run, h->latency) : NULL;
	if (lat && n < max) {
		snprintf(f[n].name, sizeof(f[n].name), "%s.p50", lat->what);
		snprintf(f[n].unit, sizeof(f[n].unit), "%s", lat->unit);
		f[n].latency = h->latency;
		f[n].better = BP_BETTER_LOWER;
		n++;
	}
	/* a test without a headline entry (or whose headline figures are missing) */
	if (n)
		return n;
	for (size_t i = 0; i < run->nmetrics && i < BP_HEADLINE_FALLBACK && n < max; i++)
		set_metric_figure(&f[n++], &run->metrics[i]);
	return n;
}

size_t bp_repeat_figures_of(const struct bp_result *parent, struct bp_repeat_figure *f,
			    size_t max)
{
	for (size_t i = 0; i < parent->nchildren; i++) {
		size_t n;

		if (!run_ok(parent->children[i]))
			continue;
		n = figures_of_run(parent->children[i], f, max);
		if (n)
			return n;
	}
	return 0;
}

double bp_repeat_value(const struct bp_result *run, const struct bp_repeat_figure *f)
{
	const struct bp_metric *m;
	const struct bp_latency *lat;

	if (f->latency) {
		lat = find_latency(run, f->latency);
		return lat ? lat->p50 : NAN;
	}
	m = bp_result_find_metric(run, f->name);
	return m ? m->value : NAN;
}

size_t bp_repeat_runs_ok(const struct bp_result *parent)
{
	size_t n = 0;

	for (size_t i = 0; i < parent->nchildren; i++)
		n += run_ok(parent->children[i]);
	return n;
}

void bp_repeat_stats(const struct bp_result *parent, const struct bp_repeat_figure *f,
		     struct bp_run_stats *s)
{
	double *v = malloc((parent->nchildren ? parent->nchildren : 1) * sizeof(*v));
	size_t n = 0;

	if (!v) {
		bp_run_stats_of(NULL, 0, s);
		return;
	}
	for (size_t i = 0; i < parent->nchildren; i++)
		if (run_ok(parent->children[i]))
			v[n++] = bp_repeat_value(parent->children[i], f);
	bp_run_stats_of(v, n, s);
	free(v);
}

static int add_suffixed(struct bp_result *r, const struct bp_repeat_figure *f,
			const char *suffix, double value, const char *unit, enum bp_better better)
{
	char name[128];

	if (!isfinite(value))
		return 0;  /* JSON has no NaN: an undefined figure is left out */
	snprintf(name, sizeof(name), "%.95s%.8s", f->name, suffix);
	return bp_result_add_metric(r, name, value, unit, better);
}

int bp_repeat_summarize(struct bp_result *parent)
{
	struct bp_repeat_figure f[BP_REPEAT_FIGURES];
	size_t nf = bp_repeat_figures_of(parent, f, BP_REPEAT_FIGURES);
	int err = bp_result_add_metric(parent, "runs", (double)bp_repeat_runs_ok(parent),
				       "count", BP_BETTER_NONE);

	for (size_t i = 0; !err && i < nf; i++) {
		struct bp_run_stats s;

		bp_repeat_stats(parent, &f[i], &s);
		err = add_suffixed(parent, &f[i], "", s.median, f[i].unit, f[i].better);
		if (!err)
			err = add_suffixed(parent, &f[i], ".min", s.min, f[i].unit, f[i].better);
		if (!err)
			err = add_suffixed(parent, &f[i], ".max", s.max, f[i].unit, f[i].better);
		if (!err)
			err = add_suffixed(parent, &f[i], ".cov", s.cov, "percent",
					   BP_BETTER_LOWER);
	}
	return err ? -ENOMEM : 0;
}
