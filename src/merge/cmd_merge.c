/*
 * `boardperf merge RUN RUN...`: several testers' results of one test as one result (merge.h;
 * docs/json.md, "One result of several testers"). Each RUN is what bp_store_resolve takes:
 * a JSON file a tester wrote (its name without .json names the tester), a result id or a
 * label. One that cannot be read is a tester that gave no result: named in the merged result,
 * which then says it is incomplete (exit status 1), rather than a smaller figure. The merged
 * result is rendered and saved like a measured one, so history, compare, report and export
 * take it as any other result of its test.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/options.h"
#include "core/test.h"
#include "core/unconst.h"
#include "merge/merge.h"
#include "store/store.h"

static const struct bp_opt merge_opts[] = {
	BP_OPT_END_WITHOUT(BP_COMMON_STREAM | BP_COMMON_REPEAT | BP_COMMON_MONITOR |
			   BP_COMMON_START),
};

static int merge_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	(void)params;
	if (parsed->npos < 1) {
		snprintf(err, errlen, "expected the testers' results to merge (JSON files, result "
			 "ids or labels), got none");
		return -EINVAL;
	}
	return 0;
}

/* The tester's name: a file's base name without ".json", "#12" for an id, else as typed. */
static char *tester_name(const char *spec)
{
	char *copy = strdup(spec), *base, *name = NULL;
	size_t n;

	if (!copy)
		return NULL;
	if (strspn(spec, "0123456789") == strlen(spec)) {
		if (asprintf(&name, "#%s", spec) < 0)
			name = NULL;
		free(copy);
		return name;
	}
	base = basename(copy);
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		base[n - 5] = '\0';
	name = strdup(base);
	free(copy);
	return name;
}

/*
 * The database (--db's or the default), where it exists: ids and labels need it; files do
 * not, and the merged result is saved into it (made then) as any result is.
 */
static struct bp_store *open_store(const char *db, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;

	if (!db && bp_store_default_path(path, sizeof(path)) == 0)
		db = path;
	return db && stat(db, &st) == 0 ? bp_store_open(db, false, err, errlen) : NULL;
}

static int merge_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		     char *err, size_t errlen)
{
	const struct bp_parsed *pos = ctx->parsed;
	struct bp_merge_input in[BP_MERGE_MAX_TESTERS] = { 0 };
	char why[BP_MERGE_MAX_TESTERS][512];
	struct bp_store *s;
	size_t n = (size_t)pos->npos;
	int rc = 0;

	(void)params;
	err[0] = '\0';
	s = open_store(ctx->common->db, err, errlen);
	if (!s && err[0])
		return -EIO;
	for (size_t i = 0; i < n && !rc; i++) {
		char *name = tester_name(pos->pos[i]);

		in[i] = (struct bp_merge_input){ .name = name, .source = pos->pos[i],
						 .why = why[i] };
		in[i].doc = bp_store_resolve(s, pos->pos[i], why[i], sizeof(why[i]));
		if (!name) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	bp_store_close(s);
	rc = rc ? rc : bp_merge_build(in, n, r, err, errlen);
	for (size_t i = 0; i < n; i++) {
		free(bp_unconst(in[i].name));
		json_decref(bp_unconst(in[i].doc));
	}
	return rc;
}

const struct bp_test bp_cmd_merge = {
	.name = "merge",
	.summary = "one result of several testers' results of one test (--share, --start-at)",
	.synopsis = "RUN RUN... [--json|--csv] [--label L] [--db FILE]  "
		    "(RUN: a JSON file, a result id or a label)",
	.opts = merge_opts,
	.params_size = 0,
	.no_monitor = true,
	.combines_results = true,
	.check = merge_check,
	.run = merge_run,
};
