#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_charts.h"
#include "report/report_figure.h"
#include "result/kind.h"

/* Figures worth a line over time: rates, latencies, shares. Byte and packet counts per
 * interval repeat the rate; spans and cwnd are bookkeeping. */
static bool charted_unit(const char *unit)
{
	static const char *const units[] = { "bit/s", "pkt/s", "op/s", "B/s", "ns", "percent",
					     "Hz" };

	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i]))
			return true;
	return false;
}

static bool charted_metric(const json_t *doc, const char *name)
{
	size_t n = strlen(name);

	if (n > 5 && !strcmp(name + n - 5, ".span"))
		return false;
	return charted_unit(bp_report_interval_unit(doc, name));
}

/* Each interval metric's name once, in the order the runs first show it. */
static json_t *interval_names(const struct bp_report_test *t)
{
	json_t *names = json_array(), *iv;
	size_t i;

	for (size_t k = 0; names && k < t->n; k++)
		json_array_foreach(json_object_get(t->e[k].doc, "intervals"), i, iv) {
			const char *name;
			json_t *v;

			json_object_foreach(json_object_get(iv, "metrics"), name, v) {
				bool seen = false;
				size_t j;
				json_t *s;

				json_array_foreach(names, j, s)
					seen = seen || !strcmp(json_string_value(s), name);
				if (!seen && json_is_number(v) && charted_metric(t->e[k].doc, name))
					json_array_append_new(names, json_string(name));
			}
		}
	return names;
}

static int interval_chart(FILE *out, const struct bp_report_test *t, const char *metric)
{
	struct bp_report_lines l = { 0 };
	char id[160], title[200];
	const char *unit = NULL;
	int rc = 0;

	for (size_t k = 0; k < t->n && !rc; k++) {
		const json_t *ivs = json_object_get(t->e[k].doc, "intervals"), *iv;
		size_t i;

		if (!unit)
			unit = bp_report_interval_unit(t->e[k].doc, metric);
		rc = bp_report_lines_series(&l, t->e[k].series, json_array_size(ivs));
		json_array_foreach(ivs, i, iv) {
			double x = bp_report_num(iv, "end");
			double y = bp_report_num(json_object_get(iv, "metrics"), metric);

			if (!rc && isfinite(x) && isfinite(y))
				bp_report_lines_point(&l, x, y);
		}
		if (!rc)
			bp_report_lines_end(&l);
	}
	snprintf(id, sizeof(id), "%s.interval.%s", t->test, metric);
	snprintf(title, sizeof(title), "%s: %s over time", t->test, metric);
	if (!rc) {
		struct bp_svg_line_chart c = {
			.id = id, .title = title,
			.x = { "time since the start", "s", BP_SVG_LINEAR, true },
			.y = { metric, unit, BP_SVG_LINEAR, true },
		};

		rc = bp_report_figure_line(out, &c, &l);
	}
	bp_report_lines_free(&l);
	return rc;
}

int bp_report_interval_charts(FILE *out, const struct bp_report_test *t)
{
	json_t *names, *name;
	size_t i;
	int rc = 0;

	const struct bp_kind *k = bp_kind_find(t->test);

	/* a kind with charts of its own has no time series (rfc2544's intervals are trials) */
	if (k && k->charts != BP_CHARTS_INTERVALS)
		return 0;
	names = interval_names(t);
	if (!names)
		return -ENOMEM;
	json_array_foreach(names, i, name)
		if (!rc)
			rc = interval_chart(out, t, json_string_value(name));
	json_decref(names);
	return rc;
}

static const struct { const char *key; double p; } percentiles[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 }, { "p99.99", 99.99 },
};
#define NPERCENTILES (sizeof(percentiles) / sizeof(percentiles[0]))

/* Log time when every point is above zero (a tail spans decades), else linear. */
static enum bp_svg_scale latency_scale(const struct bp_report_lines *l)
{
	for (size_t s = 0; s < l->n; s++)
		for (size_t i = 0; i < l->s[s].n; i++)
			if (!(l->s[s].y[i] > 0))
				return BP_SVG_LINEAR;
	return BP_SVG_LOG;
}

static int latency_chart(FILE *out, const struct bp_report_test *t, const char *what)
{
	struct bp_report_lines l = { 0 };
	char id[160], title[200];
	const char *unit = "ns";
	int rc = 0;

	for (size_t k = 0; k < t->n && !rc; k++) {
		const json_t *lat = json_object_get(json_object_get(t->e[k].doc, "latency"), what);

		if (bp_report_str(lat, "unit"))
			unit = bp_report_str(lat, "unit");
		rc = bp_report_lines_series(&l, t->e[k].series, NPERCENTILES);
		for (size_t i = 0; !rc && i < NPERCENTILES; i++) {
			double y = bp_report_num(lat, percentiles[i].key);

			if (isfinite(y))
				bp_report_lines_point(&l, percentiles[i].p, y);
		}
		if (!rc)
			bp_report_lines_end(&l);
	}
	snprintf(id, sizeof(id), "%s.latency.%s", t->test, what);
	snprintf(title, sizeof(title), "%s: %s latency by percentile", t->test, what);
	if (!rc) {
		struct bp_svg_line_chart c = {
			.id = id, .title = title,
			.x = { "percentile", NULL, BP_SVG_PERCENTILE, false },
			.y = { "latency", unit, latency_scale(&l), true },
		};

		rc = bp_report_figure_line(out, &c, &l);
	}
	bp_report_lines_free(&l);
	return rc;
}

int bp_report_latency_charts(FILE *out, const struct bp_report_test *t)
{
	json_t *seen = json_object();
	int rc = seen ? 0 : -ENOMEM;

	/* each summary's name once, in the order the runs first show it */
	for (size_t k = 0; k < t->n && !rc; k++) {
		const char *what;
		json_t *v;

		json_object_foreach(json_object_get(t->e[k].doc, "latency"), what, v)
			if (!rc && json_is_object(v) && !json_object_get(seen, what)) {
				json_object_set_new(seen, what, json_true());
				rc = latency_chart(out, t, what);
			}
	}
	json_decref(seen);
	return rc;
}
