/*
 * The live sink (live.h): text lines in the interval table's columns, or iperf3-style JSON
 * Lines. Every line is flushed as soon as it is written: stdout to a pipe is fully
 * buffered, and a line that waits in the buffer until the end is no live line.
 */
#include "result/live.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/term.h"
#include "result/render.h"
#include "result/text_table.h"

/*
 * Columns are fixed by the first line, before the figures of later ones are known: a
 * figure column is at least as wide as the widest figure of three digits ("9.38 Gbit/s",
 * "1.09 GiB", "12.3k op/s"), so the digits stay lined up from line to line.
 */
#define FIGURE_WIDTH 11
/* start and end, "%.2f" seconds: lined up to 999.99 s. */
#define TIME_WIDTH 6
/* Blanks between columns, as the end-of-test tables have. */
#define GAP "  "

struct bp_live {
	FILE *out;
	enum bp_live_format format;
	const struct bp_result *owner;  /* the result this sink prints for */
	size_t lines;
	char **cols;                    /* text: metric names of the columns */
	size_t *width;
	size_t ncols;
	int err;                        /* the first write error */
};

struct bp_live *bp_live_new(FILE *out, enum bp_live_format format)
{
	struct bp_live *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->out = out;
	l->format = format;
	return l;
}

static void free_columns(struct bp_live *l)
{
	for (size_t i = 0; i < l->ncols; i++)
		free(l->cols[i]);
	free(l->cols);
	free(l->width);
	l->cols = NULL;
	l->width = NULL;
	l->ncols = 0;
}

void bp_live_free(struct bp_live *l)
{
	if (!l)
		return;
	free_columns(l);
	free(l);
}

static void note_err(struct bp_live *l, int err)
{
	if (!l->err)
		l->err = err;
}

static void flush_line(struct bp_live *l)
{
	if (fflush(l->out) || ferror(l->out))
		note_err(l, -EIO);
}

/* {"event": event, "data": data} on one line; data is consumed. */
static void emit(struct bp_live *l, const char *event, json_t *data)
{
	json_t *o = json_object();

	if (!o || !data || json_object_set_new(o, "event", json_string(event)) ||
	    json_object_set_new(o, "data", json_incref(data))) {
		note_err(l, -ENOMEM);
		goto out;
	}
	/* Compact (one object per line), with the precision the --json document has. */
	if (json_dumpf(o, l->out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ||
	    fputc('\n', l->out) == EOF)
		note_err(l, -EIO);
	flush_line(l);
out:
	json_decref(o);
	json_decref(data);
}

/* What is known before the run: the document's first keys, as --json will have them. */
static json_t *start_json(const struct bp_result *r)
{
	json_t *d = json_object();

	if (!d)
		return NULL;
	if (json_object_set_new(d, "schema", json_string(BP_RESULT_SCHEMA)) ||
	    json_object_set_new(d, "test", r->test ? json_string(r->test) : json_null()) ||
	    json_object_set_new(d, "params", r->params ? json_incref(r->params) : json_object()) ||
	    json_object_set_new(d, "env", r->env ? json_incref(r->env) : json_object())) {
		json_decref(d);
		return NULL;
	}
	return d;
}

void bp_live_start(struct bp_live *l, const struct bp_result *r)
{
	if (!l)
		return;
	l->owner = r;
	if (l->format == BP_LIVE_JSON_STREAM)
		emit(l, "start", start_json(r));
}

/* s right-aligned in width (after the gap unless it is the first cell). */
static void put_cell(FILE *out, const char *s, size_t width, bool first)
{
	if (!first)
		fputs(GAP, out);
	for (size_t w = bp_text_width(s); w < width; w++)
		fputc(' ', out);
	bp_text_put(out, s);
}

/*
 * A column's heading: its metric's name, less "sender." when no figure of the line is the
 * receiver's (tcp and udp's live lines are the sender's, as iperf3's client's are).
 */
static const char *column_label(const struct bp_interval *iv, const char *name)
{
	static const char sender[] = "sender.";

	for (size_t j = 0; j < iv->nmetrics; j++)
		if (!strncmp(iv->metrics[j].name, "receiver.", 9))
			return name;
	return strncmp(name, sender, strlen(sender)) ? name : name + strlen(sender);
}

/* "span", "sender.span": the interval's own length, which start and end already say. */
static bool is_span(const char *name)
{
	const char *dot = strrchr(name, '.');

	return !strcmp(dot ? dot + 1 : name, "span");
}

/*
 * The columns, fixed by the first interval: by default those that fit the width (the
 * spans left out), every one with -v. The other figures of a line show only with -v. An
 * interval none of whose figures is a column (gpio --method all's next method) fixes them
 * again, under a heading line of its own.
 */
static int fix_columns(struct bp_live *l, const struct bp_interval *iv)
{
	size_t n = iv->nmetrics, used = 2 * TIME_WIDTH + strlen(GAP);
	bool all = l->owner->text_verbose > 0;
	int width = l->owner->text_width ? l->owner->text_width : BP_TERM_DEFAULT_WIDTH;

	l->cols = calloc(n ? n : 1, sizeof(*l->cols));
	l->width = calloc(n ? n : 1, sizeof(*l->width));
	if (!l->cols || !l->width)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name = iv->metrics[i].name;
		size_t w = bp_text_width(column_label(iv, name));

		w = w > FIGURE_WIDTH ? w : FIGURE_WIDTH;
		if (!all && (is_span(name) || used + strlen(GAP) + w > (size_t)width))
			continue;
		l->cols[l->ncols] = strdup(name);
		if (!l->cols[l->ncols])
			return -ENOMEM;
		l->width[l->ncols++] = w;
		used += strlen(GAP) + w;
	}
	return 0;
}

static const struct bp_metric *find_metric(const struct bp_interval *iv, const char *name)
{
	for (size_t j = 0; j < iv->nmetrics; j++)
		if (!strcmp(iv->metrics[j].name, name))
			return &iv->metrics[j];
	return NULL;
}

static bool is_column(const struct bp_live *l, const char *name)
{
	for (size_t c = 0; c < l->ncols; c++)
		if (!strcmp(l->cols[c], name))
			return true;
	return false;
}

/* An interval none of whose figures is a column (and that has figures). */
static bool new_columns(const struct bp_live *l, const struct bp_interval *iv)
{
	for (size_t j = 0; j < iv->nmetrics; j++)
		if (is_column(l, iv->metrics[j].name))
			return false;
	return iv->nmetrics > 0;
}

/* The column names. */
static void text_columns(struct bp_live *l, const struct bp_interval *iv)
{
	put_cell(l->out, "start", TIME_WIDTH, true);
	put_cell(l->out, "end", TIME_WIDTH, false);
	for (size_t c = 0; c < l->ncols; c++)
		put_cell(l->out, column_label(iv, l->cols[c]), l->width[c], false);
	fputc('\n', l->out);
}

static void text_line(struct bp_live *l, const struct bp_interval *iv)
{
	char buf[BP_TEXT_VALUE_LEN];

	if (!l->lines || new_columns(l, iv)) {
		int err;

		free_columns(l);
		err = fix_columns(l, iv);
		if (err) {
			note_err(l, err);
			return;
		}
		/* the header line before the first interval's line */
		if (!l->lines) {
			bp_render_text_header(l->out, l->owner);
			fputc('\n', l->out);
		}
		text_columns(l, iv);
	}
	snprintf(buf, sizeof(buf), "%.2f", iv->start);
	put_cell(l->out, buf, TIME_WIDTH, true);
	snprintf(buf, sizeof(buf), "%.2f", iv->end);
	put_cell(l->out, buf, TIME_WIDTH, false);
	for (size_t c = 0; c < l->ncols; c++) {
		const struct bp_metric *m = find_metric(iv, l->cols[c]);

		put_cell(l->out, m ? bp_text_value(buf, m->value, m->unit) : "-", l->width[c],
			 false);
	}
	for (size_t j = 0; l->owner->text_verbose > 0 && j < iv->nmetrics; j++) {
		const struct bp_metric *m = &iv->metrics[j];

		if (is_column(l, m->name))
			continue;
		fputs(GAP, l->out);
		bp_text_put(l->out, m->name);
		fputc('=', l->out);
		bp_text_put(l->out, bp_text_value(buf, m->value, m->unit));
	}
	fputc('\n', l->out);
	flush_line(l);
}

void bp_live_interval(struct bp_live *l, const struct bp_result *r, const struct bp_interval *iv)
{
	if (!l || !iv || !l->owner || r != l->owner)
		return;
	if (l->format == BP_LIVE_JSON_STREAM)
		emit(l, "interval", bp_interval_to_json(iv));
	else
		text_line(l, iv);
	l->lines++;
}

size_t bp_live_lines(const struct bp_live *l)
{
	return l ? l->lines : 0;
}

int bp_live_finish(struct bp_live *l, const struct bp_result *r)
{
	json_t *doc, *error;

	if (!l)
		return 0;
	if (l->format != BP_LIVE_JSON_STREAM)
		return l->err;
	doc = bp_result_to_json(r);
	if (!doc) {
		note_err(l, -ENOMEM);
		return l->err;
	}
	error = json_object_get(doc, "error");
	if (json_is_object(error))
		emit(l, "error", json_incref(error));
	emit(l, "end", doc);
	return l->err;
}
