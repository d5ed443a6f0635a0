#include "suite/suite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/monitor_result.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/starve.h"
#include "core/unconst.h"
#include "result/result_starve.h"

static int child_params(const struct bp_test *t, const char *const *argv, void **params,
			struct bp_common_opts *common, struct bp_parsed *parsed,
			char *err, size_t errlen)
{
	int argc = 0, rc;

	while (argv[1 + argc])
		argc++;
	*params = calloc(1, t->params_size ? t->params_size : 1);
	if (!*params)
		return -ENOMEM;
	/* The option engine only reads argv: it takes char ** as main() has it. */
	rc = bp_opts_parse(t->opts, *params, common, parsed, argc,
			   (char **)bp_unconst(argv) + 1, err, errlen);
	if (!rc && t->check)
		rc = t->check(*params, parsed, err, errlen);
	return rc;
}

int bp_suite_run_child(struct bp_result *parent, const char *const *argv,
		       const struct bp_test_ctx *ctx, char *err, size_t errlen)
{
	const struct bp_test *t = ctx->find ? ctx->find(argv[0]) : NULL;
	struct bp_common_opts common;
	struct bp_parsed parsed;
	struct bp_test_ctx cctx = *ctx;
	struct bp_result *r = NULL;
	struct bp_starve_snap s0;
	struct bp_starve_figures starved;
	struct bp_monitor *mon;
	void *params = NULL;
	int rc;

	if (!t) {
		snprintf(err, errlen, "suite names unknown command '%s'", argv[0]);
		return -EINVAL;
	}
	rc = child_params(t, argv, &params, &common, &parsed, err, errlen);
	r = rc ? NULL : bp_result_new(t->name);
	if (!rc && !r)
		rc = -ENOMEM;
	if (rc) {
		/* refused before it ran (e.g. no room for the disk test's files): said, too */
		bp_result_add_warning(parent, "child-failed", "%s: %s", t->name,
				      err[0] ? err : "out of memory");
		goto out;
	}
	cctx.common = &common;
	cctx.parsed = &parsed;
	bp_result_set_params(r, bp_opts_to_json(t->opts, params));
	bp_result_set_params_defaulted(r, bp_opts_defaulted(t->opts, params, t->params_size));
	bp_info("running %s", t->name);
	/* the suite's own --no-monitor and --busy-warn, as the command line gave them */
	mon = t->no_monitor ? NULL : bp_monitor_begin(r, ctx->common);
	bp_starve_snap_take(&s0);
	rc = t->run(params, &cctx, r, err, errlen);
	bp_starve_since(&s0, &starved);
	bp_result_add_starvation(r, &starved);
	bp_monitor_end(mon, r, ctx->common);
	if (rc) {
		/* the child's own document says why, as a command run alone would */
		if (!r->error.code)  /* unless it named its own code */
			bp_result_set_error(r, bp_error_code(rc), "%s",
					    err[0] ? err : strerror(-rc));
		bp_result_add_warning(parent, "child-failed", "%s: %s", t->name, err);
	}
	rc = bp_result_add_child(parent, r) ? -ENOMEM : rc;
out:
	free(params);
	return rc;
}

int bp_suite_parse_child(const struct bp_test *t, const char *const *argv, void **params,
			 struct bp_common_opts *common, struct bp_parsed *parsed,
			 char *err, size_t errlen)
{
	return child_params(t, argv, params, common, parsed, err, errlen);
}
