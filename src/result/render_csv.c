/*
 * The CSV renderer: one long table a spreadsheet or a shell pipeline reads,
 *
 *   test,scope,start,end,name,value,unit,better,message
 *
 * scope is "total" (a metric), "latency" (one statistic of a latency summary, named
 * latency.<what>.<stat>), "interval" (with start and end in seconds), "cpu" and "env"
 * (one row per leaf of those trees, named by its dotted path, array elements as
 * name[i]; env only when the result asks for its environment to be shown) and
 * "warning" (name is the code, message the sentence) and "error" (the one row of a
 * result that could not measure, after what it did measure: name is the error's code,
 * message its line), and for tcp and udp "stream" and "stream-interval" (each per-stream
 * figure, named stream.<id>.<sender|receiver>.<field>: render_streams.h). A suite's
 * children follow it
 * under the one header line.
 *
 * Quoting follows RFC 4180 (a field with a comma, quote, CR or LF is quoted and inner
 * quotes are doubled); lines end in LF, as Unix tools expect and CSV readers accept.
 * Numbers are the shortest text that reads back as the same double ("0.1", not
 * "0.10000000000000001"); a NaN or infinite value is an empty field.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"
#include "result/csv_field.h"
#include "result/render.h"
#include "result/render_streams.h"
#include "result/text_tree.h"

/* The fixed part of every row; the renderer fills it field by field. */
struct csv_row {
	const char *test, *scope, *name, *unit, *better, *message;
	double start, end, value;  /* NaN: empty field */
	const char *value_text;    /* instead of value, for env and cpu leaves */
};

void bp_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void bp_csv_number(FILE *out, double v)
{
	char buf[32];

	if (isfinite(v))
		fputs(bp_format_double_exact(buf, sizeof(buf), v), out);
}

static void put_row(FILE *out, const struct csv_row *row)
{
	bp_csv_field(out, row->test);
	fputc(',', out);
	bp_csv_field(out, row->scope);
	fputc(',', out);
	bp_csv_number(out, row->start);
	fputc(',', out);
	bp_csv_number(out, row->end);
	fputc(',', out);
	bp_csv_field(out, row->name);
	fputc(',', out);
	if (row->value_text)
		bp_csv_field(out, row->value_text);
	else
		bp_csv_number(out, row->value);
	fputc(',', out);
	bp_csv_field(out, row->unit);
	fputc(',', out);
	bp_csv_field(out, row->better);
	fputc(',', out);
	bp_csv_field(out, row->message);
	fputc('\n', out);
}

/* A row for the result r with every optional field empty. */
static struct csv_row row_for(const struct bp_result *r, const char *scope)
{
	return (struct csv_row){
		.test = r->test, .scope = scope,
		.start = NAN, .end = NAN, .value = NAN,
	};
}

static void put_metric(FILE *out, struct csv_row row, const struct bp_metric *m)
{
	row.name = m->name;
	row.value = m->value;
	row.unit = m->unit;
	row.better = bp_better_name(m->better);
	put_row(out, &row);
}

static int put_latency(FILE *out, const struct bp_result *r, const struct bp_latency *l)
{
	const struct { const char *stat; double v; } stats[] = {
		{ "count", (double)l->count }, { "min", l->min }, { "mean", l->mean },
		{ "p50", l->p50 }, { "p90", l->p90 }, { "p99", l->p99 }, { "p99.9", l->p999 },
		{ "p99.99", l->p9999 }, { "max", l->max },
	};
	struct csv_row row = row_for(r, "latency");

	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		char *name;
		bool count = i == 0;

		if (asprintf(&name, "latency.%s.%s", l->what, stats[i].stat) < 0)
			return -ENOMEM;
		row.name = name;
		row.value = stats[i].v;
		row.unit = count ? "count" : l->unit;
		row.better = bp_better_name(count ? BP_BETTER_NONE : BP_BETTER_LOWER);
		put_row(out, &row);
		free(name);
	}
	return 0;
}

/* One row per scalar leaf under v, named by its path from the tree's root. */
static int put_leaves(FILE *out, struct csv_row row, const json_t *v, const char *path)
{
	const char *key;
	json_t *child;
	size_t i;
	char *sub;
	char buf[32];
	int err = 0;

	if (json_is_object(v)) {
		json_object_foreach(bp_unconst(v), key, child) {
			if (asprintf(&sub, "%s%s%s", path, *path ? "." : "", key) < 0)
				return -ENOMEM;
			err = put_leaves(out, row, child, sub);
			free(sub);
			if (err)
				return err;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if (asprintf(&sub, "%s[%zu]", path, i) < 0)
				return -ENOMEM;
			err = put_leaves(out, row, child, sub);
			free(sub);
			if (err)
				return err;
		}
	} else {
		/* Leaves keep their JSON text: a string stays a string, 7 stays "7". */
		row.name = path;
		row.value_text = bp_json_scalar_text(v, BP_SCALAR_PLAIN, buf, sizeof(buf));
		put_row(out, &row);
	}
	return 0;
}

static void put_intervals(FILE *out, const struct bp_result *r)
{
	struct csv_row row = row_for(r, "interval");

	for (size_t i = 0; i < r->nintervals; i++) {
		row.start = r->intervals[i].start;
		row.end = r->intervals[i].end;
		for (size_t j = 0; j < r->intervals[i].nmetrics; j++)
			put_metric(out, row, &r->intervals[i].metrics[j]);
	}
}

/* A per-stream figure (render_streams.c walks them): scope stream or stream-interval. */
struct stream_rows {
	FILE *out;
	const struct bp_result *r;
};

static int put_stream_figure(void *arg, const struct bp_stream_figure *f)
{
	const struct stream_rows *sr = arg;
	struct csv_row row = row_for(sr->r, f->interval ? "stream-interval" : "stream");

	row.start = f->start;
	row.end = f->end;
	row.name = f->name;
	row.value = f->value;
	row.value_text = f->value_text;
	row.unit = f->unit;
	row.better = f->value_text ? NULL : bp_better_name(f->better);
	put_row(sr->out, &row);
	return 0;
}

static void put_warnings(FILE *out, const struct bp_result *r)
{
	struct csv_row row = row_for(r, "warning");

	for (size_t i = 0; i < r->nwarnings; i++) {
		row.name = r->warnings[i].code;
		row.message = r->warnings[i].message;
		put_row(out, &row);
	}
}

static void put_error(FILE *out, const struct bp_result *r)
{
	struct csv_row row = row_for(r, "error");

	if (!r->error.code)
		return;
	row.name = r->error.code;
	row.message = r->error.message;
	put_row(out, &row);
}

/* The rows of r and then of its children, depth first. */
static int put_result(FILE *out, const struct bp_result *r)
{
	int err = 0;

	if (r->text_show_env && r->env)
		err = put_leaves(out, row_for(r, "env"), r->env, "");
	for (size_t i = 0; !err && i < r->nmetrics; i++)
		put_metric(out, row_for(r, "total"), &r->metrics[i]);
	for (size_t i = 0; !err && i < r->nlatency; i++)
		err = put_latency(out, r, &r->latency[i]);
	if (!err)
		put_intervals(out, r);
	if (!err)
		err = bp_streams_figures(r, put_stream_figure, &(struct stream_rows){ out, r });
	if (!err && r->cpu)
		err = put_leaves(out, row_for(r, "cpu"), r->cpu, "");
	if (!err && r->monitor)  /* docs/json.md, "The monitor": the summary's leaves */
		err = put_leaves(out, row_for(r, "monitor"), r->monitor, "");
	if (!err) {
		put_warnings(out, r);
		put_error(out, r);
	}
	for (size_t i = 0; !err && i < r->nchildren; i++)
		err = put_result(out, r->children[i]);
	return err;
}

int bp_render_csv(FILE *out, const struct bp_result *r)
{
	int err;

	fputs("test,scope,start,end,name,value,unit,better,message\n", out);
	err = put_result(out, r);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
