#include "cli/dispatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/env.h"
#include "cli/capture.h"
#include "board/monitor_result.h"
#include "board/start_at_result.h"
#include "cli/registry.h"
#include "cli/save.h"
#include "cli/repeat.h"
#include "core/buildinfo.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/start_at.h"
#include "result/live.h"
#include "core/starve.h"
#include "core/term.h"
#include "result/render.h"
#include "result/result.h"
#include "result/kind_check.h"
#include "result/result_starve.h"
#include "result/result_verdict.h"

static void apply_log_level(const struct bp_common_opts *c)
{
	if (c->quiet)
		bp_log_set_level(BP_LOG_ERROR);
	else if (c->verbose >= 2)
		bp_log_set_level(BP_LOG_TRACE);
	else if (c->verbose == 1)
		bp_log_set_level(BP_LOG_DEBUG);
}

#ifdef BP_CHECK_CATALOGUE
/*
 * Debug and sanitizer builds: a figure its kind does not declare (result/kind_check.h) is a
 * bug in the test that emitted it, caught by whichever test ran it.
 */
static void check_catalogue(const struct bp_result *r)
{
	char why[256];

	if (!bp_kind_check_result(r, why, sizeof(why)))
		return;
	bp_error("undeclared figure: %s (result/kind.h)", why);
	if (!getenv("BP_CATALOGUE_WARN_ONLY"))
		abort();
}
#endif

/* ctx: its common and parsed are c and parsed, for check_inner once they are filled. */
static int parse_command_line(const struct bp_test *t, void *params, struct bp_common_opts *c,
			      struct bp_parsed *parsed, const struct bp_test_ctx *ctx, int argc,
			      char **argv)
{
	char err[512] = "";
	int rc = bp_opts_parse(t->opts, params, c, parsed, argc, argv, err, sizeof(err));

	if (!rc)
		rc = bp_check_exclusive(c->json_stream, "--json-stream", c->json, "--json", err,
					sizeof(err));
	if (!rc)
		rc = bp_check_exclusive(c->json_stream, "--json-stream", c->csv, "--csv", err,
					sizeof(err));
	if (!rc)
		rc = bp_check_exclusive(c->json, "--json", c->csv, "--csv", err, sizeof(err));
	if (!rc)
		rc = bp_cli_check_store_opts(c, err, sizeof(err));
	if (!rc)
		rc = bp_cli_repeat_check(c, err, sizeof(err));
	if (!rc && c->start_at && !c->help)
		rc = bp_start_at_parse(c->start_at, bp_wall_ns(), &c->start_at_ns, err, sizeof(err));
	if (!rc && c->start_at && bp_cli_repeat_wanted(c)) {
		snprintf(err, sizeof(err), "--start-at with --repeat: one instant starts one run; "
			 "expected one of them");
		rc = -EINVAL;
	}
	if (!rc && !c->help && t->check)
		rc = t->check(params, parsed, err, sizeof(err));
	if (!rc && !c->help && t->check_inner)
		rc = t->check_inner(params, ctx, err, sizeof(err));
	if (rc) {
		bp_error("%s (see 'boardperf %s --help')", err, t->name);
		return BP_EXIT_USAGE;
	}
	return BP_EXIT_OK;
}

/*
 * Render whatever the test measured, even after a failure. After live lines: JSON Lines end
 * with the error and the whole document, text with the rest of the result (the interval
 * lines are out already).
 */
static int render_result(const struct bp_result *r, const struct bp_common_opts *c,
			 struct bp_live *live, FILE *out)
{
	enum bp_format fmt = c->json ? BP_FORMAT_JSON : c->csv ? BP_FORMAT_CSV : BP_FORMAT_TEXT;
	int rc;

	if (c->json_stream) {
		rc = bp_live_finish(live, r);
	} else if (fmt == BP_FORMAT_TEXT && bp_live_lines(live)) {
		rc = bp_live_finish(live, r);  /* a write error of the lines already out */
		if (!rc)
			rc = bp_render_text_after_live(out, r);
	} else {
		rc = bp_render(out, r, fmt);
	}
	if (!rc && fflush(out))
		rc = -errno;
	if (rc) {
		/* EPIPE: the reader went away (`| head`) and wants no line about it. */
		if (rc != -EPIPE)
			bp_error("writing the result: %s", strerror(-rc));
		return BP_EXIT_FAILED;
	}
	return BP_EXIT_OK;
}

static bool result_has_content(const struct bp_result *r)
{
	return bp_result_measured(r) || r->text_show_env;
}

/*
 * The one rule after SIGINT or SIGTERM (docs/ARCHITECTURE.md, "Exit status"): what was
 * measured until then is a result, exit 0 with an "interrupted" warning (each test may
 * have said more precisely what it cut short); a test stopped before it measured anything
 * could not measure, exit 1 with the error "interrupted". A test that failed for a reason
 * of its own keeps that error.
 */
/*
 * A FAIL the test reached (result/result_verdict.h) is the exit status BP_EXIT_VERDICT, apart
 * from "could not measure": a script can tell a FAIL from a run that never happened. Only
 * the command's own result: a suite's step keeps its verdict in the suite's summary.
 */
static bool failed_verdict(const struct bp_result *r)
{
	return bp_result_verdict(r) == 0;
}

static int apply_stop_rule(struct bp_result *r, int rc, char *err, size_t errlen)
{
	if (!bp_stop_requested() || (rc && rc != -EINTR))
		return rc;
	if (result_has_content(r)) {
		/* A test's -EINTR message says what it cut short; it becomes the warning. */
		if (!bp_result_has_warning(r, "interrupted") && rc && err[0])
			bp_result_add_warning(r, "interrupted", "%s", err);
		else if (!bp_result_has_warning(r, "interrupted"))
			bp_result_add_warning(r, "interrupted", "stopped by signal %d: the figures "
					      "measured until then are shown", bp_stop_signal());
		err[0] = '\0';
		return 0;
	}
	if (!rc || !err[0])
		snprintf(err, errlen, "stopped by signal %d before anything was measured",
			 bp_stop_signal());
	return -EINTR;
}

/*
 * The live sink a command's test is handed: interval lines in text (none for --json, one
 * document at the end, or --csv), JSON Lines for --json-stream; none for a service.
 */
static bool wants_live(const struct bp_test *t, const struct bp_common_opts *c)
{
	return !t->no_result && (c->json_stream || !(c->json || c->csv));
}

/* The format the result is printed in, as the store names it. */
static const char *printed_format(const struct bp_common_opts *c)
{
	return c->json_stream ? "json-stream" : c->json ? "json" : c->csv ? "csv" : "text";
}

/* Params by the command's table, and the common --label (docs/json.md, "Common options and exit
 * status": params.label). */
static json_t *params_json(const struct bp_test *t, const void *params,
			   const struct bp_common_opts *c)
{
	json_t *p = bp_opts_to_json(t->opts, params);

	if (p && c->label && json_object_set_new(p, "label", json_string(c->label))) {
		json_decref(p);
		return NULL;
	}
	return p;
}

/*
 * After the result is printed, never before: a database that is slow, locked or broken
 * cannot hold back or cost the figures, and what is saved is what the user saw.
 */
static void save_printed(const struct bp_result *r, const struct bp_common_opts *c,
			 struct bp_capture *cap, int render_status)
{
	const char *bytes = NULL;
	size_t len = 0;

	if (cap && render_status == BP_EXIT_OK)
		bytes = bp_capture_bytes(cap, &len);
	bp_cli_save(r, c, bytes, len, printed_format(c));
}

/*
 * --start-at (core/start_at.h): a test that connects first is let go BP_START_LEAD_NS before
 * the instant and waits for it itself (bp_test.starts_at_first_byte); another is held until
 * the instant, and its start recorded here. -EINTR when Ctrl-C ended the wait.
 */
static int start_at_wait(const struct bp_test *t, const struct bp_common_opts *c,
			 struct bp_result *r)
{
	int64_t lead = t->starts_at_first_byte ? BP_START_LEAD_NS : 0;
	int rc;

	if (!c->start_at_ns)
		return 0;
	rc = bp_start_at_wait(c->start_at_ns - lead);
	if (!rc && !lead)
		rc = bp_start_at_record(r, c->start_at_ns, bp_wall_ns());
	return rc == -EINTR ? rc : 0;
}

static int run_and_render(const struct bp_test *t, const void *params,
			  const struct bp_test_ctx *cctx)
{
	struct bp_result *r = bp_result_new(t->name);
	const struct bp_common_opts *c = cctx->common;
	bool structured = c->json || c->csv || c->json_stream;
	bool save = !t->no_result && !c->no_save;
	/* Without a copy (no memory for one) the result is still printed and saved. */
	struct bp_capture *cap = save ? bp_capture_new(stdout) : NULL;
	FILE *out = cap ? bp_capture_file(cap) : stdout;
	struct bp_test_ctx ctx = *cctx;
	struct bp_starve_snap s0;
	struct bp_starve_figures starved;
	struct bp_monitor *mon = NULL;
	char err[512] = "";
	const char *why;
	int rc, waited, status = BP_EXIT_OK;

	if (wants_live(t, c))
		ctx.live = bp_live_new(out, c->json_stream ? BP_LIVE_JSON_STREAM : BP_LIVE_TEXT);
	if (!r || (wants_live(t, c) && !ctx.live)) {
		bp_error("out of memory");
		bp_result_free(r);
		bp_live_free(ctx.live);
		bp_capture_free(cap);
		return BP_EXIT_FAILED;
	}
	bp_result_set_params(r, params_json(t, params, c));
	bp_result_set_params_defaulted(r, bp_opts_defaulted(t->opts, params, t->params_size));
	/* The live snapshot; a test that looks elsewhere (info --root) replaces it. A service
	 * renders no result, and should not carry the inventory's memory while it serves. */
	if (!t->no_result)
		bp_result_set_env(r, bp_env_snapshot("/", NULL));
	/* the live lines fit the same width (their children get it again before the text) */
	bp_result_set_text_layout(r, c->verbose, bp_term_width(STDOUT_FILENO));
	bp_live_start(ctx.live, r);
	/* --start-at: nothing is measured before the instant (or its lead) */
	waited = start_at_wait(t, c, r);
	/* What the board did meanwhile, for every measuring command (docs/json.md, "The
	 * monitor"). */
	if (!t->no_result && !t->no_monitor)
		mon = bp_monitor_begin(r, c);
	bp_starve_snap_take(&s0);
	if (waited) {
		rc = waited;
		snprintf(err, sizeof(err), "interrupted while waiting for --start-at %s",
			 c->start_at);
	} else if (bp_cli_repeat_wanted(c))
		rc = bp_cli_run_repeated(t, params, &ctx, r, err, sizeof(err));
	else
		rc = t->run(params, &ctx, r, err, sizeof(err));
	if (!t->no_result) {
		/* The CPU the test did not get, for every command in one place (docs/json.md,
		 * "The tester's CPU"). */
		bp_starve_since(&s0, &starved);
		if (!t->combines_results)
			bp_result_add_starvation(r, &starved);
		bp_monitor_end(mon, r, c);
		rc = apply_stop_rule(r, rc, err, sizeof(err));
	}
#ifdef BP_CHECK_CATALOGUE
	if (!t->no_result)
		check_catalogue(r);
#endif
	why = err[0] ? err : strerror(-rc);
	/* JSON and CSV readers get the error in the document, beside what was measured. */
	/* a test that named its own code (gpio's "no-gpio", "line-busy") keeps it */
	if (rc && !r->error.code)
		bp_result_set_error(r, bp_error_code(rc), "%s", why);
	/* Only figures need the caveat; an inventory is as true in any build. */
	if (bp_build_caveat() && (r->nmetrics || r->nchildren))
		bp_result_add_warning(r, "unrepresentative-build", "%s", bp_build_caveat());
	if (!t->no_result && (rc == 0 || structured || result_has_content(r))) {
		bp_result_set_text_layout(r, c->verbose, bp_term_width(STDOUT_FILENO));
		status = render_result(r, c, ctx.live, out);
		if (save)
			save_printed(r, c, cap, status);
	}
	if (rc) {
		if (rc != -EPIPE)  /* a command that prints as it goes (show), read by `| head` */
			bp_error("%s", why);
		status = BP_EXIT_FAILED;
	} else if (!t->no_result && status == BP_EXIT_OK && failed_verdict(r)) {
		status = BP_EXIT_VERDICT;
	}
	bp_live_free(ctx.live);
	bp_capture_free(cap);
	bp_result_free(r);
	return status;
}

int bp_cli_run_command(const struct bp_test *t, int argc, char **argv, const char *argv0)
{
	struct bp_common_opts common;
	struct bp_parsed parsed;
	struct bp_test_ctx ctx = { .common = &common, .parsed = &parsed, .argv0 = argv0,
				   .find = bp_test_find, .out = stdout };
	char prefix[64];
	void *params = calloc(1, t->params_size ? t->params_size : 1);
	int status;

	if (!params) {
		bp_error("out of memory");
		return BP_EXIT_FAILED;
	}
	snprintf(prefix, sizeof(prefix), "boardperf %s", t->name);
	bp_log_set_prefix(prefix);
	status = parse_command_line(t, params, &common, &parsed, &ctx, argc, argv);
	if (status == BP_EXIT_OK && common.help) {
		bp_opts_help(stdout, t->name, t->synopsis, t->summary, t->opts);
	} else if (status == BP_EXIT_OK) {
		apply_log_level(&common);
		bp_signals_install();
		status = run_and_render(t, params, &ctx);
	}
	free(params);
	return status;
}
