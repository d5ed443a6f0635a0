/*
 * Suites run other commands as children of one result. A child is given as the command
 * line a user would type, so it goes through the same option table, checks and defaults,
 * and its result records the same effective parameters as when run alone.
 */
#ifndef BP_SUITE_SUITE_H
#define BP_SUITE_SUITE_H

#include <stddef.h>

#include "core/test.h"
#include "result/result.h"

/*
 * Run `boardperf ARGV...` (argv[0] is the command, NULL-terminated) and add its result to
 * parent. A child that fails keeps what it measured, and the parent gets a warning
 * "child-failed" naming it. Returns 0, or the child's negative errno with its message.
 */
int bp_suite_run_child(struct bp_result *parent, const char *const *argv,
		       const struct bp_test_ctx *ctx, char *err, size_t errlen);

/*
 * Parse and check `boardperf ARGV...` for command t (argv[0] its name) as
 * bp_suite_run_child does, for a suite that runs its children itself (at the same moment,
 * on threads of its own). *params is the caller's to free (also after a failure). 0 or
 * -EINVAL with the child's own usage message.
 */
int bp_suite_parse_child(const struct bp_test *t, const char *const *argv, void **params,
			 struct bp_common_opts *common, struct bp_parsed *parsed,
			 char *err, size_t errlen);

#endif
