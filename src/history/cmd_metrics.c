/*
 * `boardperf metrics [TEST] [--json]`: what each test kind may emit, from its catalogue
 * (result/kind.h): name, unit, better, headline place, how several testers' figures
 * combine, and what the figure means. The text fits 80 columns, the meaning on the line
 * below its row; -v adds where the figure appears and its up./down. forms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "core/options.h"
#include "core/test.h"
#include "result/kind.h"

#define TEXT_WIDTH 80
#define MEANING_INDENT 4

struct metrics_params {
	int unused;  /* the option table is empty: TEST is positional */
};

static const struct bp_opt metrics_opts[] = {
	BP_OPT_END_WITHOUT(BP_COMMON_CSV | BP_COMMON_DB | BP_COMMON_MEASURING),
};

/* The known kinds, "cpu, mem, ...", for an unknown TEST's message. */
static void kind_list(char *buf, size_t len)
{
	size_t n, used = 0;
	const struct bp_kind *const *kinds = bp_kinds_installed(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 kinds[i]->name);
}

static int metrics_check(void *params, const struct bp_parsed *parsed, char *err,
			 size_t errlen)
{
	char known[256];

	(void)params;
	if (parsed->npos > 1) {
		snprintf(err, errlen, "too many arguments: expected at most one test name");
		return -EINVAL;
	}
	if (parsed->npos == 1 && !bp_kind_find(parsed->pos[0])) {
		kind_list(known, sizeof(known));
		snprintf(err, errlen, "'%s': expected a test that measures: %s", parsed->pos[0],
			 known);
		return -EINVAL;
	}
	return 0;
}

/* text, wrapped at TEXT_WIDTH, each line indented by MEANING_INDENT. */
static void put_wrapped(FILE *out, const char *text)
{
	const size_t width = TEXT_WIDTH - MEANING_INDENT;

	while (*text) {
		size_t len = strlen(text), cut = len;

		if (len > width) {
			cut = width;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (!cut)
				cut = width;
		}
		fprintf(out, "%*s%.*s\n", MEANING_INDENT, "", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

static void put_kind_text(FILE *out, const struct bp_kind *k, bool verbose)
{
	int w = (int)strlen("name");

	for (size_t i = 0; i < k->nmetrics; i++)
		if ((int)strlen(k->metrics[i].name) > w)
			w = (int)strlen(k->metrics[i].name);
	fprintf(out, "%s\n", k->name);
	fprintf(out, "  %-*s  %-7s  %-6s  %-8s  %s\n", w, "name", "unit", "better", "headline",
		verbose ? "combine    scope     bidir" : "combine");
	for (size_t i = 0; i < k->nmetrics; i++) {
		const struct bp_metric_decl *d = &k->metrics[i];
		char place[12] = "-";

		if (d->headline)
			snprintf(place, sizeof(place), "%u", d->headline);
		fprintf(out, "  %-*s  %-7s  %-6s  %-8s  ", w, d->name, d->unit,
			bp_better_name(d->better), place);
		if (verbose)
			fprintf(out, "%-9s  %-8s  %s\n", bp_combine_name(d->combine),
				bp_scope_name(d->scope), d->directed ? "up./down." : "-");
		else
			fprintf(out, "%s\n", bp_combine_name(d->combine));
		put_wrapped(out, d->meaning);
	}
	if (k->headline_latency)
		fprintf(out, "  headline latency: %s (its p50)\n", k->headline_latency);
}

static int add_kind_json(json_t *array, const struct bp_kind *k)
{
	for (size_t i = 0; i < k->nmetrics; i++) {
		const struct bp_metric_decl *d = &k->metrics[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:b, s:s}",
				      "test", k->name, "name", d->name, "unit", d->unit,
				      "better", bp_better_name(d->better), "headline",
				      d->headline ? json_integer(d->headline) : json_null(),
				      "combine", bp_combine_name(d->combine),
				      "scope", bp_scope_name(d->scope), "bidir", d->directed,
				      "meaning", d->meaning);

		if (!o || json_array_append_new(array, o))
			return -ENOMEM;
	}
	return 0;
}

static int metrics_run(const void *params, const struct bp_test_ctx *ctx,
		       struct bp_result *r, char *err, size_t errlen)
{
	const struct bp_common_opts *c = ctx->common;
	const char *only = ctx->parsed->npos ? ctx->parsed->pos[0] : NULL;
	size_t n;
	const struct bp_kind *const *kinds = bp_kinds_installed(&n);
	json_t *array = c->json ? json_array() : NULL;
	int rc = c->json && !array ? -ENOMEM : 0;
	bool first = true;

	(void)params;
	(void)r;
	for (size_t i = 0; !rc && i < n; i++) {
		if (only && strcmp(kinds[i]->name, only))
			continue;
		if (array) {
			rc = add_kind_json(array, kinds[i]);
			continue;
		}
		if (!first)
			fputc('\n', ctx->out);
		put_kind_text(ctx->out, kinds[i], c->verbose > 0);
		first = false;
	}
	if (!rc && array && (json_dumpf(array, ctx->out, JSON_INDENT(2) | JSON_PRESERVE_ORDER)
			     || fputc('\n', ctx->out) == EOF))
		rc = -EIO;
	json_decref(array);
	if (!rc && (fflush(ctx->out) || ferror(ctx->out)))
		rc = -EIO;
	if (rc)
		snprintf(err, errlen, "writing the catalogue: %s", strerror(-rc));
	return rc;
}

const struct bp_test bp_cmd_metrics = {
	.name = "metrics",
	.summary = "what each test may emit: name, unit, better, headline, combine rule, meaning",
	.synopsis = "[TEST] [--json] [-v]",
	.opts = metrics_opts,
	.params_size = sizeof(struct metrics_params),
	.check = metrics_check,
	.run = metrics_run,
	.no_result = true,
};
