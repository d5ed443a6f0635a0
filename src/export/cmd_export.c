/*
 * `boardperf export --openmetrics`: the newest stored figures for Prometheus, on stdout or
 * (-o) into a file replaced atomically, for node_exporter's textfile collector.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "core/options.h"
#include "core/test.h"
#include "export/om_file.h"
#include "export/om_store.h"
#include "store/store.h"

struct export_params {
	bool openmetrics;
	const char *since;
	const char *output;
};

static const struct bp_opt export_opts[] = {
	{ 0, "openmetrics", BP_OPT_FLAG, offsetof(struct export_params, openmetrics), NULL, NULL,
	  0, 0, NULL, "the OpenMetrics text format (the only one export writes; required)" },
	{ 0, "since", BP_OPT_STRING, offsetof(struct export_params, since), "DATE", NULL, 0, 0,
	  NULL, "only figures of results since a UTC date or time, or an age (2026-11-30, 36h, "
	  "7d)" },
	{ 'o', "output", BP_OPT_STRING, offsetof(struct export_params, output), "FILE", NULL, 0,
	  0, NULL, "write FILE instead of stdout, replaced whole (textfile collector: NAME.prom)" },
	BP_OPT_END_WITHOUT(BP_COMMON_JSON | BP_COMMON_CSV | BP_COMMON_MEASURING),
};

static int export_check(void *params, const struct bp_parsed *parsed, char *err,
			size_t errlen)
{
	const struct export_params *p = params;
	int64_t since;

	if (!p->openmetrics) {
		snprintf(err, errlen, "expected --openmetrics (the format to export; the only one "
			 "there is)");
		return -EINVAL;
	}
	if (p->since && bp_store_parse_since(p->since, time(NULL), &since, err, errlen))
		return -EINVAL;
	if (p->output && !*p->output) {
		snprintf(err, errlen, "-o '': expected a file name");
		return -EINVAL;
	}
	return bp_check_no_positional(parsed, err, errlen);
}

struct export_job {
	const char *db;
	int64_t since;
	struct bp_om_store_counts counts;
};

static int fill(FILE *out, void *arg, char *err, size_t errlen)
{
	struct export_job *j = arg;
	int rc = bp_om_store_write(j->db, j->since, out, BP_OM_OPENMETRICS, &j->counts, err,
				   errlen);

	if (!rc)
		bp_om_end(out, BP_OM_OPENMETRICS);
	return rc;
}

/* What was left out, once, so that a figure missing in Prometheus is explained. */
static void say_counts(const struct export_params *p, const struct bp_om_store_counts *c)
{
	bp_info("%zu figures of %zu results (board, label, test) written to %s", c->figures,
		c->results, p->output ? p->output : "stdout");
	if (c->unnamed || c->not_finite || c->clashes)
		bp_warn("left out: %zu figures whose name gives no Prometheus name, %zu without a "
			"finite value, %zu that came out as the same series as another",
			c->unnamed, c->not_finite, c->clashes);
}

static int export_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		      char *err, size_t errlen)
{
	const struct export_params *p = params;
	struct export_job j = { .db = ctx->common->db };
	int rc;

	(void)r;
	if (p->since)
		bp_store_parse_since(p->since, time(NULL), &j.since, err, errlen);
	if (p->output) {
		rc = bp_om_write_file(p->output, fill, &j, err, errlen);
	} else {
		rc = fill(ctx->out, &j, err, errlen);
		if (!rc && (fflush(ctx->out) || ferror(ctx->out))) {
			rc = -EIO;
			snprintf(err, errlen, "writing to stdout: %s", strerror(EIO));
		}
	}
	if (!rc)
		say_counts(p, &j.counts);
	return rc;
}

const struct bp_test bp_cmd_export = {
	.name = "export",
	.summary = "the newest stored figures for Prometheus (OpenMetrics; node_exporter's "
		   "textfile collector)",
	.synopsis = "--openmetrics [--since DATE] [-o FILE] [--db FILE]",
	.opts = export_opts,
	.params_size = sizeof(struct export_params),
	.check = export_check,
	.run = export_run,
	.no_result = true,
};
