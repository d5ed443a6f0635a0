/*
 * The testers and what they share: see merge.h. Each document is checked as another board's
 * bytes are (result/result_doc.h) before anything is added; then the figures
 * (merge_figures.c), each tester's own figures and start beside them, the overlap of their
 * spans, and each tester's warnings under its name.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"
#include "merge/merge.h"
#include "result/kind.h"
#include "result/render.h"
#include "result/result_doc.h"

struct tester {
	const struct bp_merge_input *in;
	struct bp_result *res;  /* its document read back; NULL when it has none */
	char missing[512];      /* why it is not merged ("" when it is) */
	double start_s;         /* its first byte, epoch seconds (env.start); NaN: not known */
	double span_s;          /* how long it measured; NaN: not known */
};

__attribute__((format(printf, 3, 4)))
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A document as one tester's result, or why it is not one that merges. */
static int read_tester(struct tester *t, char *err, size_t errlen)
{
	const json_t *doc = t->in->doc;
	char why[256];

	if (!doc) {
		snprintf(t->missing, sizeof(t->missing), "%s", t->in->why ? t->in->why : "no result");
		return 0;
	}
	if (json_object_get(doc, "merged"))
		return refuse(err, errlen, "'%s' is a merged result already: merge the testers' "
			      "own results", t->in->source);
	if (json_object_get(doc, "results"))
		return refuse(err, errlen, "'%s' is a suite's result (run, together, --repeat): "
			      "merge one test's results", t->in->source);
	t->res = bp_result_from_json(doc, why, sizeof(why));
	if (!t->res)
		return refuse(err, errlen, "'%s': %s", t->in->source, why);
	if (t->res->error.code)
		snprintf(t->missing, sizeof(t->missing), "its test failed: %s",
			 t->res->error.message ? t->res->error.message : t->res->error.code);
	else if (!t->res->nmetrics && !t->res->nlatency)
		snprintf(t->missing, sizeof(t->missing), "its result holds no figures");
	return 0;
}

static double number_at(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(o, a), b);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* When the tester sent its first byte (--start-at records it) and for how long it measured. */
static void place_in_time(struct tester *t)
{
	const struct bp_result *r = t->res;
	const json_t *time = json_object_get(r->params, "time");

	t->start_s = number_at(r->env, "start", "actual_epoch_s");
	if (r->nintervals)
		t->span_s = r->intervals[r->nintervals - 1].end - r->intervals[0].start;
	else
		t->span_s = json_is_number(time) ? json_number_value(time) : NAN;
}

/* The parameters every tester shares: its K/N and its board's --label aside, the same. */
static bool own_param(const char *key)
{
	return !strcmp(key, "share") || !strcmp(key, "share_rate") ||
	       !strcmp(key, "share_bitrate") || !strcmp(key, "label");
}

/* The first tester's parameters without its own, and merge's --label (the stored run's). */
static json_t *shared_params(const struct bp_result *first, const json_t *label)
{
	json_t *p = first->params ? json_deep_copy(first->params) : json_object();
	const char *key;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(p, tmp, key, v)
		if (own_param(key))
			json_object_del(p, key);
	if (p && json_is_string(label) && json_object_set(p, "label", bp_unconst(label))) {
		json_decref(p);
		return NULL;
	}
	return p;
}

/* "bitrate (b2), time (b3)": the parameters in which a tester differs from the first. */
static void params_differ(const struct tester *ts, size_t n, const struct tester *first,
			  char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *key;
		json_t *v;

		if (ts[i].missing[0] || &ts[i] == first)
			continue;
		json_object_foreach(ts[i].res->params, key, v) {
			int k;

			if (own_param(key) || json_equal(v, json_object_get(first->res->params, key)))
				continue;
			k = snprintf(buf + used, len - used, "%s%s (%s)", used ? ", " : "", key,
				     ts[i].in->name);
			if (k < 0 || (size_t)k >= len - used)
				return;
			used += (size_t)k;
		}
	}
}

static json_t *latency_object(const struct bp_result *r)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < r->nlatency; i++) {
		const struct bp_latency *l = &r->latency[i];

		json_t *summary = json_pack("{s:I, s:o, s:o, s:o, s:o}",
					    "count", (json_int_t)l->count,
					    "p50", bp_json_number(l->p50),
					    "p99", bp_json_number(l->p99),
					    "mean", bp_json_number(l->mean),
					    "max", bp_json_number(l->max));

		if (json_object_set_new(o, l->what, summary)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* One tester's entry in "merged": its own figures, share and start. */
static json_t *tester_json(const struct tester *t, double first_start)
{
	const json_t *share = t->res ? json_object_get(t->res->params, "share") : NULL;
	json_t *o = json_pack("{s:s, s:s, s:O, s:o, s:o, s:o}", "name", t->in->name,
			      "source", t->in->source, "share", share ? share : json_null(),
			      "start_epoch_s", bp_json_number(t->res ? t->start_s : NAN),
			      "start_offset_ms",
			      bp_json_number(t->res ? (t->start_s - first_start) * 1e3 : NAN),
			      "span_s", bp_json_number(t->res ? t->span_s : NAN));
	json_t *codes = json_array();
	int err = !o || !codes;

	for (size_t i = 0; !err && t->res && i < t->res->nwarnings; i++)
		err = json_array_append_new(codes, json_string(t->res->warnings[i].code));
	if (!err && t->res) {
		err = json_object_set_new(o, "metrics", bp_metrics_map_json(t->res->metrics,
										   t->res->nmetrics));
		err |= json_object_set_new(o, "latency", latency_object(t->res));
	}
	err = err ? err : json_object_set(o, "warnings", codes);
	if (!err && t->missing[0])
		err = json_object_set_new(o, "missing", json_string(t->missing));
	json_decref(codes);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * The testers' spans against each other: how far apart their first bytes left and how much
 * of the test all of them ran at once, into merged; the warning when they start apart.
 */
static int check_spans(const struct tester *ts, size_t n, struct bp_result *r, json_t *merged,
		       double *first_start)
{
	double first = INFINITY, last = -INFINITY, end = INFINITY, longest = 0;
	const char *first_name = NULL, *last_name = NULL, *unknown = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct tester *t = &ts[i];

		if (t->missing[0])
			continue;
		if (!isfinite(t->start_s) || !isfinite(t->span_s)) {
			unknown = unknown ? unknown : t->in->name;
			continue;
		}
		if (t->start_s < first)
			first = t->start_s, first_name = t->in->name;
		if (t->start_s > last)
			last = t->start_s, last_name = t->in->name;
		end = t->start_s + t->span_s < end ? t->start_s + t->span_s : end;
		longest = t->span_s > longest ? t->span_s : longest;
	}
	*first_start = first;
	if (unknown) {
		*first_start = NAN;
		return json_object_set_new(merged, "start_skew_ms", json_null()) ||
		       json_object_set_new(merged, "overlap_percent", json_null()) ? -ENOMEM :
		       bp_result_add_warning(r, "starts-unknown", "%s was not started with "
					     "--start-at: when the testers ran against each other "
					     "is not known, nor whether their loads overlapped",
					     unknown);
	}
	if (!first_name || longest <= 0)
		return 0;
	if (json_object_set_new(merged, "start_skew_ms", bp_json_number((last - first) * 1e3)) ||
	    json_object_set_new(merged, "overlap_percent",
				bp_json_number(end > last ? (end - last) / longest * 100 : 0)))
		return -ENOMEM;
	if (last - first <= BP_MERGE_SKEW_SHARE * longest)
		return 0;
	return bp_result_add_warning(r, "starts-skewed", "the testers' first bytes left %.1f ms "
				     "apart (%s first, %s last), %.1f %% of the %.3g s test (more "
				     "than %.0f %%): the merged figures add loads that did not all "
				     "run at once", (last - first) * 1e3, first_name, last_name,
				     (last - first) / longest * 100, longest,
				     BP_MERGE_SKEW_SHARE * 100);
}

/* The merged result's own environment: this boardperf's build, not any board's inventory. */
static void merged_env(struct bp_result *r)
{
	if (!json_is_object(r->env))
		return;
	json_object_del(r->env, "inventory");
	json_object_del(r->env, "path");
	json_object_del(r->env, "start");
}

static int carry_warnings(const struct tester *ts, size_t n, struct bp_result *r,
			  char *missing, size_t len, size_t *nmissing)
{
	size_t used = 0;
	int rc = 0;

	*nmissing = 0;
	missing[0] = '\0';
	for (size_t i = 0; !rc && i < n; i++) {
		const struct tester *t = &ts[i];

		if (t->missing[0]) {
			int k = snprintf(missing + used, len - used, "%s%s (%s)", used ? "; " : "",
					 t->in->name, t->missing);

			used = k < 0 || (size_t)k >= len - used ? len - 1 : used + (size_t)k;
			(*nmissing)++;
			rc = bp_result_add_warning(r, "tester-missing", "%s: %s", t->in->name,
						   t->missing);
			continue;
		}
		for (size_t w = 0; !rc && w < t->res->nwarnings; w++)
			rc = bp_result_add_warning(r, t->res->warnings[w].code, "%s: %s",
						   t->in->name, t->res->warnings[w].message);
	}
	return rc;
}

static int build(struct tester *ts, size_t n, struct bp_result *r, char *err, size_t errlen)
{
	struct bp_result *good[BP_MERGE_MAX_TESTERS];
	const char *names[BP_MERGE_MAX_TESTERS];
	const struct tester *first = NULL;
	const struct bp_kind *k;
	json_t *merged, *list;
	char buf[1024];
	size_t ngood = 0, nmissing;
	double first_start;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		rc = read_tester(&ts[i], err, errlen);
		if (rc || !ts[i].res)
			continue;
		if (first && strcmp(ts[i].res->test, first->res->test))
			return refuse(err, errlen, "'%s' is a %s result, '%s' a %s one: the results "
				      "of one test merge", first->in->source, first->res->test,
				      ts[i].in->source, ts[i].res->test);
		first = first ? first : &ts[i];
		if (!ts[i].missing[0]) {
			place_in_time(&ts[i]);
			good[ngood] = ts[i].res;
			names[ngood++] = ts[i].in->name;
		}
	}
	if (rc)
		return rc;
	if (!first)
		return refuse(err, errlen, "none of the %zu testers has a result to merge", n);
	k = bp_kind_find(first->res->test);
	if (!k)
		return refuse(err, errlen, "'%s': this boardperf has no catalogue for test %s, so "
			      "no rule to merge its figures by", first->in->source, first->res->test);
	free(r->test);
	r->test = strdup(first->res->test);
	if (!r->test)
		return -ENOMEM;
	bp_result_set_params(r, shared_params(first->res, json_object_get(r->params, "label")));
	merged_env(r);
	merged = json_object();
	list = json_array();
	bp_result_set_merged(r, merged);
	if (!merged || !list || json_object_set_new(merged, "testers", list) || !r->params)
		return -ENOMEM;
	rc = ngood ? bp_merge_figures(good, names, ngood, k, r) : 0;
	rc = rc ? rc : check_spans(ts, n, r, merged, &first_start);
	for (size_t i = 0; !rc && i < n; i++)
		rc = json_array_append_new(list, tester_json(&ts[i], first_start)) ? -ENOMEM : 0;
	params_differ(ts, n, first, buf, sizeof(buf));
	if (!rc && buf[0])
		rc = bp_result_add_warning(r, "params-differ", "the testers ran with different "
					   "parameters: %s", buf);
	rc = rc ? rc : carry_warnings(ts, n, r, buf, sizeof(buf), &nmissing);
	if (rc || !nmissing)
		return rc;
	snprintf(err, errlen, "%zu of %zu testers gave no result to merge: %s", nmissing, n, buf);
	rc = bp_result_set_error(r, "tester-missing", "%s", err);
	return rc ? rc : -ENOENT;
}

int bp_merge_build(const struct bp_merge_input *in, size_t n, struct bp_result *r, char *err,
		   size_t errlen)
{
	struct tester ts[BP_MERGE_MAX_TESTERS];
	int rc;

	if (!n || n > BP_MERGE_MAX_TESTERS)
		return refuse(err, errlen, "%zu testers: expected 1 to %d", n,
			      BP_MERGE_MAX_TESTERS);
	for (size_t i = 0; i < n; i++)
		ts[i] = (struct tester){ .in = &in[i], .start_s = NAN, .span_s = NAN };
	rc = build(ts, n, r, err, errlen);
	for (size_t i = 0; i < n; i++)
		bp_result_free(ts[i].res);
	return rc;
}
