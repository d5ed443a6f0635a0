/*
 * A test's starvation figures (core/starve.h) in its result: the figures in cpu.local and,
 * past the threshold, the warning tester-cpu-starved. Applied once per result by the path
 * every command runs through (cli/dispatch.c, suite/suite.c), so no test can forget it.
 */
#ifndef BP_RESULT_RESULT_STARVE_H
#define BP_RESULT_RESULT_STARVE_H

#include "core/starve.h"
#include "result/result.h"

/*
 * Only a result that holds figures (metrics or intervals) gets them: an inventory or a
 * failure before anything was measured has nothing that could read low. Returns 0 or
 * -ENOMEM.
 */
int bp_result_add_starvation(struct bp_result *r, const struct bp_starve_figures *f);

#endif
