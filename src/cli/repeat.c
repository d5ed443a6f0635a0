#include "cli/repeat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/signals.h"
#include "core/starve.h"
#include "result/repeat_figures.h"
#include "result/result_starve.h"

bool bp_cli_repeat_wanted(const struct bp_common_opts *c)
{
	return c->repeat > 0 || c->until_stable > 0;
}

static long cap_of(const struct bp_common_opts *c)
{
	if (c->repeat > 0)
		return (long)c->repeat;
	return c->until_stable > 0 ? BP_REPEAT_STABLE_CAP : 1;
}

int bp_cli_repeat_check(const struct bp_common_opts *c, char *err, size_t errlen)
{
	/* which commands take --repeat at all is their option table's (BP_OPT_END_WITHOUT) */
	if (c->until_stable > 0 && cap_of(c) < BP_REPEAT_STABLE_MIN) {
		snprintf(err, errlen, "--repeat '%ld': --until-stable needs a cap of at least %d "
			 "runs", cap_of(c), BP_REPEAT_STABLE_MIN);
		return -EINVAL;
	}
	return 0;
}

/* One run of t as a child of r, with its own parameters and starvation, as a suite's step. */
static int run_once(const struct bp_test *t, const void *params, const struct bp_test_ctx *ctx,
		    struct bp_result *r, char *err, size_t errlen)
{
	struct bp_result *run = bp_result_new(t->name);
	struct bp_test_ctx cctx = *ctx;
	struct bp_starve_snap s0;
	struct bp_starve_figures starved;
	int rc;

	if (!run) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* a run shows nothing live: the command's own result is what the sink follows */
	cctx.live = NULL;
	bp_result_set_params(run, bp_opts_to_json(t->opts, params));
	bp_starve_snap_take(&s0);
	rc = t->run(params, &cctx, run, err, errlen);
	bp_starve_since(&s0, &starved);
	bp_result_add_starvation(run, &starved);
	if (rc && !run->error.code)
		bp_result_set_error(run, bp_error_code(rc), "%s", err[0] ? err : strerror(-rc));
	if (bp_result_add_child(r, run) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

/* The primary headline figure's CoV over the runs so far (NaN while undefined). */
static double primary_cov(const struct bp_result *r, char *name, size_t namelen)
{
	struct bp_repeat_figure f[BP_REPEAT_FIGURES];
	struct bp_run_stats s;

	if (!bp_repeat_figures_of(r, f, BP_REPEAT_FIGURES))
		return NAN;
	snprintf(name, namelen, "%s", f[0].name);
	bp_repeat_stats(r, &f[0], &s);
	return s.cov;
}

/* The effective repeat options, beside the command's own parameters. */
static void record_params(struct bp_result *r, const struct bp_common_opts *c, long cap)
{
	if (!json_is_object(r->params))
		return;
	json_object_set_new(r->params, "repeat", json_integer(cap));
	json_object_set_new(r->params, "until_stable",
			    c->until_stable > 0 ? json_real(c->until_stable) : json_null());
}

/* The CoV reached and the target missed, in the words of docs/run.md, "Repeating a test". */
static void warn_not_stable(struct bp_result *r, const char *name, double cov, double target,
			    long cap)
{
	char reached[48];

	if (isfinite(cov))
		snprintf(reached, sizeof(reached), "%.2f %%", cov);
	else
		snprintf(reached, sizeof(reached), "undefined");
	bp_result_add_warning(r, "not-stable", "%s: CoV %s over %zu runs, above --until-stable "
			      "%g %% (at most %ld runs)", name[0] ? name : "no headline figure",
			      reached, bp_repeat_runs_ok(r), target, cap);
}

int bp_cli_run_repeated(const struct bp_test *t, const void *params,
			const struct bp_test_ctx *ctx, struct bp_result *r, char *err,
			size_t errlen)
{
	const struct bp_common_opts *c = ctx->common;
	long cap = cap_of(c);
	double cov = NAN;
	char name[96] = "";
	bool stable = false;
	int rc = 0;

	record_params(r, c, cap);
	r->text_children_as_rows = true;
	for (long i = 0; i < cap && !stable && !bp_stop_requested(); i++) {
		bp_info("run %ld of at most %ld", i + 1, cap);
		rc = run_once(t, params, ctx, r, err, errlen);
		if (rc)
			break;
		cov = primary_cov(r, name, sizeof(name));
		stable = c->until_stable > 0 && i + 1 >= BP_REPEAT_STABLE_MIN && isfinite(cov) &&
			 cov <= c->until_stable;
	}
	if (bp_repeat_summarize(r) && !rc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (c->until_stable > 0 && !stable && !rc)
		warn_not_stable(r, name, cov, c->until_stable, cap);
	return rc;
}
