#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_charts.h"
#include "report/report_figure.h"
#include "result/kind.h"

/* A bar chart of the named metrics (categories[c] shown, names[c] looked up), per run. */
static int metric_bars(FILE *out, const struct bp_report_test *t, const char *id,
		       const char *title, const char *x_title, const char *y_title, const char *unit,
		       const char *const *categories, const char *const *names, size_t ncat)
{
	const char **series = calloc(t->n ? t->n : 1, sizeof(*series));
	double *v = calloc(t->n * ncat + 1, sizeof(*v));
	int rc = -ENOMEM;

	if (series && v) {
		for (size_t k = 0; k < t->n; k++) {
			series[k] = t->e[k].series;
			for (size_t c = 0; c < ncat; c++)
				v[k * ncat + c] = bp_report_metric(t->e[k].doc, names[c], NULL);
		}
		struct bp_svg_bar_chart b = {
			.id = id, .title = title, .x_title = x_title,
			.y = { y_title, unit, BP_SVG_LINEAR, true },
			.ncategories = ncat, .categories = categories,
			.nseries = t->n, .series = series, .values = v,
		};
		rc = bp_report_figure_bar(out, &b);
	}
	free(series);
	free(v);
	return rc;
}

/* Adds name to the array unless it holds it; 0 or -ENOMEM. */
static int add_once(json_t *names, const char *name)
{
	size_t i;
	json_t *s;

	json_array_foreach(names, i, s)
		if (!strcmp(json_string_value(s), name))
			return 0;
	return json_array_append_new(names, json_string(name)) ? -ENOMEM : 0;
}

/* The strings of a JSON array as a C array (pointers into it); NULL when out of memory. */
static const char **strings_of(const json_t *a)
{
	const char **v = calloc(json_array_size(a) + 1, sizeof(*v));

	for (size_t i = 0; v && i < json_array_size(a); i++)
		v[i] = json_string_value(json_array_get(a, i));
	return v;
}

static int compare_sizes(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* One bar per frame size (every size any run has, in order), per run. */
static int rfc2544_bars(FILE *out, const struct bp_report_test *t, const char *figure,
			const char *unit, const char *title)
{
	long sizes[64];
	size_t n = 0;
	char cats[64][24], names[64][64], id[96];
	const char *catp[64], *namep[64];

	for (size_t k = 0; k < t->n; k++) {
		const json_t *ms = json_object_get(t->e[k].doc, "metrics"), *m;
		size_t i;

		json_array_foreach(ms, i, m) {
			const char *name = bp_report_str(m, "name");
			char tail[64];
			long size;
			bool seen = false;

			if (!name || sscanf(name, "frame%ld.zero_loss.%63s", &size, tail) != 2 ||
			    strcmp(tail, figure) || size <= 0)
				continue;
			for (size_t j = 0; j < n; j++)
				seen = seen || sizes[j] == size;
			if (!seen && n < 64)
				sizes[n++] = size;
		}
	}
	if (!n)
		return 0;
	qsort(sizes, n, sizeof(sizes[0]), compare_sizes);
	for (size_t j = 0; j < n; j++) {
		snprintf(cats[j], sizeof(cats[j]), "%ld B", sizes[j]);
		snprintf(names[j], sizeof(names[j]), "frame%ld.zero_loss.%s", sizes[j], figure);
		catp[j] = cats[j];
		namep[j] = names[j];
	}
	snprintf(id, sizeof(id), "rfc2544.zero_loss.%s", figure);
	return metric_bars(out, t, id, title, "Ethernet frame size",
			   !strcmp(figure, "fps") ? "frames per second" : "bit rate", unit, catp,
			   namep, n);
}

/* A cpu item measured on N workers too: ITEM.all beside ITEM. */
static bool has_all(const json_t *doc, const char *item)
{
	char all[160];

	snprintf(all, sizeof(all), "%s.all", item);
	return !isnan(bp_report_metric(doc, all, NULL));
}

/* The metrics of unit (op/s or B/s; NULL: any), every run's, in first-seen order: with
 * threads only items measured on all workers too, with items_only not ITEM.all and such. */
static json_t *cpu_items(const struct bp_report_test *t, const char *unit, bool threads,
			 bool items_only)
{
	json_t *items = json_array();

	for (size_t k = 0; items && k < t->n; k++) {
		const json_t *m;
		size_t i;

		json_array_foreach(json_object_get(t->e[k].doc, "metrics"), i, m) {
			const char *name = bp_report_str(m, "name"), *u = bp_report_str(m, "unit");
			const char *dot = name ? strrchr(name, '.') : NULL;

			if (!name || !u || (unit && strcmp(u, unit)) || (threads &&
			    !has_all(t->e[k].doc, name)))
				continue;
			/* ITEM.workerK, ITEM.all, ITEM.scaling, ITEM.cpu are figures of an item */
			if (items_only && dot && (!strncmp(dot, ".worker", 7) || !strcmp(dot, ".all") ||
				    !strcmp(dot, ".scaling") || !strcmp(dot, ".cpu")))
				continue;
			if (add_once(items, name))
				break;
		}
	}
	return items;
}

/* ITEM at one thread and ITEM.all at the run's worker count, per run. */
static int cpu_threads_chart(FILE *out, const struct bp_report_test *t, const char *item)
{
	struct bp_report_lines l = { 0 };
	char id[200], title[200], all[200];
	const char *unit = NULL;
	int rc = 0;

	snprintf(all, sizeof(all), "%s.all", item);
	for (size_t k = 0; k < t->n && !rc; k++) {
		const json_t *doc = t->e[k].doc;
		double one = bp_report_metric(doc, item, unit ? NULL : &unit);
		double sum = bp_report_metric(doc, all, NULL);
		double workers = bp_report_num(json_object_get(doc, "params"), "workers");

		rc = bp_report_lines_series(&l, t->e[k].series, 2);
		if (!rc && isfinite(one))
			bp_report_lines_point(&l, 1, one);
		if (!rc && isfinite(sum) && isfinite(workers) && workers > 1)
			bp_report_lines_point(&l, workers, sum);
		if (!rc)
			bp_report_lines_end(&l);
	}
	snprintf(id, sizeof(id), "cpu.threads.%s", item);
	snprintf(title, sizeof(title), "cpu: %s by threads (one core, then all workers)", item);
	if (!rc) {
		struct bp_svg_line_chart c = {
			.id = id, .title = title,
			.x = { "threads", "count", BP_SVG_LINEAR, true },
			.y = { item, unit, BP_SVG_LINEAR, true },
		};

		rc = bp_report_figure_line(out, &c, &l);
	}
	bp_report_lines_free(&l);
	return rc;
}

static int cpu_one_core(FILE *out, const struct bp_report_test *t, const char *unit,
			const char *idpart)
{
	json_t *items = cpu_items(t, unit, false, true);
	const char **v = items ? strings_of(items) : NULL;
	char id[64], title[96];
	int rc = v ? 0 : -ENOMEM;

	snprintf(id, sizeof(id), "cpu.one_core.%s", idpart);
	snprintf(title, sizeof(title), "cpu: one core, %s", unit);
	if (!rc && json_array_size(items))
		rc = metric_bars(out, t, id, title, "item", "rate", unit, v, v,
				 json_array_size(items));
	free(v);
	json_decref(items);
	return rc;
}

static int cpu_charts(FILE *out, const struct bp_report_test *t)
{
	json_t *items = cpu_items(t, NULL, true, true);
	const char **v = items ? strings_of(items) : NULL;
	char (*scaling)[160] = v ? calloc(json_array_size(items) + 1, sizeof(*scaling)) : NULL;
	const char **sp = scaling ? calloc(json_array_size(items) + 1, sizeof(*sp)) : NULL;
	size_t n = json_array_size(items);
	int rc = sp ? 0 : -ENOMEM;

	if (!rc)
		rc = cpu_one_core(out, t, "op/s", "op_s");
	if (!rc)
		rc = cpu_one_core(out, t, "B/s", "B_s");
	for (size_t i = 0; !rc && i < n; i++) {
		rc = cpu_threads_chart(out, t, v[i]);
		snprintf(scaling[i], sizeof(scaling[i]), "%s.scaling", v[i]);
		sp[i] = scaling[i];
	}
	if (!rc && n)
		rc = metric_bars(out, t, "cpu.scaling", "cpu: scaling (all workers / (N x one "
				 "core))", "item", "scaling", "percent", v, sp, n);
	free(sp);
	free(scaling);
	free(v);
	json_decref(items);
	return rc;
}

/* "latency.4KiB" -> 4096; 0 when the name is not a working set's latency. */
static double working_set(const char *name)
{
	char unit[8] = "";
	double v;

	if (sscanf(name, "latency.%lf%7s", &v, unit) != 2 || !(v > 0))
		return 0;
	if (!strcmp(unit, "KiB"))
		return v * 1024;
	if (!strcmp(unit, "MiB"))
		return v * 1024 * 1024;
	if (!strcmp(unit, "GiB"))
		return v * 1024 * 1024 * 1024;
	return !strcmp(unit, "B") ? v : 0;
}

static int mem_latency_chart(FILE *out, const struct bp_report_test *t)
{
	struct bp_report_lines l = { 0 };
	int rc = 0;

	for (size_t k = 0; k < t->n && !rc; k++) {
		const json_t *ms = json_object_get(t->e[k].doc, "metrics"), *m;
		size_t i;

		rc = bp_report_lines_series(&l, t->e[k].series, json_array_size(ms));
		json_array_foreach(ms, i, m) {
			const char *name = bp_report_str(m, "name");
			double x = name ? working_set(name) : 0, y = bp_report_num(m, "value");

			if (!rc && x > 0 && isfinite(y))
				bp_report_lines_point(&l, x, y);
		}
		if (!rc)
			bp_report_lines_end(&l);
	}
	if (!rc && l.n) {
		struct bp_svg_line_chart c = {
			.id = "mem.latency", .title = "mem: random-access latency by working set",
			.x = { "working set", "B", BP_SVG_LOG, false },
			.y = { "latency per access", "ns", BP_SVG_LINEAR, true },
		};

		rc = bp_report_figure_line(out, &c, &l);
	}
	bp_report_lines_free(&l);
	return rc;
}

static int mem_charts(FILE *out, const struct bp_report_test *t)
{
	json_t *items = cpu_items(t, "B/s", false, false);
	const char **v = items ? strings_of(items) : NULL;
	int rc = v ? 0 : -ENOMEM;

	if (!rc && json_array_size(items))
		rc = metric_bars(out, t, "mem.bandwidth", "mem: bandwidth (one core, .all: every "
				 "worker)", "operation", "bandwidth", "B/s", v, v,
				 json_array_size(items));
	if (!rc)
		rc = mem_latency_chart(out, t);
	free(v);
	json_decref(items);
	return rc;
}

int bp_report_bench_charts(FILE *out, const struct bp_report_test *t)
{
	const struct bp_kind *k = bp_kind_find(t->test);
	int rc = 0;

	switch (k ? k->charts : BP_CHARTS_INTERVALS) {
	case BP_CHARTS_FRAME_SIZES:
		rc = rfc2544_bars(out, t, "fps", "pkt/s", "rfc2544: zero-loss rate per frame size");
		if (!rc)
			rc = rfc2544_bars(out, t, "bitrate", "bit/s",
					  "rfc2544: zero-loss bit rate per frame size");
		break;
	case BP_CHARTS_CPU_ITEMS:
		rc = cpu_charts(out, t);
		break;
	case BP_CHARTS_MEM:
		rc = mem_charts(out, t);
		break;
	case BP_CHARTS_INTERVALS:
		break;
	}
	return rc;
}
