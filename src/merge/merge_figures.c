/*
 * The testers' figures combined by their kind's rules: see merge.h. A figure is merged only
 * where every tester has it: a sum over some of them would be smaller than the whole without
 * saying so. One warning, not-merged, names what was left to the testers' own figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/merge.h"
#include "result/kind.h"
#include "result/latency_histogram.h"

/* What was not merged, for the one warning: "a, b (reason)". */
struct left_out {
	char text[1024];
	size_t len;
};

static void leave_out(struct left_out *l, const char *name, const char *why)
{
	int n;

	if (l->len >= sizeof(l->text) - 1)
		return;
	n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s%s (%s)", l->len ? "; " : "",
		     name, why);
	l->len = n < 0 ? l->len : l->len + (size_t)n;
	if (l->len >= sizeof(l->text))
		l->len = sizeof(l->text) - 1;
}

static double combine(enum bp_combine c, const double *v, size_t n)
{
	double x = v[0];

	for (size_t i = 1; i < n; i++) {
		switch (c) {
		case BP_COMBINE_SUM:
		case BP_COMBINE_MEAN: x += v[i]; break;
		case BP_COMBINE_MAX: x = v[i] > x ? v[i] : x; break;
		case BP_COMBINE_MIN: x = v[i] < x ? v[i] : x; break;
		default: break;
		}
	}
	return c == BP_COMBINE_MEAN ? x / (double)n : x;
}

/* A rule that makes one figure of several: sum, mean, max, min. */
static bool has_rule(const struct bp_metric_decl *d)
{
	return d && (d->combine == BP_COMBINE_SUM || d->combine == BP_COMBINE_MEAN ||
		     d->combine == BP_COMBINE_MAX || d->combine == BP_COMBINE_MIN);
}

static const struct bp_metric *in_list(const struct bp_metric *ms, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ms[i].name, name))
			return &ms[i];
	return NULL;
}

/* The metric lists of one place (the totals, or interval k) of each tester. */
struct place {
	const struct bp_metric *ms[BP_MERGE_MAX_TESTERS];
	size_t n[BP_MERGE_MAX_TESTERS];
};

/*
 * Adds to the list add() fills each figure of the place whose rule combines it and which
 * every tester has; the others go to out (NULL: left out silently, as an interval's are:
 * the totals' warning names them once). seen: names done.
 */
static int merge_place(const struct place *p, size_t nt, const struct bp_kind *k,
		       struct left_out *out, int (*add)(void *to, const struct bp_metric *m,
							 double v), void *to)
{
	json_t *seen = json_object();
	double v[BP_MERGE_MAX_TESTERS];
	int rc = seen ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < nt; i++) {
		for (size_t j = 0; !rc && j < p->n[i]; j++) {
			const struct bp_metric *m = &p->ms[i][j];
			const struct bp_metric_decl *d = bp_kind_metric(k, m->name);
			size_t have = 0;

			if (json_object_get(seen, m->name))
				continue;
			rc = json_object_set_new(seen, m->name, json_true()) ? -ENOMEM : 0;
			for (size_t o = 0; o < nt; o++) {
				const struct bp_metric *x = in_list(p->ms[o], p->n[o], m->name);

				if (x && isfinite(x->value))
					v[have++] = x->value;
			}
			if (!has_rule(d)) {
				/* each tester's own (the catalogue: no meaningful whole) */
				if (out && !d)
					leave_out(out, m->name, "not in this boardperf's catalogue");
			} else if (have < nt) {
				if (out)
					leave_out(out, m->name, "not every tester has it");
			} else if (!rc) {
				rc = add(to, m, combine(d->combine, v, nt));
			}
		}
	}
	json_decref(seen);
	return rc;
}

static int add_total(void *to, const struct bp_metric *m, double v)
{
	return bp_result_add_metric(to, m->name, v, m->unit, m->better);
}

static int add_to_interval(void *to, const struct bp_metric *m, double v)
{
	return bp_interval_add_metric(to, m->name, v, m->unit, m->better);
}

static const struct bp_latency *find_latency(const struct bp_result *t, const char *what)
{
	for (size_t i = 0; i < t->nlatency; i++)
		if (!strcmp(t->latency[i].what, what))
			return &t->latency[i];
	return NULL;
}

/*
 * Latency what from every tester's buckets added together; a tester without it, or whose
 * buckets do not check, leaves it out (why in *why). Percentiles off the sum, extremes
 * exact, the mean weighted by the counts: never an average of percentiles.
 */
static int merge_latency(struct bp_result *const *t, const char *const *names, size_t nt,
			 const char *what, struct bp_result *r, char *why, size_t whylen)
{
	struct bp_histo *sum = bp_histo_new(), *h;
	struct bp_histo_summary s;
	struct bp_latency out;
	double weighted = 0;
	char err[256];
	int rc = 0;

	if (!sum)
		return -ENOMEM;
	why[0] = '\0';
	for (size_t i = 0; i < nt && !why[0]; i++) {
		const struct bp_latency *l = find_latency(t[i], what);

		if (!l)
			snprintf(why, whylen, "%s has none", names[i]);
		else if (!l->histogram)
			snprintf(why, whylen, "%s's result carries no histogram", names[i]);
		else if (!l->unit || strcmp(l->unit, "ns"))
			snprintf(why, whylen, "%s's is not in ns", names[i]);
		else if (!(h = bp_latency_histogram_load(l, err, sizeof(err))))
			snprintf(why, whylen, "%s's %s", names[i], err);
		else {
			bp_histo_merge(sum, h);
			bp_histo_free(h);
			weighted += l->mean * (double)l->count;
		}
	}
	if (!why[0] && bp_histo_count(sum)) {
		bp_histo_summarize(sum, &s);
		out = (struct bp_latency){
			.what = what, .unit = "ns", .count = s.count, .min = s.min,
			.mean = weighted / (double)s.count, .p50 = s.p50, .p90 = s.p90,
			.p99 = s.p99, .p999 = s.p999, .p9999 = s.p9999, .max = s.max,
			.histogram = bp_latency_histogram_json(sum),
		};
		rc = out.histogram ? bp_result_add_latency(r, &out) : -ENOMEM;
		json_decref(out.histogram);
	}
	bp_histo_free(sum);
	return rc;
}

int bp_merge_figures(struct bp_result *const *t, const char *const *names, size_t n,
		     const struct bp_kind *k, struct bp_result *r)
{
	struct left_out out = { .len = 0 };
	json_t *seen = json_object();
	struct place p = { .n = { 0 } };
	size_t nint = t[0]->nintervals;
	char why[512];
	int rc;

	if (!seen)
		return -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		p.ms[i] = t[i]->metrics;
		p.n[i] = t[i]->nmetrics;
		nint = t[i]->nintervals < nint ? t[i]->nintervals : nint;
	}
	rc = merge_place(&p, n, k, &out, add_total, r);
	for (size_t i = 0; !rc && i < n; i++)
		for (size_t j = 0; !rc && j < t[i]->nlatency; j++) {
			const char *what = t[i]->latency[j].what;

			if (json_object_get(seen, what))
				continue;
			rc = json_object_set_new(seen, what, json_true()) ? -ENOMEM :
			     merge_latency(t, names, n, what, r, why, sizeof(why));
			if (!rc && why[0])
				leave_out(&out, what, why);
		}
	json_decref(seen);
	/* interval k of each tester: they started together, so their k-th seconds coincide
	 * (within the skew the merge checks) */
	for (size_t iv = 0; !rc && iv < nint; iv++) {
		const struct bp_interval *first = &t[0]->intervals[iv];
		struct bp_interval *to = bp_result_add_interval(r, first->start, first->end);

		if (!to)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			p.ms[i] = t[i]->intervals[iv].metrics;
			p.n[i] = t[i]->intervals[iv].nmetrics;
		}
		rc = merge_place(&p, n, k, NULL, add_to_interval, to);
	}
	if (!rc && out.len)
		rc = bp_result_add_warning(r, "not-merged", "figures left to each tester's own: %s",
					   out.text);
	return rc;
}
