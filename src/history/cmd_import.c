/*
 * `boardperf import FILE...`: result documents another board printed (`boardperf ...
 * --json > opi.json`) into this board's results database, checked first (store_doc.c), so
 * that history, compare and report see them beside the results measured here. A file
 * already imported is not added twice; a bad file is said and the others still imported.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/options.h"
#include "core/test.h"
#include "core/text_escape.h"
#include "history/history_line.h"
#include "store/store.h"
#include "store/store_doc.h"

static const struct bp_opt import_opts[] = {
	BP_OPT_END_WITHOUT(BP_COMMON_JSON | BP_COMMON_CSV | BP_COMMON_STREAM | BP_COMMON_SAVE |
			   BP_COMMON_REPEAT | BP_COMMON_MONITOR | BP_COMMON_START),
};

static int import_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	(void)params;
	if (!parsed->npos) {
		snprintf(err, errlen, "no file given: expected result documents (boardperf ... "
			 "--json > FILE), or - for standard input");
		return -EINVAL;
	}
	return 0;
}

/* Standard input whole, as a document. */
static json_t *load_stdin(char *err, size_t errlen)
{
	char *buf = NULL, why[384];
	size_t len = 0, cap = 0, n;
	json_t *doc = NULL;

	do {
		if (len == cap) {
			char *grown = cap < BP_STORE_DOC_MAX ? realloc(buf, cap = cap ? cap * 2
									: 65536) : NULL;

			if (!grown) {
				snprintf(err, errlen, "-: expected a result document of at most "
					 "%u MiB", BP_STORE_DOC_MAX >> 20);
				goto out;
			}
			buf = grown;
		}
		n = fread(buf + len, 1, cap - len, stdin);
		len += n;
	} while (n);
	if (ferror(stdin)) {
		snprintf(err, errlen, "-: reading standard input: %s", strerror(errno));
		goto out;
	}
	doc = bp_store_doc_parse(buf, len, why, sizeof(why));
	if (!doc)
		snprintf(err, errlen, "-: %s", why);
out:
	free(buf);
	return doc;
}

/* --label names the board the file came from when its run had no label (or another). */
static int relabel(json_t *doc, const char *label)
{
	json_t *params = json_object_get(doc, "params");

	if (!label)
		return 0;
	if (!json_is_object(params)) {
		params = json_object();
		if (json_object_set_new(doc, "params", params))
			return -ENOMEM;
	}
	return json_object_set_new(params, "label", json_string(label)) ? -ENOMEM : 0;
}

static int import_one(struct bp_store *s, const char *file, const char *label, FILE *out)
{
	char err[640] = "", when[32];
	json_t *doc = strcmp(file, "-") ? bp_store_doc_load(file, err, sizeof(err))
					: load_stdin(err, sizeof(err));
	int64_t id = 0, had;
	int rc;

	if (!doc) {
		bp_error("%s", err);
		return -EINVAL;
	}
	rc = relabel(doc, label);
	had = rc ? rc : bp_store_find_doc(s, doc);
	if (had > 0) {
		fprintf(out, "%s: already saved as result %lld\n", file, (long long)had);
		json_decref(doc);
		return 0;
	}
	rc = had < 0 ? (int)had : bp_store_save(s, doc, &id, err, sizeof(err));
	if (rc) {
		bp_error("%s: %s", file, err[0] ? err : strerror(-rc));
	} else {
		long long t = bp_store_doc_time(doc);
		const char *l = json_string_value(json_object_get(json_object_get(doc, "params"),
								  "label"));

		char test[4 * 16 + 1], name[4 * 64 + 1];

		/* The file's words, escaped: it may come from anyone (core/text_escape.h). */
		fprintf(out, "%s: saved as result %lld (%s%s%s, %s)\n", file, (long long)id,
			bp_esc(test, sizeof(test), json_string_value(json_object_get(doc, "test"))),
			l ? ", label " : "", bp_esc(name, sizeof(name), l),
			t >= 0 ? bp_history_time(when, sizeof(when), t) : "no time: now");
	}
	json_decref(doc);
	return rc;
}

static int import_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		      char *err, size_t errlen)
{
	const struct bp_common_opts *c = ctx->common;
	struct bp_store *s;
	int failed = 0;

	(void)params;
	(void)r;
	s = bp_store_open(c->db, true, err, errlen);
	if (!s)
		return -EIO;
	for (int i = 0; i < ctx->parsed->npos; i++)
		if (import_one(s, ctx->parsed->pos[i], c->label, ctx->out))
			failed++;
	bp_store_close(s);
	if (fflush(ctx->out) || ferror(ctx->out)) {
		snprintf(err, errlen, "writing the report: %s", strerror(EIO));
		return -EIO;
	}
	if (failed) {
		snprintf(err, errlen, "%d of %d files not imported (said above)", failed,
			 ctx->parsed->npos);
		return -EINVAL;
	}
	return 0;
}

const struct bp_test bp_cmd_import = {
	.name = "import",
	.summary = "add result documents from other boards (--json files) to the results database",
	.synopsis = "FILE... [--label NAME]",
	.opts = import_opts,
	.check = import_check,
	.run = import_run,
	.no_result = true,
};
