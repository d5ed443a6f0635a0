/*
 * The JSON renderer: the result in the contract shape (docs/ARCHITECTURE.md, "The result
 * model and the JSON contract"). Scripts, CI and the store read it, so every key of the
 * contract is always present (empty when there is nothing to say) and the key order is
 * fixed. Reals are written with 15 significant digits (see bp_render_json).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "result/render.h"
#include "result/render_streams.h"

/* JSON has no NaN or infinity; null says "no figure" and keeps the document valid. */
json_t *bp_json_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}


/* A string that may be absent: null rather than a missing key. */
static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The object itself with a new reference, or {} when there is none. */
static json_t *object_or_empty(json_t *obj)
{
	return obj ? json_incref(obj) : json_object();
}

/* Every json_*_set_new() below consumes its value even on failure, so none leaks. */
static json_t *metric_json(const struct bp_metric *m)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (json_object_set_new(o, "name", string_or_null(m->name)) ||
	    json_object_set_new(o, "value", bp_json_number(m->value)) ||
	    json_object_set_new(o, "unit", string_or_null(m->unit)) ||
	    json_object_set_new(o, "better", json_string(bp_better_name(m->better)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *latency_json(const struct bp_latency *l)
{
	const struct { const char *key; double v; } stats[] = {
		{ "min", l->min }, { "mean", l->mean }, { "p50", l->p50 }, { "p90", l->p90 },
		{ "p99", l->p99 }, { "p99.9", l->p999 }, { "p99.99", l->p9999 },
		{ "max", l->max },
	};
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = json_object_set_new(o, "unit", string_or_null(l->unit));
	err |= json_object_set_new(o, "count", json_integer((json_int_t)l->count));
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		err |= json_object_set_new(o, stats[i].key, bp_json_number(stats[i].v));
	/* the buckets themselves, for `merge` (result/latency_histogram.h) */
	if (l->histogram)
		err |= json_object_set(o, "histogram", l->histogram);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *bp_metrics_map_json(const struct bp_metric *metrics, size_t n)
{
	json_t *m = json_object();

	for (size_t i = 0; m && i < n; i++)
		if (json_object_set_new(m, metrics[i].name, bp_json_number(metrics[i].value))) {
			json_decref(m);
			return NULL;
		}
	return m;
}

/* Interval metrics are a name -> value map: units and direction are the totals' own. */
json_t *bp_interval_to_json(const struct bp_interval *iv)
{
	json_t *o = json_object(), *m = bp_metrics_map_json(iv->metrics, iv->nmetrics);
	int err = !o || !m;

	if (!err)
		err = json_object_set_new(o, "start", bp_json_number(iv->start)) ||
		      json_object_set_new(o, "end", bp_json_number(iv->end));
	if (!err) {
		err = json_object_set_new(o, "metrics", m);
		m = NULL;
	}
	if (!err && iv->monitor)  /* docs/json.md, "The monitor" */
		err = json_object_set_new(o, "monitor", json_incref(iv->monitor));
	json_decref(m);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *warning_json(const struct bp_warning *w)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (json_object_set_new(o, "code", string_or_null(w->code)) ||
	    json_object_set_new(o, "message", string_or_null(w->message))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* null when the test measured, else {"code", "message"}: the key is always there. */
static json_t *error_json(const struct bp_result_error *e)
{
	json_t *o;

	if (!e->code)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	if (json_object_set_new(o, "code", json_string(e->code)) ||
	    json_object_set_new(o, "message", string_or_null(e->message))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Arrays built from the model's own arrays; NULL when any element cannot be built. */
static json_t *metrics_array(const struct bp_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nmetrics; i++)
		if (json_array_append_new(a, metric_json(&r->metrics[i])))
			goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

static json_t *latency_object(const struct bp_result *r)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < r->nlatency; i++)
		if (json_object_set_new(o, r->latency[i].what, latency_json(&r->latency[i])))
			goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

static json_t *intervals_array(const struct bp_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nintervals; i++)
		if (json_array_append_new(a, bp_interval_to_json(&r->intervals[i])))
			goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

static json_t *warnings_array(const struct bp_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nwarnings; i++)
		if (json_array_append_new(a, warning_json(&r->warnings[i])))
			goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

static json_t *children_array(const struct bp_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->nchildren; i++)
		if (json_array_append_new(a, bp_result_to_json(r->children[i])))
			goto fail;
	return a;
fail:
	json_decref(a);
	return NULL;
}

/*
 * Key order is the contract's. "cpu" is null when the test did not measure it, "error"
 * null when it did not fail, and "results" appears only for a suite.
 */
json_t *bp_result_to_json(const struct bp_result *r)
{
	json_t *o = json_object();
	int err;

	if (!o)
		return NULL;
	err = json_object_set_new(o, "schema", json_string(BP_RESULT_SCHEMA));
	err |= json_object_set_new(o, "test", string_or_null(r->test));
	if (r->chips)  /* gpio-list's chips, right after what says what the document is */
		err |= json_object_set_new(o, "chips", json_incref(r->chips));
	err |= json_object_set_new(o, "params", object_or_empty(r->params));
	err |= json_object_set_new(o, "env", object_or_empty(r->env));
	err |= json_object_set_new(o, "metrics", metrics_array(r));
	err |= json_object_set_new(o, "latency", latency_object(r));
	err |= json_object_set_new(o, "intervals", intervals_array(r));
	err |= bp_streams_json_into(o, r);  /* "streams": only a test with streams has it */
	err |= json_object_set_new(o, "cpu", r->cpu ? json_incref(r->cpu) : json_null());
	if (r->monitor)  /* docs/json.md, "The monitor": only a test the monitor watched has it */
		err |= json_object_set_new(o, "monitor", json_incref(r->monitor));
	if (r->merged)  /* docs/json.md, "One result of several testers": merge's only */
		err |= json_object_set_new(o, "merged", json_incref(r->merged));
	err |= json_object_set_new(o, "warnings", warnings_array(r));
	err |= json_object_set_new(o, "error", error_json(&r->error));
	if (r->nchildren)
		err |= json_object_set_new(o, "results", children_array(r));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int bp_render_json(FILE *out, const struct bp_result *r)
{
	json_t *j = bp_result_to_json(r);
	int err;

	if (!j)
		return -ENOMEM;
	/*
	 * jansson's default of 17 digits prints the binary noise of a double: 48.7 becomes
	 * 48.700000000000003. 15 significant digits give back every decimal of up to 15
	 * digits as written (48.7, 941.2e6) and lie far beyond the precision of any
	 * measurement; a computed value may read back a last bit off, which no figure of
	 * ours can tell apart. (CSV keeps the shortest exact round-trip text.)
	 */
	err = json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			 JSON_REAL_PRECISION(15)) ? -EIO : 0;
	json_decref(j);
	if (!err && (fputc('\n', out) == EOF || ferror(out)))
		err = -EIO;
	return err;
}
