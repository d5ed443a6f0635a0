#include "result/text_summary.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "result/headline.h"
#include "result/text_brief.h"
#include "result/text_table.h"

#define CELL_LEN 512

/* Appends "name value unit" to cell, ", "-separated. */
static void add_figure(char *cell, const char *name, double value, const char *unit)
{
	char v[64];
	size_t used = strlen(cell);

	if (isnan(value))
		snprintf(v, sizeof(v), "n/a");
	else
		bp_format_value(v, sizeof(v), value, unit);
	if (used < CELL_LEN)
		snprintf(cell + used, CELL_LEN - used, "%s%s %s", used ? ", " : "", name, v);
}

static void figures(char *cell, const struct bp_result *c)
{
	struct bp_headline buf;
	const struct bp_headline *h = bp_headline_of(c->test, &buf);
	size_t shown = 0;

	cell[0] = '\0';
	for (size_t i = 0; h && i < BP_HEADLINE_METRICS && h->metrics[i]; i++) {
		const struct bp_metric *m = bp_result_find_matching(c, h->metrics[i]);

		if (m) {
			add_figure(cell, m->name, m->value, m->unit);
			shown++;
		}
	}
	for (size_t i = 0; h && h->latency && i < c->nlatency; i++) {
		char name[96];

		if (strcmp(c->latency[i].what, h->latency))
			continue;
		snprintf(name, sizeof(name), "%s p50", c->latency[i].what);
		add_figure(cell, name, c->latency[i].p50, c->latency[i].unit);
		shown++;
	}
	/* a test without a headline entry (or whose headline figures are missing) */
	for (size_t i = 0; !shown && i < c->nmetrics && i < BP_HEADLINE_FALLBACK; i++)
		add_figure(cell, c->metrics[i].name, c->metrics[i].value, c->metrics[i].unit);
}

/* Each code once: both ends of a test may warn the same (udp: tester-cpu-bound twice). */
static void warning_codes(char *cell, const struct bp_result *c)
{
	size_t used = 0;

	cell[0] = '\0';
	for (size_t i = 0; i < c->nwarnings && used < CELL_LEN; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c->warnings[j].code, c->warnings[i].code);
		if (!seen)
			used += (size_t)snprintf(cell + used, CELL_LEN - used, "%s%s",
						 used ? ", " : "", c->warnings[i].code);
	}
}

/*
 * list, its ", "-separated items filled from column col into lines of width, further lines
 * at indent; an item is never broken ("1.53 GiB/s" stays whole). Returns the column.
 */
static int fill_items(FILE *out, const char *list, int col, int indent, int width)
{
	for (const char *p = list; *p;) {
		const char *end = strstr(p, ", ");
		size_t n = end ? (size_t)(end - p) + 1 : strlen(p);  /* the comma stays */
		int w = (int)n;

		if (col + 1 + w > width && col > indent) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += w;
		p += n;
		while (*p == ' ')
			p++;
	}
	return col;
}

/*
 * The narrow form, when the table passes the width: the test and its status, its figures
 * filled under them, its warnings' codes on a line of their own.
 */
static void print_narrow(FILE *out, const struct bp_result *r, char *fig, char *warn,
			 int width)
{
	char status[96];

	fputs("summary\n", out);
	for (size_t i = 0; i < r->nchildren; i++) {
		const struct bp_result *c = r->children[i];
		int col;

		snprintf(status, sizeof(status), "%s%s", c->error.code ? "failed: " : "ok",
			 c->error.code ? c->error.code : "");
		figures(fig, c);
		warning_codes(warn, c);
		col = fprintf(out, "%-6s %-4s", c->test ? c->test : "?", status);
		fill_items(out, fig, col, 12, width);
		if (*warn) {
			fprintf(out, "\n%12swarnings:", "");
			fill_items(out, warn, 12 + 9, 12, width);
		}
		fputc('\n', out);
	}
}

static int print_table(FILE *out, const struct bp_result *r, char *fig, char *warn)
{
	static const char *const head[] = { "test", "status", "headline", "warnings" };
	char status[96];
	struct bp_table t;
	int err = bp_table_init(&t, 4, 0);

	if (err)
		return err;
	err = bp_table_add(&t, head);
	for (size_t i = 0; !err && i < r->nchildren; i++) {
		const struct bp_result *c = r->children[i];

		/* "failed" with the error's code: the child's own section says the rest */
		snprintf(status, sizeof(status), "%s%s", c->error.code ? "failed: " : "ok",
			 c->error.code ? c->error.code : "");
		figures(fig, c);
		warning_codes(warn, c);
		err = bp_table_add(&t, (const char *[]){ c->test ? c->test : "?", status, fig,
							 warn });
	}
	if (!err) {
		fputs("summary\n", out);
		err = bp_table_print(out, &t);
	}
	bp_table_free(&t);
	return err;
}

/* The table when it fits the width (or with -v), else the narrow form. */
int bp_text_summary_print(FILE *out, const struct bp_result *r)
{
	char *fig = malloc(CELL_LEN), *warn = malloc(CELL_LEN), *text = NULL;
	size_t len = 0;
	FILE *m = NULL;
	int err = -ENOMEM;

	if (!r->nchildren) {
		err = 0;
		goto out;
	}
	if (!fig || !warn || !(m = open_memstream(&text, &len)))
		goto out;
	err = print_table(m, r, fig, warn);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err && (r->text_verbose > 0 || bp_text_widest(text) <= (size_t)bp_text_cols(r)))
		fputs(text, out);
	else if (!err)
		print_narrow(out, r, fig, warn, bp_text_cols(r));
out:
	free(text);
	free(fig);
	free(warn);
	return err;
}
