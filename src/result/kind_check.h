/*
 * A result holds only what its kind declares (result/kind.h): every metric of its totals
 * and intervals, and of its children's under their own kinds, named in the catalogue with
 * the declared unit and in a declared scope. Debug and sanitizer builds check every result a
 * command measured before it is shown (cli/dispatch.c), so every integration test checks it;
 * documents read back (import, compare, report of files) are never held to it.
 */
#ifndef BP_RESULT_KIND_CHECK_H
#define BP_RESULT_KIND_CHECK_H

#include <stddef.h>

#include "result/result.h"

/*
 * 0, or -EPROTO with one line naming the first figure that breaks the rule ("tcp: metric
 * 'x.y' (interval) is not in its catalogue"). A result of a test without an installed kind
 * (a suite's own figures, info) is not checked; its children are.
 */
int bp_kind_check_result(const struct bp_result *r, char *err, size_t errlen);

#endif
