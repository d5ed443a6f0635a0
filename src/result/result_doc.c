#include "result/result_doc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/unconst.h"
#include "result/kind.h"

static int bad(char *err, size_t errlen, const char *where, const char *what)
{
	snprintf(err, errlen, "%s: expected %s", where, what);
	return -EINVAL;
}

/* A number, or null for "no figure" (NaN, as the JSON renderer writes one). */
static int number_of(const json_t *v, double *out)
{
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return 0;
}

static int better_of(const json_t *v, enum bp_better *out)
{
	static const enum bp_better all[] = { BP_BETTER_NONE, BP_BETTER_HIGHER, BP_BETTER_LOWER };

	for (size_t i = 0; json_is_string(v) && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(json_string_value(v), bp_better_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return -EINVAL;
}

/* A string or null (NULL). */
static int opt_string(const json_t *v, const char **out)
{
	if (json_is_null(v) || !v) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return -EINVAL;
	*out = json_string_value(v);
	return 0;
}

static int take_metrics(struct bp_result *r, const json_t *a, char *err, size_t errlen)
{
	char where[64];
	size_t i;
	json_t *m;

	if (!json_is_array(a))
		return bad(err, errlen, "metrics", "an array");
	json_array_foreach(a, i, m) {
		const char *name, *unit;
		enum bp_better better;
		double v;

		snprintf(where, sizeof(where), "metrics[%zu]", i);
		if (!json_is_object(m) || !json_is_string(json_object_get(m, "name")))
			return bad(err, errlen, where, "an object with a name");
		name = json_string_value(json_object_get(m, "name"));
		if (number_of(json_object_get(m, "value"), &v))
			return bad(err, errlen, where, "a value that is a number or null");
		if (opt_string(json_object_get(m, "unit"), &unit))
			return bad(err, errlen, where, "a unit that is a string");
		if (better_of(json_object_get(m, "better"), &better))
			return bad(err, errlen, where, "better: higher, lower or none");
		if (bp_result_add_metric(r, name, v, unit, better))
			return -ENOMEM;
	}
	return 0;
}

static int take_latency(struct bp_result *r, const json_t *o, char *err, size_t errlen)
{
	const char *what;
	json_t *l;

	if (!json_is_object(o))
		return bad(err, errlen, "latency", "an object");
	/* jansson iterates through a non-const pointer; it only reads */
	json_object_foreach((json_t *)bp_unconst(o), what, l) {
		struct bp_latency lat = { .what = what };
		struct { const char *key; double *v; } stats[] = {
			{ "min", &lat.min }, { "mean", &lat.mean }, { "p50", &lat.p50 },
			{ "p90", &lat.p90 }, { "p99", &lat.p99 }, { "p99.9", &lat.p999 },
			{ "p99.99", &lat.p9999 }, { "max", &lat.max },
		};
		json_t *count = json_is_object(l) ? json_object_get(l, "count") : NULL;

		if (!json_is_integer(count) || json_integer_value(count) < 0 ||
		    opt_string(json_object_get(l, "unit"), &lat.unit))
			return bad(err, errlen, "latency", "summaries with a unit and a count");
		lat.count = (uint64_t)json_integer_value(count);
		for (size_t k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
			json_t *v = json_object_get(l, stats[k].key);

			if (!v)
				*stats[k].v = NAN;
			else if (number_of(v, stats[k].v))
				return bad(err, errlen, "latency", "statistics that are numbers");
		}
		/* kept as it came: `merge` checks every bucket before it adds one */
		lat.histogram = json_object_get(l, "histogram");
		if (lat.histogram && !json_is_object(lat.histogram))
			return bad(err, errlen, "latency", "a histogram that is an object");
		if (bp_result_add_latency(r, &lat))
			return -ENOMEM;
	}
	return 0;
}

static int take_interval(struct bp_result *r, const json_t *o, const char *where, char *err,
			 size_t errlen)
{
	const json_t *ms = json_is_object(o) ? json_object_get(o, "metrics") : NULL;
	const struct bp_kind *kind = r->test ? bp_kind_find(r->test) : NULL;
	struct bp_interval *iv;
	double start, end;
	const char *name;
	json_t *v;

	if (!json_is_object(ms) || number_of(json_object_get(o, "start"), &start) ||
	    number_of(json_object_get(o, "end"), &end))
		return bad(err, errlen, where, "an object with start, end and metrics");
	iv = bp_result_add_interval(r, start, end);
	if (!iv)
		return -ENOMEM;
	json_object_foreach((json_t *)bp_unconst(ms), name, v) {
		/* JSON's intervals carry values only: the unit is the total's, else the kind's */
		const struct bp_metric *total = bp_result_find_metric(r, name);
		const struct bp_metric_decl *d = total ? NULL : bp_kind_metric(kind, name);
		const char *unit = total ? total->unit : d ? d->unit : "";
		double x;

		/* a borrowed figure's unit is its own kind's, when the document has that test */
		if (d && !strcmp(unit, "="))
			unit = kind->borrowed_unit ? kind->borrowed_unit(r, name, d) : NULL;
		if (number_of(v, &x))
			return bad(err, errlen, where, "metrics that are numbers or null");
		if (bp_interval_add_metric(iv, name, x, unit ? unit : "",
					   total ? total->better : d ? d->better : BP_BETTER_NONE))
			return -ENOMEM;
	}
	return 0;
}

static int take_intervals(struct bp_result *r, const json_t *a, char *err, size_t errlen)
{
	char where[64];
	size_t i;
	json_t *o;
	int rc;

	if (!json_is_array(a))
		return bad(err, errlen, "intervals", "an array");
	json_array_foreach(a, i, o) {
		snprintf(where, sizeof(where), "intervals[%zu]", i);
		rc = take_interval(r, o, where, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int take_warnings(struct bp_result *r, const json_t *a, char *err, size_t errlen)
{
	size_t i;
	json_t *w;

	if (!json_is_array(a))
		return bad(err, errlen, "warnings", "an array");
	json_array_foreach(a, i, w) {
		const json_t *code = json_object_get(w, "code"), *msg = json_object_get(w, "message");

		if (!json_is_string(code) || !json_is_string(msg))
			return bad(err, errlen, "warnings", "objects with a code and a message");
		if (bp_result_add_warning(r, json_string_value(code), "%s", json_string_value(msg)))
			return -ENOMEM;
	}
	return 0;
}

static int take_error(struct bp_result *r, const json_t *e, char *err, size_t errlen)
{
	const char *msg;

	if (!e || json_is_null(e))
		return 0;
	if (!json_is_object(e) || !json_is_string(json_object_get(e, "code")) ||
	    opt_string(json_object_get(e, "message"), &msg))
		return bad(err, errlen, "error", "null or an object with a code");
	return bp_result_set_error(r, json_string_value(json_object_get(e, "code")), "%s",
				   msg ? msg : "");
}

/* An object-valued key the model keeps as JSON: absent or null leaves it unset. */
static int take_object(json_t **dst, const json_t *v, const char *key, char *err,
		       size_t errlen)
{
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(err, errlen, key, "an object");
	*dst = json_incref(bp_unconst(v));  /* a reference more; nothing written */
	return 0;
}

/*
 * The per-stream figures as the JSON renderer spreads them (result/render_streams.c): the
 * end's under "streams", each interval's in its own "streams" (null past the bound), back
 * into the model's {"end": [...], "intervals": [...]}.
 */
static int take_streams(struct bp_result *r, const json_t *doc, char *err, size_t errlen)
{
	const json_t *end = json_object_get(doc, "streams"), *ivs = json_object_get(doc, "intervals");
	json_t *per = json_array(), *model;
	size_t i;
	json_t *iv;

	if (!json_is_array(end)) {
		json_decref(per);
		return bad(err, errlen, "streams", "an array");
	}
	json_array_foreach(ivs, i, iv) {
		const json_t *s = json_object_get(iv, "streams");

		if (s && !json_is_array(s) && !json_is_null(s)) {
			json_decref(per);
			return bad(err, errlen, "intervals[].streams", "an array or null");
		}
		json_array_append_new(per, s ? json_incref(bp_unconst(s)) : json_null());
	}
	model = json_pack("{s:O, s:o}", "end", end, "intervals", per);
	if (!model)
		return -ENOMEM;
	bp_result_set_streams(r, model);
	return 0;
}

static struct bp_result *from_json(const json_t *doc, int depth, char *err, size_t errlen);

static int take_children(struct bp_result *r, const json_t *a, int depth, char *err,
			 size_t errlen)
{
	char sub[256];
	size_t i;
	json_t *c;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return bad(err, errlen, "results", "an array");
	if (depth >= BP_RESULT_DOC_DEPTH)
		return bad(err, errlen, "results", "at most 4 levels of nesting");
	json_array_foreach(a, i, c) {
		struct bp_result *child = from_json(c, depth + 1, sub, sizeof(sub));

		if (!child) {
			snprintf(err, errlen, "results[%zu].%s", i, sub);
			return -EINVAL;
		}
		if (bp_result_add_child(r, child))
			return -ENOMEM;
	}
	return 0;
}

static int fill(struct bp_result *r, const json_t *doc, int depth, char *err, size_t errlen)
{
	json_t *params = NULL, *env = NULL, *cpu = NULL;
	int rc = take_object(&params, json_object_get(doc, "params"), "params", err, errlen);

	bp_result_set_params(r, params);
	rc = rc ? rc : take_object(&env, json_object_get(doc, "env"), "env", err, errlen);
	bp_result_set_env(r, env);
	rc = rc ? rc : take_object(&cpu, json_object_get(doc, "cpu"), "cpu", err, errlen);
	bp_result_set_cpu(r, cpu);
	if (!rc && json_object_get(doc, "streams"))
		rc = take_streams(r, doc, err, errlen);
	if (!rc && json_object_get(doc, "chips")) {
		json_t *c = json_object_get(doc, "chips");

		if (!json_is_array(c))
			return bad(err, errlen, "chips", "an array");
		bp_result_set_chips(r, json_incref(c));
	}
	/* metrics and children first: the intervals take their units from them (together's
	 * from the test they borrow a figure of) */
	rc = rc ? rc : take_metrics(r, json_object_get(doc, "metrics"), err, errlen);
	rc = rc ? rc : take_latency(r, json_object_get(doc, "latency"), err, errlen);
	rc = rc ? rc : take_children(r, json_object_get(doc, "results"), depth, err, errlen);
	rc = rc ? rc : take_intervals(r, json_object_get(doc, "intervals"), err, errlen);
	rc = rc ? rc : take_warnings(r, json_object_get(doc, "warnings"), err, errlen);
	rc = rc ? rc : take_error(r, json_object_get(doc, "error"), err, errlen);
	return rc;
}

static struct bp_result *from_json(const json_t *doc, int depth, char *err, size_t errlen)
{
	const json_t *schema = json_object_get(doc, "schema"), *test = json_object_get(doc, "test");
	struct bp_result *r;
	int rc;

	if (!json_is_object(doc) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), BP_RESULT_SCHEMA)) {
		bad(err, errlen, "schema", "a " BP_RESULT_SCHEMA " document");
		return NULL;
	}
	if (!json_is_string(test)) {
		bad(err, errlen, "test", "a string");
		return NULL;
	}
	r = bp_result_new(json_string_value(test));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = fill(r, doc, depth, err, errlen);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		bp_result_free(r);
		return NULL;
	}
	return r;
}

struct bp_result *bp_result_from_json(const json_t *doc, char *err, size_t errlen)
{
	return from_json(doc, 0, err, errlen);
}
