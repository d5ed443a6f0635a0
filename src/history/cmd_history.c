/* `boardperf history`: the saved results, newest first, one line each. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/options.h"
#include "core/test.h"
#include "history/history_line.h"
#include "store/store.h"

struct history_params {
	const char *test;
	const char *label;
	const char *since;
	int64_t limit;
	bool all;
};

static const struct bp_opt history_opts[] = {
	{ 0, "test", BP_OPT_STRING, offsetof(struct history_params, test), "T", NULL, 0, 0, NULL,
	  "only results of this command (tcp, cpu, run, ...)" },
	{ 0, "label", BP_OPT_TEXT, offsetof(struct history_params, label), "L", NULL, 0, 0,
	  NULL, "only results saved with --label L" },
	{ 0, "since", BP_OPT_STRING, offsetof(struct history_params, since), "DATE", NULL, 0, 0,
	  NULL, "only results since a UTC date or time, or an age (2026-11-30, 36h, 7d)" },
	{ 'n', "limit", BP_OPT_INT, offsetof(struct history_params, limit), "N", "0", 0, 1e9,
	  NULL, "at most the N newest (0: all)" },
	{ 0, "all", BP_OPT_FLAG, offsetof(struct history_params, all), NULL, NULL, 0, 0, NULL,
	  "also each test of a suite (run) on a line of its own" },
	BP_OPT_END_WITHOUT(BP_COMMON_CSV | BP_COMMON_MEASURING),
};

static int history_check(void *params, const struct bp_parsed *parsed, char *err,
			 size_t errlen)
{
	const struct history_params *p = params;
	int64_t since;

	if (p->since && bp_store_parse_since(p->since, time(NULL), &since, err, errlen))
		return -EINVAL;
	return bp_check_no_positional(parsed, err, errlen);
}

struct walk {
	struct bp_store *s;
	FILE *out;
	json_t *array;  /* --json: the entries; NULL for text */
	int lines;
	int err;
};

static int list_one(const struct bp_store_row *row, void *arg)
{
	struct walk *w = arg;
	struct bp_history_entry e;
	int rc = bp_history_gather(w->s, row, &e);

	if (rc) {
		w->err = rc;
		return 1;
	}
	if (w->array) {
		json_array_append_new(w->array, bp_history_entry_json(&e));
	} else {
		if (!w->lines)
			bp_history_print_head(w->out);
		bp_history_print_line(w->out, &e);
	}
	w->lines++;
	return 0;
}

/* Nothing saved yet is an empty history, not an error. */
static bool no_database_yet(const char *db)
{
	char path[4096];

	if (db)
		return access(db, F_OK) != 0;
	return bp_store_default_path(path, sizeof(path)) == 0 && access(path, F_OK) != 0;
}

static int history_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		       char *err, size_t errlen)
{
	const struct history_params *p = params;
	const struct bp_common_opts *c = ctx->common;
	struct bp_store_filter f = { .test = p->test, .label = p->label, .limit = (int)p->limit,
				     .children = p->all };
	struct walk w = { .out = ctx->out, .array = c->json ? json_array() : NULL };
	int rc = 0;

	(void)r;
	if (p->since)
		bp_store_parse_since(p->since, time(NULL), &f.since_unix, err, errlen);
	if (no_database_yet(c->db)) {
		bp_info("no results saved yet (nothing at %s)", c->db ? c->db : "the default path");
		goto out;
	}
	w.s = bp_store_open(c->db, false, err, errlen);
	if (!w.s) {
		rc = -EIO;
		goto out;
	}
	rc = bp_store_list(w.s, &f, list_one, &w);
	if (rc == 1)
		rc = w.err;
	if (rc)
		bp_store_read_failed(w.s, rc, err, errlen);
	bp_store_close(w.s);
out:
	if (!rc && w.array && (json_dumpf(w.array, ctx->out, JSON_INDENT(2)) ||
			       fputc('\n', ctx->out) == EOF))
		rc = -EIO;
	json_decref(w.array);
	if (!rc && (fflush(ctx->out) || ferror(ctx->out))) {
		rc = -EIO;
		snprintf(err, errlen, "writing the history: %s", strerror(EIO));
	}
	return rc;
}

const struct bp_test bp_cmd_history = {
	.name = "history",
	.summary = "the saved results, newest first: id, time, label, test, headline figures",
	.synopsis = "[--test T] [--label L] [--since DATE] [--limit N] [--all] [--json]",
	.opts = history_opts,
	.params_size = sizeof(struct history_params),
	.check = history_check,
	.run = history_run,
	.no_result = true,
};
