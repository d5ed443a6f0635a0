#include "report/report_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double bp_report_num(const json_t *obj, const char *key)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *bp_report_str(const json_t *obj, const char *key)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

double bp_report_metric(const json_t *doc, const char *name, const char **unit)
{
	const json_t *ms = json_object_get(doc, "metrics"), *m;
	size_t i;

	if (!json_is_array(ms))
		return NAN;
	json_array_foreach(ms, i, m) {
		const char *n = bp_report_str(m, "name");

		if (n && !strcmp(n, name)) {
			if (unit)
				*unit = bp_report_str(m, "unit");
			return bp_report_num(m, "value");
		}
	}
	return NAN;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

const char *bp_report_interval_unit(const json_t *doc, const char *name)
{
	static const struct { const char *tail, *unit; } by_name[] = {
		{ ".bitrate", "bit/s" }, { ".pps", "pkt/s" }, { ".rate", "op/s" },
		{ ".bandwidth", "B/s" }, { ".percent", "percent" },
	};
	const char *unit = NULL;

	if (!isnan(bp_report_metric(doc, name, &unit)) && unit)
		return unit;
	for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++)
		if (ends_with(name, by_name[i].tail))
			return by_name[i].unit;
	if (!strcmp(name, "rtt") || !strcmp(name, "jitter") || !strncmp(name, "latency.", 8))
		return "ns";
	return NULL;
}

static struct bp_report_test *test_of(struct bp_report_data *d, const char *test)
{
	struct bp_report_test *t;

	for (size_t i = 0; i < d->ntests; i++)
		if (!strcmp(d->tests[i].test, test))
			return &d->tests[i];
	t = realloc(d->tests, (d->ntests + 1) * sizeof(*t));
	if (!t)
		return NULL;
	d->tests = t;
	t = &d->tests[d->ntests++];
	*t = (struct bp_report_test){ .test = test };
	return t;
}

/* The run's name, with " (2)", " (3)" when the test already has a series of that name. */
static char *unique_name(const struct bp_report_test *t, const char *name)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", name);
	for (int k = 2; k < 10000; k++) {
		bool taken = false;

		for (size_t i = 0; i < t->n && !taken; i++)
			taken = !strcmp(t->e[i].series, buf);
		if (!taken)
			break;
		snprintf(buf, sizeof(buf), "%s (%d)", name, k);
	}
	return strdup(buf);
}

static int add_entry(struct bp_report_data *d, const char *name, const json_t *doc)
{
	const char *test = bp_report_str(doc, "test");
	struct bp_report_test *t = test ? test_of(d, test) : NULL;
	struct bp_report_entry *e;

	if (!t)
		return -ENOMEM;
	e = realloc(t->e, (t->n + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	t->e = e;
	e[t->n].doc = doc;
	e[t->n].series = unique_name(t, name);
	if (!e[t->n].series)
		return -ENOMEM;
	t->n++;
	return 0;
}

int bp_report_data_build(struct bp_report_data *d, const struct bp_report_run *runs, size_t n,
			 char *err, size_t errlen)
{
	*d = (struct bp_report_data){ 0 };
	for (size_t r = 0; r < n; r++) {
		const json_t *kids = json_object_get(runs[r].doc, "results"), *k;
		size_t i;
		int rc = 0;

		if (!bp_report_str(runs[r].doc, "test")) {
			snprintf(err, errlen, "run '%s': not a boardperf result (no \"test\")",
				 runs[r].name);
			return -EINVAL;
		}
		/* a suite is drawn through its children; one without children is itself */
		if (json_is_array(kids) && json_array_size(kids)) {
			json_array_foreach(kids, i, k)
				if (bp_report_str(k, "test") && (rc = add_entry(d, runs[r].name, k)))
					break;
		} else {
			rc = add_entry(d, runs[r].name, runs[r].doc);
		}
		if (rc) {
			snprintf(err, errlen, "out of memory");
			return rc;
		}
	}
	return 0;
}

void bp_report_data_free(struct bp_report_data *d)
{
	for (size_t i = 0; i < d->ntests; i++) {
		for (size_t k = 0; k < d->tests[i].n; k++)
			free(d->tests[i].e[k].series);
		free(d->tests[i].e);
	}
	free(d->tests);
	*d = (struct bp_report_data){ 0 };
}
