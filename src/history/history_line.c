#include "history/history_line.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "core/text_escape.h"
#include "result/render.h"
#include "core/term.h"
#include "result/headline.h"
#include "result/kind.h"
#include "result/text_table.h"

struct gather {
	struct bp_history_entry *e;
	bool any_direction;  /* pass 1 found a figure with a direction: take only those */
	const char *const *headline;  /* the test's own (result/headline.h), or NULL */
	bool found[BP_HISTORY_FIGURES];
};

static void set_figure(struct bp_history_entry *e, int i, const struct bp_store_metric *m)
{
	snprintf(e->figures[i].name, sizeof(e->figures[0].name), "%s", m->name);
	snprintf(e->figures[i].unit, sizeof(e->figures[0].unit), "%s", m->unit ? m->unit : "");
	e->figures[i].value = m->value;
}

/* The headline metrics into their slots, in the headline's order. */
static int take_headline(const struct bp_store_metric *m, void *arg)
{
	struct gather *g = arg;

	for (int i = 0; i < BP_HISTORY_FIGURES && g->headline[i]; i++) {
		if (!g->found[i] && bp_metric_pattern_matches(g->headline[i], m->name)) {
			set_figure(g->e, i, m);
			g->found[i] = true;
		}
	}
	return 0;
}

/* Slots the result did not have close up. */
static void compact_headline(struct gather *g)
{
	struct bp_history_entry *e = g->e;

	e->nfigures = 0;
	for (int i = 0; i < BP_HISTORY_FIGURES; i++)
		if (g->found[i])
			e->figures[e->nfigures++] = e->figures[i];
}

static int take_figure(const struct bp_store_metric *m, void *arg)
{
	struct gather *g = arg;
	struct bp_history_entry *e = g->e;
	bool directed = m->better && strcmp(m->better, "none");

	if (g->any_direction && !directed)
		return 0;
	if (e->nfigures >= BP_HISTORY_FIGURES)
		return 1;
	set_figure(e, e->nfigures++, m);
	return 0;
}

static int find_direction(const struct bp_store_metric *m, void *arg)
{
	(void)arg;
	return m->better && strcmp(m->better, "none") ? 1 : 0;
}

static int take_test(const struct bp_store_row *row, void *arg)
{
	struct bp_history_entry *e = arg;
	size_t n = strlen(e->tests);

	snprintf(e->tests + n, sizeof(e->tests) - n, "%s%s", n ? ", " : "", row->test);
	return 0;
}

/* The error code, read from the document only when there is nothing else to show. */
static void take_error(struct bp_store *s, struct bp_history_entry *e)
{
	json_t *doc = bp_store_get(s, e->row.id);
	const char *code = json_string_value(json_object_get(json_object_get(doc, "error"),
							     "code"));

	if (code)
		snprintf(e->error, sizeof(e->error), "%s", code);
	json_decref(doc);
}

int bp_history_gather(struct bp_store *s, const struct bp_store_row *row,
		      struct bp_history_entry *e)
{
	struct gather g = { .e = e };
	int rc;

	memset(e, 0, sizeof(*e));
	e->row = *row;
	struct bp_headline buf;
	const struct bp_headline *h = bp_headline_of(row->test, &buf);

	g.headline = h ? h->metrics : NULL;
	if (g.headline) {
		rc = bp_store_metrics(s, row->id, take_headline, &g);
		if (rc < 0)
			return rc;
		compact_headline(&g);
	}
	if (!e->nfigures) {
		/* No headline of its own (or none of it): the first figures with a
		 * direction, else the first at all. */
		rc = bp_store_metrics(s, row->id, find_direction, NULL);
		if (rc < 0)
			return rc;
		g.any_direction = rc == 1;
		rc = bp_store_metrics(s, row->id, take_figure, &g);
		if (rc < 0)
			return rc;
	}
	rc = bp_store_children(s, row->id, take_test, e);
	if (rc < 0)
		return rc;
	if (!e->nfigures)
		take_error(s, e);
	return 0;
}

char *bp_history_time(char *buf, size_t len, long long unix_s)
{
	time_t t = (time_t)unix_s;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "?");
	return buf;
}

void bp_history_print_head(FILE *out)
{
	fprintf(out, "%6s  %-19s  %-16s  %-8s  %s\n", "id", "time (UTC)", "label", "test",
		"figures");
}

/* s escaped as a log line's (core/text_escape.h): an imported file's names are any text. */
static char *escape(const char *s)
{
	size_t len = strlen(s);
	char *safe = malloc(4 * len + 1);

	if (safe)
		bp_text_escape(safe, 4 * len + 1, s, len, 0);
	return safe;
}

/* piece at col, on a new indented line first when it would pass width; the new col. */
static int put_piece(FILE *out, const char *piece, int col, int width)
{
	char *safe = escape(piece);
	int w;

	if (!safe)
		return col;
	w = (int)bp_text_width(safe);
	if (col + 1 + w > width && col > 8) {
		fputs("\n       ", out);
		col = 7;
	}
	fprintf(out, col < 0 ? "%s" : " %s", safe);
	free(safe);
	return col + 1 + w;
}

/*
 * One line whatever the file held; the figures go on under it, indented, past the
 * terminal's width (each figure whole).
 */
void bp_history_print_line(FILE *out, const struct bp_history_entry *e)
{
	char when[32], v[BP_TEXT_VALUE_LEN], *line = NULL, piece[512];
	size_t len = 0;
	int width = bp_term_width(STDOUT_FILENO), col;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	fprintf(m, "%6lld  %-19s  %-16s  %-8s", (long long)e->row.id,
		bp_history_time(when, sizeof(when), e->row.time_unix),
		e->row.label[0] ? e->row.label : "-", e->row.test);
	if (fclose(m) || !line) {
		free(line);
		return;
	}
	col = put_piece(out, line, -1, width);
	free(line);
	for (int i = 0; i < e->nfigures; i++) {
		snprintf(piece, sizeof(piece), "%s %s%s", e->figures[i].name,
			 bp_text_value(v, e->figures[i].value, e->figures[i].unit),
			 i + 1 < e->nfigures ? "," : e->tests[0] ? ";" : "");
		col = put_piece(out, piece, col, width);
	}
	if (e->tests[0]) {
		snprintf(piece, sizeof(piece), "tests: %s", e->tests);
		col = put_piece(out, piece, col, width);
	}
	if (e->error[0]) {
		snprintf(piece, sizeof(piece), "error: %s", e->error);
		col = put_piece(out, piece, col, width);
	}
	if (e->row.parent) {
		snprintf(piece, sizeof(piece), "(in #%lld)", (long long)e->row.parent);
		put_piece(out, piece, col, width);
	}
	fputc('\n', out);
}

json_t *bp_history_entry_json(const struct bp_history_entry *e)
{
	time_t t = (time_t)e->row.time_unix;
	json_t *figures = json_array();
	char iso[32] = "";
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (int i = 0; i < e->nfigures; i++)
		json_array_append_new(figures, json_pack("{s:s, s:o, s:s}",
			"name", e->figures[i].name,
			"value", isfinite(e->figures[i].value) ? json_real(e->figures[i].value)
							       : json_null(),
			"unit", e->figures[i].unit));
	return json_pack("{s:I, s:o, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:o}",
			 "id", (json_int_t)e->row.id,
			 "parent", e->row.parent ? json_integer(e->row.parent) : json_null(),
			 "time", iso, "test", e->row.test, "label", e->row.label,
			 "board", e->row.board, "version", e->row.version, "figures", figures,
			 "tests", e->tests,
			 "error", e->error[0] ? json_string(e->error) : json_null());
}
