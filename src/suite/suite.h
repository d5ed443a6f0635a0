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

#endif
