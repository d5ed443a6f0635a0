/*
 * `boardperf compare A B [C...]`: results side by side (docs/results.md, "Comparing
 * boards (`compare`)"). Each argument is what bp_store_resolve takes: a result id, a JSON file
 * another board wrote, or a label (its newest run). The results database is opened only
 * when an argument is not a file, so comparing two files needs none. The command measures
 * nothing: it prints the table itself (to ctx->out) and leaves no result (no_result), so
 * nothing is saved.
 * The database is the common --db's (the default without it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare/compare.h"
#include "compare/compare_model.h"
#include "core/options.h"
#include "core/test.h"
#include "store/store.h"

struct compare_params {
	bool markdown, html, json, csv;
};

#define P(f) offsetof(struct compare_params, f)

/* --json and --csv are compare's own: the table's forms, not a result document's. */
static const struct bp_opt compare_opts[] = {
	{ .long_name = "markdown", .type = BP_OPT_FLAG, .offset = P(markdown),
	  .help = "print the table as Markdown (GitHub issues, forums)" },
	{ .long_name = "html", .type = BP_OPT_FLAG, .offset = P(html),
	  .help = "print the table as an HTML fragment (one <section>)" },
	{ .short_name = 'J', .long_name = "json", .type = BP_OPT_FLAG, .offset = P(json),
	  .help = "print the table as JSON (its shape is in docs/results.md)" },
	{ .long_name = "csv", .type = BP_OPT_FLAG, .offset = P(csv),
	  .help = "print the table as CSV (one value, ratio and mark column per run)" },
	BP_OPT_END_WITHOUT(BP_COMMON_MEASURING),
};

static int compare_check(void *params, const struct bp_parsed *parsed, char *err,
			 size_t errlen)
{
	const struct compare_params *p = params;
	static const char *const names[] = { "--markdown", "--html", "--json", "--csv" };
	const bool set[] = { p->markdown, p->html, p->json, p->csv };
	const char *first = NULL;

	for (size_t i = 0; i < 4; i++) {
		if (!set[i])
			continue;
		if (first) {
			snprintf(err, errlen, "%s and %s exclude each other: one format at a time",
				 first, names[i]);
			return -EINVAL;
		}
		first = names[i];
	}
	if (parsed->npos < 2) {
		snprintf(err, errlen, "expected at least two runs to compare (result ids, labels "
			 "or JSON files), got %d", parsed->npos);
		return -EINVAL;
	}
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A spec bp_store_resolve reads without the database: a path that exists, not an id. */
static bool is_file_spec(const char *spec)
{
	struct stat st;

	return !all_digits(spec) && stat(spec, &st) == 0;
}

/* The column heading: "#12" for an id, the file name or label as typed. */
static char *column_name(const char *spec)
{
	char *s;

	if (!all_digits(spec))
		return strdup(spec);
	return asprintf(&s, "#%s", spec) < 0 ? NULL : s;
}

/* Each spec's document; the database opened at the first spec that needs it. */
static int resolve_all(const char *db, const struct bp_parsed *parsed, json_t **docs,
		       char **names, char *err, size_t errlen)
{
	struct bp_store *store = NULL;
	char why[512];
	int rc = 0;

	for (int i = 0; i < parsed->npos && !rc; i++) {
		const char *spec = parsed->pos[i];
		bool file = is_file_spec(spec);

		if (!file && !store) {
			store = bp_store_open(db, false, why, sizeof(why));
			if (!store) {
				snprintf(err, errlen, "'%s': not a file, and %s", spec, why);
				rc = -ENOENT;
				break;
			}
		}
		docs[i] = bp_store_resolve(file ? NULL : store, spec, err, errlen);
		names[i] = column_name(spec);
		if (!docs[i])
			rc = -ENOENT;
		else if (!names[i]) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	bp_store_close(store);
	return rc;
}

static enum bp_compare_format format_of(const struct compare_params *p)
{
	return p->markdown ? BP_COMPARE_MARKDOWN : p->html ? BP_COMPARE_HTML :
	       p->json ? BP_COMPARE_JSON : p->csv ? BP_COMPARE_CSV : BP_COMPARE_TEXT;
}

static int compare_run(const void *params, const struct bp_test_ctx *ctx,
		       struct bp_result *r, char *err, size_t errlen)
{
	const struct compare_params *p = params;
	json_t *docs[BP_MAX_POSITIONAL] = { 0 };
	char *names[BP_MAX_POSITIONAL] = { 0 };
	struct bp_compare *c = NULL;
	int n = ctx->parsed->npos, rc;

	(void)r;
	rc = resolve_all(ctx->common->db, ctx->parsed, docs, names, err, errlen);
	if (!rc) {
		c = bp_compare_build(docs, (const char *const *)names, (size_t)n, err, errlen);
		rc = c ? 0 : -EINVAL;
	}
	if (!rc) {
		FILE *out = ctx->out ? ctx->out : stdout;

		rc = bp_compare_render(c, format_of(p), out);
		if (!rc && fflush(out))
			rc = -errno;
		if (rc)
			snprintf(err, errlen, "writing the table: %s", strerror(-rc));
	}
	bp_compare_free(c);
	for (int i = 0; i < n; i++) {
		json_decref(docs[i]);
		free(names[i]);
	}
	return rc;
}

const struct bp_test bp_cmd_compare = {
	.name = "compare",
	.summary = "results side by side: ratios, better/worse, as text, Markdown, CSV, HTML",
	.synopsis = "RUN RUN [RUN...] [--markdown|--html|--json|--csv] [--db FILE]  "
		    "(RUN: a result id, a label or a JSON file)",
	.opts = compare_opts,
	.params_size = sizeof(struct compare_params),
	.no_result = true,
	.check = compare_check,
	.run = compare_run,
};
