/*
 * The text renderer: what a person reads in a terminal. A header block (test, board,
 * params) is followed by the sections that have content (environment when asked for,
 * metrics, latency, intervals, tester CPU, warnings), one blank line apart. Figures go
 * through bp_format_value(); the JSON params appear only as one "params:" line.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"
#include "core/units.h"
#include "result/kind.h"
#include "result/render.h"
#include "result/render_chips.h"
#include "result/render_streams.h"
#include "result/result_verdict.h"
#include "result/text_brief.h"
#include "result/text_latency.h"
#include "result/text_merged.h"
#include "result/text_monitor.h"
#include "result/text_summary.h"
#include "result/text_table.h"
#include "result/text_tree.h"

/* Room for any formatted figure: a number, a prefix and a unit. */
#define VALUE_LEN BP_TEXT_VALUE_LEN

/* A measured value for a person; non-finite values get no misleading prefix or unit. */
char *bp_text_value(char *buf, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, VALUE_LEN, "n/a");
	else if (isinf(v))
		snprintf(buf, VALUE_LEN, "%s", v > 0 ? "inf" : "-inf");
	else
		bp_format_value(buf, VALUE_LEN, v, unit);
	return buf;
}

/* A string leaf of env, such as inventory.board.model; NULL if absent, empty, "unknown". */
static const char *env_string(const json_t *env, const char *const *path)
{
	const json_t *v = env;
	const char *s;

	for (; *path && v; path++)
		v = json_object_get(v, *path);
	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	return *s && strcmp(s, "unknown") ? s : NULL;
}

/*
 * "tcp: <board>, <cpu>, kernel <release>, boardperf <version>": what ran where, with
 * whichever of those the environment knows (src/board names the keys; the CPU is its
 * summary, "4x Cortex-A72", or else the model name). A suite's children start with
 * "=== " so that a long run can be scanned for its parts.
 */
static void print_header(FILE *out, const struct bp_result *r, bool child)
{
	static const char *const board[] = { "inventory", "board", "model", NULL };
	static const char *const cpu[] = { "inventory", "cpu", "summary", NULL };
	static const char *const cpu_name[] = { "inventory", "cpu", "model_name", NULL };
	static const char *const kernel[] = { "inventory", "os", "kernel_release", NULL };
	static const char *const version[] = { "boardperf", "version", NULL };
	static const struct {
		const char *const *path, *const *fallback;
		const char *label;
	} parts[] = {
		{ board, NULL, "" },
		{ cpu, cpu_name, "" },
		{ kernel, NULL, "kernel " },
		{ version, NULL, "boardperf " },
	};
	const char *sep = ": ";
	size_t col = (child ? 4 : 0) + strlen(r->test ? r->test : "result");
	size_t cols = (size_t)bp_text_cols(r);
	char part[256];

	if (child)
		fputs("=== ", out);
	bp_text_put(out, r->test ? r->test : "result");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *s = env_string(r->env, parts[i].path);
		size_t len;

		if (!s && parts[i].fallback)
			s = env_string(r->env, parts[i].fallback);
		if (!s)
			continue;
		snprintf(part, sizeof(part), "%s%s", parts[i].label, s);
		len = strlen(bp_text_clean(part));
		/* a part that would run past the width starts an indented line of its own */
		if (col + strlen(sep) + len > cols) {
			fprintf(out, "%s\n ", sep[0] == ',' ? "," : ":");
			col = 1;
			sep = " ";
		}
		fprintf(out, "%s%s", sep, part);
		col += strlen(sep) + len;
		sep = ", ";
	}
	fputc('\n', out);
}

void bp_render_text_header(FILE *out, const struct bp_result *r)
{
	print_header(out, r, false);
}

/* The number right-aligned and its unit after it, so that digits line up. */
static int metrics_row(struct bp_table *t, const struct bp_metric *m)
{
	char buf[VALUE_LEN];
	char *unit = strchr(bp_text_value(buf, m->value, m->unit), ' ');

	if (unit)
		*unit++ = '\0';
	return bp_table_add(t, (const char *[]){ m->name, buf, unit });
}

static int print_metrics_plain(FILE *out, const struct bp_result *r)
{
	struct bp_table t;
	int err = bp_table_init(&t, 3, 0);

	if (err)
		return err;
	t.right[1] = true;
	t.gap[2] = 1;
	err = bp_table_add(&t, (const char *[]){ "metric", "value", NULL });
	for (size_t i = 0; !err && i < r->nmetrics; i++)
		err = metrics_row(&t, &r->metrics[i]);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

/*
 * The metric whose name plus ".suffix" is m's name, or -1. Such companions ("rsa2048.sign"
 * with "rsa2048.sign.all", ".scaling", ".cpu") read best as columns of one row.
 */
static long metric_base(const struct bp_result *r, size_t m)
{
	const char *name = r->metrics[m].name;
	const char *dot = strrchr(name, '.');

	if (!dot)
		return -1;
	for (size_t i = 0; i < r->nmetrics; i++)
		if (i != m && strlen(r->metrics[i].name) == (size_t)(dot - name) &&
		    !strncmp(r->metrics[i].name, name, (size_t)(dot - name)))
			return (long)i;
	return -1;
}

/* Column index of suffix in cols[0..*n), appended when new. */
static size_t suffix_column(const char **cols, size_t *n, const char *suffix)
{
	for (size_t c = 0; c < *n; c++)
		if (!strcmp(cols[c], suffix))
			return c;
	cols[*n] = suffix;
	return (*n)++;
}

static int grouped_rows(struct bp_table *t, const struct bp_result *r, const long *base,
			const size_t *col)
{
	char buf[VALUE_LEN];
	int err = 0;

	for (size_t i = 0; !err && i < r->nmetrics; i++) {
		if (base[i] >= 0)
			continue;
		err = bp_table_add_row(t);
		if (!err)
			err = bp_table_set(t, 0, r->metrics[i].name);
		if (!err)
			err = bp_table_set(t, 1, bp_text_value(buf, r->metrics[i].value,
							      r->metrics[i].unit));
		for (size_t j = 0; !err && j < r->nmetrics; j++)
			if (base[j] == (long)i)
				err = bp_table_set(t, 2 + col[j],
						   bp_text_value(buf, r->metrics[j].value,
								r->metrics[j].unit));
	}
	return err;
}

static int print_metrics_grouped(FILE *out, const struct bp_result *r, const long *base)
{
	const char **cols = calloc(r->nmetrics, sizeof(*cols));
	size_t *col = calloc(r->nmetrics, sizeof(*col)), ncols = 0;
	struct bp_table t = { 0 };
	int err = -ENOMEM;

	if (!cols || !col)
		goto out;
	for (size_t i = 0; i < r->nmetrics; i++)
		if (base[i] >= 0)
			col[i] = suffix_column(cols, &ncols,
					       r->metrics[i].name + strlen(r->metrics[base[i]].name) + 1);
	err = bp_table_init(&t, 2 + ncols, 0);
	if (!err)
		err = bp_table_add_row(&t);
	if (!err)
		err = bp_table_set(&t, 0, "metric");
	if (!err)
		err = bp_table_set(&t, 1, "value");
	for (size_t c = 0; !err && c < ncols; c++) {
		t.right[2 + c] = true;
		err = bp_table_set(&t, 2 + c, cols[c]);
	}
	t.right[1] = true;
	if (!err)
		err = grouped_rows(&t, r, base, col);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
out:
	free(cols);
	free(col);
	return err;
}

static int grouped_print(FILE *out, const struct bp_result *r, const void *base)
{
	return print_metrics_grouped(out, r, base);
}

/* The companions as columns when that fits the width (or with -v); else a row each. */
static int print_grouped_if_fits(FILE *out, const struct bp_result *r, const long *base)
{
	int rc = bp_text_print_if_fits(out, r, grouped_print, base);

	return rc == 0 ? print_metrics_plain(out, r) : rc < 0 ? rc : 0;
}

static int print_metrics(FILE *out, const struct bp_result *r)
{
	long *base = calloc(r->nmetrics, sizeof(*base));
	bool grouped = false;
	int err;

	if (!base)
		return -ENOMEM;
	for (size_t i = 0; i < r->nmetrics; i++) {
		base[i] = metric_base(r, i);
		/* Only one level: a companion of a companion stays a row of its own. */
		if (base[i] >= 0 && metric_base(r, (size_t)base[i]) >= 0)
			base[i] = -1;
		grouped |= base[i] >= 0;
	}
	err = grouped ? print_grouped_if_fits(out, r, base) : print_metrics_plain(out, r);
	free(base);
	return err;
}

/* Metric names over all intervals, in first-seen order: one column each. */
static int interval_names(const struct bp_result *r, const char ***names, size_t *n)
{
	const char **v = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < r->nintervals; i++) {
		for (size_t j = 0; j < r->intervals[i].nmetrics; j++) {
			const char *name = r->intervals[i].metrics[j].name;
			size_t k;

			for (k = 0; k < *n && strcmp(v[k], name); k++)
				;
			if (k < *n)
				continue;
			if (*n == cap) {
				const char **p = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));

				if (!p) {
					free(v);
					return -ENOMEM;
				}
				v = p;
			}
			v[(*n)++] = name;
		}
	}
	*names = v;
	return 0;
}

/* "span", "sender.span": the interval's own length, which start and end already say. */
static bool is_span(const char *name)
{
	const char *dot = strrchr(name, '.');

	return !strcmp(dot ? dot + 1 : name, "span");
}

/*
 * The interval columns the width has room for, moved to the front of names (all with -v;
 * spans left out): a figure column is as wide as its name or a three-digit figure.
 */
static size_t fitting_columns(const struct bp_result *r, const char **names, size_t n)
{
	size_t kept = 0, used = 5 + 2 + 6;

	if (r->text_verbose > 0)
		return n;
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(names[i]) > 11 ? strlen(names[i]) : 11;

		if (is_span(names[i]) || used + 2 + w > (size_t)bp_text_cols(r))
			continue;
		names[kept++] = names[i];
		used += 2 + w;
	}
	return kept;
}

/* start and end, then each named metric of this interval or "-" when it has none. */
static int intervals_row(struct bp_table *t, const struct bp_interval *iv,
			 const char **names)
{
	char buf[VALUE_LEN];
	int err = bp_table_add_row(t);

	snprintf(buf, sizeof(buf), "%.2f", iv->start);
	err = err ? err : bp_table_set(t, 0, buf);
	snprintf(buf, sizeof(buf), "%.2f", iv->end);
	err = err ? err : bp_table_set(t, 1, buf);
	for (size_t c = 2; !err && c < t->ncols; c++) {
		const struct bp_metric *m = NULL;

		for (size_t j = 0; !m && j < iv->nmetrics; j++)
			if (!strcmp(iv->metrics[j].name, names[c - 2]))
				m = &iv->metrics[j];
		err = bp_table_set(t, c, m ? bp_text_value(buf, m->value, m->unit) : "-");
	}
	return err;
}

static int print_intervals(FILE *out, const struct bp_result *r)
{
	struct bp_table t;
	const char **names;
	size_t n;
	int err = interval_names(r, &names, &n);

	if (err)
		return err;
	n = fitting_columns(r, names, n);
	err = bp_table_init(&t, n + 2, 0);
	if (err)
		goto out;
	err = bp_table_add_row(&t);
	err = err ? err : bp_table_set(&t, 0, "start");
	err = err ? err : bp_table_set(&t, 1, "end");
	for (size_t c = 0; c < n + 2; c++) {
		t.right[c] = true;
		if (!err && c >= 2)
			err = bp_table_set(&t, c, names[c - 2]);
	}
	for (size_t i = 0; !err && i < r->nintervals; i++)
		err = intervals_row(&t, &r->intervals[i], names);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
out:
	free(names);
	return err;
}

/*
 * The verdict of a result that has one (result_verdict.h), as the last line, so that it is
 * not lost among the tables; a FAIL's reasons are its warnings.
 */
static bool has_verdict(const struct bp_result *r)
{
	return bp_result_verdict(r) >= 0;
}

static int print_verdict(FILE *out, const struct bp_result *r)
{
	const struct bp_metric *ratio = bp_result_find_metric(r, "failure_ratio");

	fputs(bp_result_verdict(r) ? "verdict: PASS" : "verdict: FAIL (exit status 3)", out);
	if (ratio)
		fprintf(out, ", failure_ratio %.4f %%", ratio->value);
	fputc('\n', out);
	return 0;
}

/* Which of a kind's own text sections (kind.h) */
enum kind_section { KIND_FIGURES, KIND_EXTRA, KIND_AFTER_LIVE };

/* r's kind's own text section, when it has one with something to say */
static const struct bp_kind_text *kind_text(const struct bp_result *r, enum kind_section which)
{
	const struct bp_kind *k = r->test ? bp_kind_find(r->test) : NULL;
	const struct bp_kind_text *t = NULL;

	if (k)
		t = which == KIND_FIGURES ? &k->figures : which == KIND_EXTRA ? &k->extra :
		    &k->after_live;
	return t && t->has && t->print && t->has(r) ? t : NULL;
}

static bool has_figures(const struct bp_result *r)
{
	return kind_text(r, KIND_FIGURES);
}

static int print_figures(FILE *out, const struct bp_result *r)
{
	return kind_text(r, KIND_FIGURES)->print(out, r);
}

static bool has_extra(const struct bp_result *r)
{
	return kind_text(r, KIND_EXTRA);
}

static int print_extra(FILE *out, const struct bp_result *r)
{
	return kind_text(r, KIND_EXTRA)->print(out, r);
}

static int print_env(FILE *out, const struct bp_result *r)
{
	return bp_text_tree(out, r->env, 0);
}

/* A network test's path (board/net_path.h), its summary alone: "path: via eth0 (...)" */
static bool has_path(const struct bp_result *r)
{
	static const char *const summary[] = { "path", "summary", NULL };

	return !r->text_show_env && env_string(r->env, summary);
}

static int print_path(FILE *out, const struct bp_result *r)
{
	static const char *const summary[] = { "path", "summary", NULL };
	char line[256];

	/* filled to the width, as the monitor's line: a long VLAN-and-NIC summary wraps */
	snprintf(line, sizeof(line), "path: %s", env_string(r->env, summary));
	return bp_text_fill_line(out, r, line);
}

static bool has_env(const struct bp_result *r)
{
	return r->text_show_env && json_is_object(r->env) && json_object_size(r->env);
}

/* a kind that shows its figures its own way shows the table with -v only */
static bool has_metrics(const struct bp_result *r)
{
	return r->nmetrics && (r->text_verbose || !has_figures(r));
}

static bool has_latency(const struct bp_result *r)
{
	return r->nlatency;
}

static bool has_intervals(const struct bp_result *r)
{
	return r->nintervals;
}

static bool has_warnings(const struct bp_result *r)
{
	return r->nwarnings;
}

static bool has_cpu(const struct bp_result *r)
{
	return json_is_object(r->cpu) && json_object_size(r->cpu);
}

/*
 * One result without its children: the header block, then each section that has content.
 * after_live: the live sink printed the header line and the interval lines already.
 */
static int render_one(FILE *out, const struct bp_result *r, bool child, bool after_live)
{
	static const struct {
		bool (*has)(const struct bp_result *r);
		int (*print)(FILE *out, const struct bp_result *r);
	} sections[] = {
		{ has_env, print_env },
		{ bp_chips_text_has, bp_chips_text },
		{ has_figures, print_figures },
		{ has_metrics, print_metrics },
		{ has_latency, bp_text_latency_print },
		{ bp_text_merged_has, bp_text_merged_print },
		{ has_extra, print_extra },
		{ has_intervals, print_intervals },
		{ bp_streams_text_has_intervals, bp_streams_text_intervals },
		{ bp_streams_text_has, bp_streams_text },
		{ has_path, print_path },
		{ has_cpu, bp_text_cpu },
		{ bp_text_monitor_has, bp_text_monitor_print },
		{ has_warnings, bp_text_warnings },
		{ has_verdict, print_verdict },
	};
	int err = 0;

	const struct bp_kind_text *live = after_live ? kind_text(r, KIND_AFTER_LIVE) : NULL;

	if (after_live && json_is_object(r->params) && json_object_size(r->params) && !live)
		fputc('\n', out);
	else if (!after_live)
		print_header(out, r, child);
	/* the kind's own section after the live lines (udp: the receiver's, with the end) */
	if (live) {
		fputc('\n', out);
		err = live->print(out, r);
		fputc('\n', out);
	}
	err = err ? err : bp_text_params(out, r);
	for (size_t i = 0; !err && i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (!sections[i].has(r) || (after_live && sections[i].print == print_intervals))
			continue;
		fputc('\n', out);
		err = sections[i].print(out, r);
	}
	return err;
}

static int render_tree(FILE *out, const struct bp_result *r, bool child)
{
	int err = render_one(out, r, child, false);

	if (r->text_hide_children)
		return err;
	for (size_t i = 0; !err && !r->text_children_as_rows && i < r->nchildren; i++) {
		fputc('\n', out);
		err = render_tree(out, r->children[i], true);
	}
	/* a suite ends with one line per test (result/text_summary.h) */
	if (!err && !child && r->nchildren) {
		fputc('\n', out);
		err = bp_text_summary_print(out, r);
	}
	return err;
}

int bp_render_text(FILE *out, const struct bp_result *r)
{
	int err = render_tree(out, r, false);

	if (!err && ferror(out))
		err = -EIO;
	return err;
}

int bp_render_text_after_live(FILE *out, const struct bp_result *r)
{
	int err = render_one(out, r, false, true);

	/* A suite's children never print live (they get no sink of their own). */
	for (size_t i = 0; !err && !r->text_hide_children && !r->text_children_as_rows &&
	     i < r->nchildren; i++) {
		fputc('\n', out);
		err = render_tree(out, r->children[i], true);
	}
	if (!err && r->text_children_as_rows && r->nchildren) {
		fputc('\n', out);
		err = bp_text_summary_print(out, r);
	}
	if (!err && ferror(out))
		err = -EIO;
	return err;
}
