#include "suite/together_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/headline.h"
#include "suite/together_figures.h"

#define NAME_LEN 160

/* A figure a test reports: a metric by name, or a latency summary's p50. */
struct figure {
	char name[NAME_LEN];       /* "receiver.bitrate", "transaction.p50" */
	const char *metric;        /* the metric's name, or NULL for the latency */
	const char *latency;       /* the latency summary's name */
	char unit[32];
	enum bp_better better;
};

static bool figure_value(const struct bp_result *res, const struct figure *f, double *v)
{
	if (!res || res->error.code)
		return false;
	if (f->metric) {
		const struct bp_metric *m = bp_result_find_metric(res, f->metric);

		if (m)
			*v = m->value;
		return m != NULL;
	}
	for (size_t i = 0; i < res->nlatency; i++)
		if (!strcmp(res->latency[i].what, f->latency)) {
			*v = res->latency[i].p50;
			return true;
		}
	return false;
}

/* The first run of this test that measured: where its figures' names and units come from. */
static const struct bp_result *sample_of(const struct bp_together_run *runs, size_t nruns,
					 size_t test)
{
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].test == test && runs[i].res && !runs[i].res->error.code)
			return runs[i].res;
	return NULL;
}

static void metric_figure(struct figure *f, const struct bp_metric *m)
{
	snprintf(f->name, sizeof(f->name), "%s", m->name);
	f->metric = m->name;
	f->latency = NULL;
	snprintf(f->unit, sizeof(f->unit), "%s", m->unit ? m->unit : "");
	f->better = m->better;
}

/* The headline figures (result/headline.h) the sample has, as `run`'s summary picks them. */
static size_t headline_figures(const struct bp_result *s, struct figure *fs, size_t max)
{
	struct bp_headline buf;
	const struct bp_headline *h = bp_headline_of(s->test, &buf);
	size_t n = 0;

	for (size_t i = 0; h && i < BP_HEADLINE_METRICS && h->metrics[i] && n < max; i++) {
		const struct bp_metric *m = bp_result_find_matching(s, h->metrics[i]);

		if (m)
			metric_figure(&fs[n++], m);
	}
	for (size_t i = 0; h && h->latency && i < s->nlatency && n < max; i++) {
		if (strcmp(s->latency[i].what, h->latency))
			continue;
		snprintf(fs[n].name, sizeof(fs[n].name), "%s.p50", s->latency[i].what);
		fs[n].metric = NULL;
		fs[n].latency = s->latency[i].what;
		snprintf(fs[n].unit, sizeof(fs[n].unit), "%s",
			 s->latency[i].unit ? s->latency[i].unit : "ns");
		fs[n++].better = BP_BETTER_LOWER;
	}
	for (size_t i = 0; !n && i < s->nmetrics && i < BP_HEADLINE_FALLBACK; i++)
		metric_figure(&fs[i], &s->metrics[i]);
	return n ? n : (s->nmetrics < BP_HEADLINE_FALLBACK ? s->nmetrics : BP_HEADLINE_FALLBACK);
}

static int add(struct bp_result *r, const char *label, const char *fig, const char *what,
	       double v, const char *unit, enum bp_better better)
{
	char name[NAME_LEN + 40];

	snprintf(name, sizeof(name), "%.8s.%.*s.%.24s", label, NAME_LEN, fig, what);
	return bp_result_add_metric(r, name, v, unit, better);
}

/* One figure of one test: alone and together per round, their medians, the degradation. */
static int figure_metrics(struct bp_result *r, const struct bp_together_run *runs,
			  size_t nruns, size_t test, const char *label, const struct figure *f)
{
	int rounds = 0, err = 0;
	double *alone, *together, *deg;
	struct bp_spread sa, st, sd;
	bool any_alone = false;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].round > rounds)
			rounds = runs[i].round;
	alone = calloc((size_t)rounds + 1, sizeof(double));
	together = calloc((size_t)rounds + 1, sizeof(double));
	deg = calloc((size_t)rounds + 1, sizeof(double));
	if (!alone || !together || !deg) {
		err = -ENOMEM;
		goto out;
	}
	for (int k = 0; k < rounds; k++)
		alone[k] = together[k] = NAN;
	for (size_t i = 0; i < nruns; i++) {
		double v;

		if (runs[i].test != test || runs[i].round < 1 || !figure_value(runs[i].res, f, &v))
			continue;
		(runs[i].together ? together : alone)[runs[i].round - 1] = v;
		any_alone |= !runs[i].together;
	}
	for (int k = 0; k < rounds; k++)
		deg[k] = bp_together_degradation(alone[k], together[k], f->better);
	bp_spread_of(alone, (size_t)rounds, &sa);
	bp_spread_of(together, (size_t)rounds, &st);
	bp_spread_of(deg, (size_t)rounds, &sd);
	if (any_alone)
		err = add(r, label, f->name, "alone", sa.median, f->unit, f->better);
	err = err ? err : add(r, label, f->name, "together", st.median, f->unit, f->better);
	/* a count without a better direction (retransmits) has no degradation */
	if (!err && any_alone && f->better != BP_BETTER_NONE) {
		err = add(r, label, f->name, "degradation", sd.median, "percent", BP_BETTER_LOWER);
		err = err ? err : add(r, label, f->name, "degradation.min", sd.min, "percent",
				      BP_BETTER_NONE);
		err = err ? err : add(r, label, f->name, "degradation.max", sd.max, "percent",
				      BP_BETTER_NONE);
	}
out:
	free(alone);
	free(together);
	free(deg);
	return err;
}

/* Each test's headline figures, as its first run that measured has them. */
struct test_figures {
	struct figure fs[BP_HEADLINE_METRICS + 1];
	size_t n;
};

static void pick_figures(struct test_figures *tf, const struct bp_together_run *runs,
			 size_t nruns, size_t ntests)
{
	for (size_t t = 0; t < ntests; t++) {
		const struct bp_result *s = sample_of(runs, nruns, t);

		tf[t].n = s ? headline_figures(s, tf[t].fs, BP_HEADLINE_METRICS + 1) : 0;
	}
}

static int add_figures(struct bp_result *r, const struct bp_together_run *runs, size_t nruns,
		       const struct test_figures *tf, size_t ntests, const char *const *labels)
{
	int err = 0;

	for (size_t t = 0; !err && t < ntests; t++)
		for (size_t i = 0; !err && i < tf[t].n; i++)
			err = figure_metrics(r, runs, nruns, t, labels[t], &tf[t].fs[i]);
	return err;
}

/*
 * An interval metric the series shows: one of the test's headline metrics; all of them
 * when its intervals have none of those (their names differ from the totals').
 */
static bool shown(const struct test_figures *tf, const struct bp_interval *iv,
		  const char *name)
{
	bool any = false;

	for (size_t i = 0; i < tf->n; i++) {
		if (!tf->fs[i].metric)
			continue;
		if (!strcmp(tf->fs[i].metric, name))
			return true;
		for (size_t m = 0; !any && m < iv->nmetrics; m++)
			any = !strcmp(iv->metrics[m].name, tf->fs[i].metric);
	}
	return !any;
}

/* An interval of a together run, to be put in order of the common start's clock. */
struct placed {
	int round;
	double start;
	const struct bp_together_run *run;
	const struct bp_interval *iv;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->round != y->round)
		return x->round - y->round;
	return (x->start > y->start) - (x->start < y->start);
}

static int add_placed(struct bp_result *r, const struct placed *p, const char *label,
		      const struct test_figures *tf)
{
	struct bp_interval *iv = bp_result_add_interval(r, p->start,
						       p->iv->end + p->run->start_s);
	char name[NAME_LEN + 16];
	int err;

	if (!iv)
		return -ENOMEM;
	err = bp_interval_add_metric(iv, "round", p->round, "count", BP_BETTER_NONE);
	for (size_t m = 0; !err && m < p->iv->nmetrics; m++) {
		const struct bp_metric *x = &p->iv->metrics[m];

		if (!shown(tf, p->iv, x->name))
			continue;
		snprintf(name, sizeof(name), "%s.%s", label, x->name);
		err = bp_interval_add_metric(iv, name, x->value, x->unit, x->better);
	}
	return err;
}

/* Every together run's intervals, each test's metrics under its label, by round and time. */
static int add_intervals(struct bp_result *r, const struct bp_together_run *runs,
			 size_t nruns, const struct test_figures *tf, const char *const *labels)
{
	size_t n = 0, k = 0;
	struct placed *ps;
	int err = 0;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].together && runs[i].has_start && runs[i].res)
			n += runs[i].res->nintervals;
	if (!n)
		return 0;
	ps = calloc(n, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	for (size_t i = 0; i < nruns; i++)
		for (size_t j = 0; runs[i].together && runs[i].has_start && runs[i].res &&
				   j < runs[i].res->nintervals; j++)
			ps[k++] = (struct placed){
				.round = runs[i].round, .run = &runs[i],
				.iv = &runs[i].res->intervals[j],
				.start = runs[i].res->intervals[j].start + runs[i].start_s,
			};
	qsort(ps, n, sizeof(*ps), cmp_placed);
	for (size_t i = 0; !err && i < n; i++)
		err = add_placed(r, &ps[i], labels[ps[i].run->test], &tf[ps[i].run->test]);
	free(ps);
	return err;
}

/* The span a run's intervals cover on the common clock. */
static bool span_of(const struct bp_together_run *run, double *from, double *to)
{
	const struct bp_result *res = run->res;

	if (!run->has_start || !res || !res->nintervals)
		return false;
	*from = run->start_s + res->intervals[0].start;
	*to = run->start_s + res->intervals[res->nintervals - 1].end;
	return true;
}

/* In each together round: did the tests run at the same time for most of the shorter's? */
static int check_overlap(struct bp_result *r, const struct bp_together_run *runs,
			 size_t nruns)
{
	int rounds = 0, err = 0;

	for (size_t i = 0; i < nruns; i++)
		if (runs[i].round > rounds)
			rounds = runs[i].round;
	for (int k = 1; !err && k <= rounds; k++) {
		double lo = -INFINITY, hi = INFINITY, shortest = INFINITY, from, to;
		size_t spans = 0;

		for (size_t i = 0; i < nruns; i++) {
			if (runs[i].round != k || !runs[i].together || !span_of(&runs[i], &from, &to))
				continue;
			lo = fmax(lo, from);
			hi = fmin(hi, to);
			shortest = fmin(shortest, to - from);
			spans++;
		}
		if (spans >= 2 && hi - lo < BP_TOGETHER_MIN_OVERLAP * shortest)
			err = bp_result_add_warning(r, "not-overlapping", "round %d: the tests ran "
				"at the same time for %.2f s of the shortest one's %.2f s: the figures "
				"together are partly figures alone", k, fmax(hi - lo, 0), shortest);
	}
	return err;
}

int bp_together_report(struct bp_result *r, const struct bp_together_run *runs, size_t nruns,
		       size_t ntests, const char *const *labels)
{
	struct test_figures *tf = calloc(ntests ? ntests : 1, sizeof(*tf));
	int err = tf ? 0 : -ENOMEM;

	if (tf)
		pick_figures(tf, runs, nruns, ntests);
	err = err ? err : add_figures(r, runs, nruns, tf, ntests, labels);
	err = err ? err : add_intervals(r, runs, nruns, tf, labels);
	err = err ? err : check_overlap(r, runs, nruns);
	free(tf);
	return err;
}
