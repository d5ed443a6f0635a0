/*
 * boardperf report RUN... --html FILE: the HTML page of stored runs and result files
 * (docs/results.md, "HTML report (`report`)"). It measures nothing: a service-like command
 * (no_result) whose run writes the page and says where on stderr.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/options.h"
#include "core/test.h"
#include "report/report.h"
#include "store/store.h"

struct report_params {
	const char *html;
};

static const struct bp_opt report_opts[] = {
	{ 0, "html", BP_OPT_STRING, offsetof(struct report_params, html), "FILE", NULL, 0, 0,
	  NULL, "write the page to FILE ('-': standard output) (required)" },
	BP_OPT_END_WITHOUT(BP_COMMON_JSON | BP_COMMON_CSV | BP_COMMON_MEASURING),
};

static int report_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct report_params *p = params;

	if (!parsed->npos) {
		snprintf(err, errlen, "expected at least one run: a result id, a label or a "
			 "result file");
		return -EINVAL;
	}
	if (!p->html || !p->html[0]) {
		snprintf(err, errlen, "--html FILE is required: where to write the page");
		return -EINVAL;
	}
	return 0;
}

/* The name a run goes by: its label when it has one, else "#12" for an id, the file's
 * name, or what was typed. */
static char *run_name(const char *spec, const json_t *doc)
{
	const json_t *label = json_object_get(json_object_get(doc, "params"), "label");
	const char *slash = strrchr(spec, '/');
	struct stat st;
	char buf[300];

	if (json_is_string(label) && json_string_length(label))
		snprintf(buf, sizeof(buf), "%s", json_string_value(label));
	else if (spec[0] && strspn(spec, "0123456789") == strlen(spec))
		snprintf(buf, sizeof(buf), "#%s", spec);
	else if (stat(spec, &st) == 0)
		snprintf(buf, sizeof(buf), "%s", slash && slash[1] ? slash + 1 : spec);
	else
		snprintf(buf, sizeof(buf), "%s", spec);
	return strdup(buf);
}

/*
 * The database to resolve ids and labels in: the one --db (a common option) names, which
 * must open, else the default when there is one; NULL without (files still resolve).
 */
static int open_store(const char *db, struct bp_store **s, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;

	*s = NULL;
	if (db) {
		*s = bp_store_open(db, false, err, errlen);
		return *s ? 0 : -ENOENT;
	}
	if (bp_store_default_path(path, sizeof(path)) == 0 && stat(path, &st) == 0)
		*s = bp_store_open(path, false, err, errlen);
	return 0;
}

/* The page into FILE.tmp.XXXXXX beside it, then renamed: a failure leaves no half page. */
static int write_page(const char *html, const struct bp_report_run *runs, size_t n, char *err,
		      size_t errlen)
{
	char tmp[4096];
	FILE *f;
	int fd, rc;

	if (!strcmp(html, "-"))
		return bp_report_write(stdout, runs, n, err, errlen);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", html) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "--html '%s': the name is too long", html);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "--html '%s': %s", html, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return rc;
	}
	/* mkstemp's 0600 is for secrets; a page is as readable as any file the user makes */
	(void)fchmod(fd, 0644);
	rc = bp_report_write(f, runs, n, err, errlen);
	if (fclose(f) && !rc) {
		rc = -errno;
		snprintf(err, errlen, "--html '%s': %s", html, strerror(errno));
	}
	if (!rc && rename(tmp, html)) {
		rc = -errno;
		snprintf(err, errlen, "--html '%s': %s", html, strerror(errno));
	}
	if (rc)
		unlink(tmp);
	return rc;
}

static int report_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		      char *err, size_t errlen)
{
	const struct report_params *p = params;
	const struct bp_parsed *pos = ctx->parsed;
	struct bp_report_run runs[BP_MAX_POSITIONAL];
	char *names[BP_MAX_POSITIONAL];
	struct bp_store *s;
	size_t n = 0;
	int rc = open_store(ctx->common->db, &s, err, errlen);

	(void)r;
	for (int i = 0; !rc && i < pos->npos; i++) {
		runs[n].doc = bp_store_resolve(s, pos->pos[i], err, errlen);
		if (!runs[n].doc) {
			rc = -ENOENT;
			break;
		}
		runs[n].name = names[n] = run_name(pos->pos[i], runs[n].doc);
		if (!names[n++]) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	if (!rc)
		rc = write_page(p->html, runs, n, err, errlen);
	if (!rc && strcmp(p->html, "-"))
		bp_info("wrote %s (%zu run%s)", p->html, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		json_decref(runs[i].doc);
		free(names[i]);
	}
	bp_store_close(s);
	return rc;
}

const struct bp_test bp_cmd_report = {
	.name = "report",
	.summary = "an HTML page with charts of stored runs and result files",
	.synopsis = "RUN... --html FILE [--db FILE]",
	.opts = report_opts,
	.params_size = sizeof(struct report_params),
	.no_result = true,
	.check = report_check,
	.run = report_run,
};
