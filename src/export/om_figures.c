#include "export/om_figures.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TIMESTAMP_FAMILY "boardperf_result_timestamp_seconds"

static void free_figure(struct bp_om_figure *g)
{
	free(g->board);
	free(g->label);
	free(g->test);
	free(g->metric);
	free(g->unit);
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

int bp_om_figures_add(struct bp_om_figures *set, const char *board, const char *label,
		      const char *test, const char *metric, const char *unit, double value,
		      int64_t time_unix)
{
	struct bp_om_figure g = { .time_unix = time_unix, .seq = set->n };

	if (!metric || bp_om_name_of(test, metric, unit, &g.name)) {
		set->unnamed++;
		return 0;
	}
	g.value = value * g.name.scale;
	if (!isfinite(g.value)) {
		set->not_finite++;
		return 0;
	}
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct bp_om_figure *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->v = v;
		set->cap = cap;
	}
	g.board = dup_or_empty(board);
	g.label = dup_or_empty(label);
	g.test = dup_or_empty(test);
	g.metric = dup_or_empty(metric);
	g.unit = dup_or_empty(unit);
	if (!g.board || !g.label || !g.test || !g.metric || !g.unit) {
		free_figure(&g);
		return -ENOMEM;
	}
	/* Label values as they will be written: two that differ only in bytes that are not
	 * UTF-8 are one series. */
	bp_om_utf8_clean(g.board);
	bp_om_utf8_clean(g.label);
	bp_om_utf8_clean(g.test);
	set->v[set->n++] = g;
	return 0;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/*
 * Family, then its unit (a clash of units comes out next to each other; a unit before none:
 * "x.bytes" as a count loses to "x" in bytes), then labels, then the order they were added
 * (of two figures that come out as one series, the first stays).
 */
static int cmp_figure(const void *pa, const void *pb)
{
	const struct bp_om_figure *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->name.family, b->name.family)) ||
	    (c = (!*a->name.unit) - (!*b->name.unit)) ||
	    (c = strcmp(a->name.unit, b->name.unit)) || (c = strcmp(a->test, b->test)) ||
	    (c = strcmp(a->board, b->board)) || (c = strcmp(a->label, b->label)) ||
	    (c = cmp_str(a->name.label, b->name.label)) ||
	    (c = strcmp(a->name.label_value, b->name.label_value)))
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_series(const struct bp_om_figure *a, const struct bp_om_figure *b)
{
	return !strcmp(a->name.family, b->name.family) && !strcmp(a->test, b->test) &&
	       !strcmp(a->board, b->board) && !strcmp(a->label, b->label) &&
	       !cmp_str(a->name.label, b->name.label) &&
	       !strcmp(a->name.label_value, b->name.label_value);
}

static void write_family_header(FILE *out, enum bp_om_format f, const struct bp_om_figure *g)
{
	char help[384];

	/* The dotted name with the part that became a label named by it: "sha256.<block_size>". */
	if (g->name.label)
		snprintf(help, sizeof(help), "boardperf's %.*s<%s>%s (stored in %s): the newest "
			 "figure per board, label and test", (int)g->name.part_off, g->metric,
			 g->name.label, g->metric + g->name.part_off + g->name.part_len,
			 *g->unit ? g->unit : "no unit");
	else
		snprintf(help, sizeof(help), "boardperf's %s (stored in %s): the newest figure per "
			 "board, label and test", g->metric, *g->unit ? g->unit : "no unit");
	bp_om_family(out, f, g->name.family, BP_OM_GAUGE, g->name.unit, help);
}

static void write_sample(FILE *out, const struct bp_om_figure *g)
{
	struct bp_om_label l[4] = {
		{ "test", g->test }, { "board", g->board }, { "label", g->label },
		{ g->name.label ? g->name.label : "", g->name.label ? g->name.label_value : "" },
	};

	bp_om_sample(out, BP_OM_GAUGE, g->name.family, l, 4, g->value);
}

/* By (test, board, label), newest first. */
static int cmp_result(const void *pa, const void *pb)
{
	const struct bp_om_figure *a = *(const struct bp_om_figure *const *)pa;
	const struct bp_om_figure *b = *(const struct bp_om_figure *const *)pb;
	int c;

	if ((c = strcmp(a->test, b->test)) || (c = strcmp(a->board, b->board)) ||
	    (c = strcmp(a->label, b->label)))
		return c;
	return a->time_unix > b->time_unix ? -1 : a->time_unix < b->time_unix;
}

static void write_timestamps(const struct bp_om_figures *set, FILE *out, enum bp_om_format f)
{
	const struct bp_om_figure **by = malloc(set->n * sizeof(*by));

	/* Out of memory: the figures stand without their times (no comment: OpenMetrics has
	 * none but its own four). */
	if (!by)
		return;
	for (size_t i = 0; i < set->n; i++)
		by[i] = &set->v[i];
	qsort(by, set->n, sizeof(*by), cmp_result);
	bp_om_family(out, f, TIMESTAMP_FAMILY, BP_OM_GAUGE, "seconds",
		     "when the newest result the figures of this board, label and test come "
		     "from was measured (Unix time)");
	for (size_t i = 0; i < set->n; i++) {
		const struct bp_om_figure *g = by[i];
		struct bp_om_label l[3] = {
			{ "test", g->test }, { "board", g->board }, { "label", g->label },
		};

		if (i && !strcmp(g->test, by[i - 1]->test) && !strcmp(g->board, by[i - 1]->board) &&
		    !strcmp(g->label, by[i - 1]->label))
			continue;  /* an older one of the same three */
		bp_om_sample(out, BP_OM_GAUGE, TIMESTAMP_FAMILY, l, 3, (double)g->time_unix);
	}
	free(by);
}

bool bp_om_own_family(const char *name)
{
	/* server/server_stats.c's (its unit test checks that each is here), then ours. */
	static const char *const own[] = {
		"boardperf_server_tests", "boardperf_server_received_bytes",
		"boardperf_server_sent_bytes", "boardperf_server_connections_accepted",
		"boardperf_server_connections_refused", "boardperf_server_active_tests",
		"boardperf_server_uptime_seconds", "boardperf_server_scrapes",
		"boardperf_build_info", "boardperf_store_readable", TIMESTAMP_FAMILY,
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return true;
	return false;
}

void bp_om_figures_write(struct bp_om_figures *set, FILE *out, enum bp_om_format f)
{
	const struct bp_om_figure *head = NULL;  /* the first of the current family */

	if (!set->n)
		return;
	qsort(set->v, set->n, sizeof(set->v[0]), cmp_figure);
	for (size_t i = 0; i < set->n; i++) {
		const struct bp_om_figure *g = &set->v[i];

		if (bp_om_own_family(g->name.family)) {
			set->clashes++;
			continue;
		}
		if (head && !strcmp(head->name.family, g->name.family)) {
			/* One family, one unit; one sample per label set. */
			if (strcmp(head->name.unit, g->name.unit) || same_series(&set->v[i - 1], g)) {
				set->clashes++;
				continue;
			}
		} else {
			head = g;
			write_family_header(out, f, g);
		}
		write_sample(out, g);
	}
	write_timestamps(set, out, f);
}

void bp_om_figures_free(struct bp_om_figures *set)
{
	for (size_t i = 0; i < set->n; i++)
		free_figure(&set->v[i]);
	free(set->v);
	*set = (struct bp_om_figures){ 0 };
}
