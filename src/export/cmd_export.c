/*
 * `boardperf export --openmetrics`: the newest stored figures for Prometheus, on stdout or
 * (-o) into a file replaced atomically, for node_exporter's textfile collector; `export
 * --push URL`: the same figures put into a Pushgateway's group of this board (a board
 * behind NAT, which Prometheus cannot scrape).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/options.h"
#include "core/test.h"
#include "export/om_file.h"
#include "export/om_push.h"
#include "export/om_store.h"
#include "store/store.h"

struct export_params {
	bool openmetrics;
	const char *since;
	const char *output;
	const char *push, *job, *instance, *cacert;
	uint64_t timeout;
	bool insecure;
	char host[BP_OM_PUSH_NAME_MAX + 1];      /* --instance's default: this host's name */
	struct bp_om_push_target target;         /* --push, parsed by the check */
};

static const struct bp_opt export_opts[] = {
	{ 0, "openmetrics", BP_OPT_FLAG, offsetof(struct export_params, openmetrics), NULL, NULL,
	  0, 0, NULL, "the figures as OpenMetrics text, on stdout or into -o's file (this or "
	  "--push)" },
	{ 0, "since", BP_OPT_STRING, offsetof(struct export_params, since), "DATE", NULL, 0, 0,
	  NULL, "only figures of results since a UTC date or time, or an age (2026-11-30, 36h, "
	  "7d)" },
	{ 'o', "output", BP_OPT_STRING, offsetof(struct export_params, output), "FILE", NULL, 0,
	  0, NULL, "write FILE instead of stdout, replaced whole (textfile collector: NAME.prom)" },
	{ 0, "push", BP_OPT_STRING, offsetof(struct export_params, push), "URL", NULL, 0, 0,
	  NULL, "put the figures into a Prometheus Pushgateway at URL (http[s]://[USER:PASSWORD@]"
	  "HOST:PORT), in the group {job, instance} (docs/results.md, \"A Pushgateway\")" },
	{ 0, "job", BP_OPT_STRING, offsetof(struct export_params, job), "NAME", "boardperf", 0, 0,
	  NULL, "--push: the group's job" },
	{ 0, "instance", BP_OPT_STRING, offsetof(struct export_params, instance), "NAME", NULL,
	  0, 0, NULL, "--push: the group's instance (default: this host's name)" },
	{ 0, "timeout", BP_OPT_DURATION, offsetof(struct export_params, timeout), "S", "10",
	  0.001, 600, NULL, "--push: connection, request and answer within S" },
	{ 0, "cacert", BP_OPT_STRING, offsetof(struct export_params, cacert), "FILE", NULL, 0, 0,
	  NULL, "--push https: trust the certificates in the PEM FILE, not the system's" },
	{ 0, "insecure", BP_OPT_FLAG, offsetof(struct export_params, insecure), NULL, NULL, 0, 0,
	  NULL, "--push https: do not check the gateway's certificate" },
	BP_OPT_END_WITHOUT(BP_COMMON_JSON | BP_COMMON_CSV | BP_COMMON_MEASURING),
};

/* --push's own options, and the URL parsed into p->target. */
static int push_check(struct export_params *p, const struct bp_parsed *parsed, char *err,
		      size_t errlen)
{
	static const char *const own[] = { "job", "instance", "timeout", "cacert", "insecure" };

	if (!p->push) {
		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
			if (bp_parsed_given(parsed, own[i])) {
				snprintf(err, errlen, "--%s applies to --push only", own[i]);
				return -EINVAL;
			}
		return 0;
	}
	if (p->openmetrics || p->output) {
		snprintf(err, errlen, "--push sends the figures to a gateway; %s writes them out: "
			 "one of the two", p->output ? "-o" : "--openmetrics");
		return -EINVAL;
	}
	if (!p->instance) {
		if (gethostname(p->host, sizeof(p->host) - 1) || !p->host[0]) {
			snprintf(err, errlen, "--push: this host has no name to group its figures "
				 "by: expected --instance NAME");
			return -EINVAL;
		}
		p->instance = p->host;
	}
	if (bp_om_push_target_parse(p->push, p->job, p->instance, &p->target, err, errlen))
		return -EINVAL;
	if ((p->cacert || p->insecure) && !p->target.url.tls) {
		snprintf(err, errlen, "--%s applies to https:// URLs only",
			 p->cacert ? "cacert" : "insecure");
		return -EINVAL;
	}
	if (p->cacert && p->insecure) {
		snprintf(err, errlen, "--cacert checks the certificate, --insecure does not: one "
			 "of the two");
		return -EINVAL;
	}
	if (p->cacert && access(p->cacert, R_OK)) {
		snprintf(err, errlen, "--cacert '%s': %s; expected a readable PEM file", p->cacert,
			 strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static int export_check(void *params, const struct bp_parsed *parsed, char *err,
			size_t errlen)
{
	struct export_params *p = params;
	int64_t since;

	if (push_check(p, parsed, err, errlen))
		return -EINVAL;
	if (!p->openmetrics && !p->push) {
		snprintf(err, errlen, "expected --openmetrics (the figures as OpenMetrics text) or "
			 "--push URL (into a Pushgateway)");
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
static void say_counts(const struct export_params *p, const struct bp_om_store_counts *c,
		       unsigned status)
{
	if (p->push && !c->figures)
		bp_warn("no figures to push%s: the group %s is now empty (HTTP %u)",
			p->since ? " since --since" : "", p->target.shown, status);
	else if (p->push)
		bp_info("%zu figures of %zu results (board, label, test) pushed to %s (HTTP %u)",
			c->figures, c->results, p->target.shown, status);
	else
		bp_info("%zu figures of %zu results (board, label, test) written to %s",
			c->figures, c->results, p->output ? p->output : "stdout");
	if (c->unnamed || c->not_finite || c->clashes)
		bp_warn("left out: %zu figures whose name gives no Prometheus name, %zu without a "
			"finite value, %zu that came out as the same series as another",
			c->unnamed, c->not_finite, c->clashes);
}

/*
 * The figures in the text format 0.0.4 (the Pushgateway reads no OpenMetrics), in memory,
 * then one PUT: the group holds exactly this board's newest figures afterwards.
 */
static int push(const struct export_params *p, struct export_job *j, unsigned *status,
		char *err, size_t errlen)
{
	struct bp_om_push_opts o = { .timeout_ns = p->timeout, .insecure = p->insecure,
				     .cacert = p->cacert };
	char *body = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	int rc;

	if (!mem) {
		rc = -errno;  /* before snprintf, which may set errno */
		snprintf(err, errlen, "push: %s", strerror(-rc));
		return rc;
	}
	rc = bp_om_store_write(j->db, j->since, mem, BP_OM_PROMETHEUS, &j->counts, err, errlen);
	if (fclose(mem) && !rc) {
		rc = -ENOMEM;
		snprintf(err, errlen, "push: %s", strerror(ENOMEM));
	}
	if (!rc)
		rc = bp_om_push_put(&p->target, &o, body ? body : "", len, status, err, errlen);
	free(body);
	return rc;
}

static int export_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		      char *err, size_t errlen)
{
	const struct export_params *p = params;
	struct export_job j = { .db = ctx->common->db };
	int rc;

	unsigned status = 0;

	(void)r;
	if (p->since)
		bp_store_parse_since(p->since, time(NULL), &j.since, err, errlen);
	if (p->push) {
		rc = push(p, &j, &status, err, errlen);
	} else if (p->output) {
		rc = bp_om_write_file(p->output, fill, &j, err, errlen);
	} else {
		rc = fill(ctx->out, &j, err, errlen);
		if (!rc && (fflush(ctx->out) || ferror(ctx->out))) {
			rc = -EIO;
			snprintf(err, errlen, "writing to stdout: %s", strerror(EIO));
		}
	}
	if (!rc)
		say_counts(p, &j.counts, status);
	return rc;
}

const struct bp_test bp_cmd_export = {
	.name = "export",
	.summary = "the newest stored figures for Prometheus (OpenMetrics; node_exporter's "
		   "textfile collector; a Pushgateway)",
	.synopsis = "--openmetrics [--since DATE] [-o FILE] [--db FILE] | --push URL [--job NAME] "
		    "[--instance NAME] [--since DATE] [--db FILE]",
	.opts = export_opts,
	.params_size = sizeof(struct export_params),
	.check = export_check,
	.run = export_run,
	.no_result = true,
};
