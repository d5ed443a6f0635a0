/* `boardperf info`: the hardware inventory as a result of its own. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "board/env.h"
#include "core/checks.h"
#include "core/test.h"
#include "result/result.h"

struct info_params {
	const char *dir;
	const char *root;
};

static const struct bp_opt info_opts[] = {
	{ 'd', "dir", BP_OPT_STRING, offsetof(struct info_params, dir), "PATH", NULL, 0, 0, NULL,
	  "also describe the block device behind PATH (bus, model, USB speed)" },
	{ 0, "root", BP_OPT_STRING, offsetof(struct info_params, root), "DIR", "/", 0, 0, NULL,
	  "read /proc and /sys under DIR (a saved tree of another board)" },
	BP_OPT_END_WITHOUT(BP_COMMON_REPEAT | BP_COMMON_MONITOR | BP_COMMON_START),
};

static int info_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct info_params *p = params;
	int rc = bp_check_no_positional(parsed, err, errlen);

	if (!rc)
		rc = bp_check_dir("--dir", p->dir, err, errlen);
	if (!rc)
		rc = bp_check_dir("--root", p->root, err, errlen);
	return rc;
}

static int info_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	const struct info_params *p = params;
	json_t *env;

	(void)ctx;
	env = bp_env_snapshot(p->root, p->dir);
	if (!env) {
		snprintf(err, errlen, "could not build the inventory: out of memory");
		return -ENOMEM;
	}
	bp_result_set_env(r, env);
	r->text_show_env = true;
	return 0;
}

const struct bp_test bp_cmd_info = {
	.name = "info",
	.summary = "hardware inventory: board, SoC, cores, clocks, thermal, memory, NICs, storage",
	.synopsis = "[--dir PATH] [--root DIR]",
	.opts = info_opts,
	.params_size = sizeof(struct info_params),
	.check = info_check,
	.run = info_run,
	.no_monitor = true,
};
