/*
 * The monitor in a result: each interval's `monitor` object, the result's `monitor`
 * summary and the warnings throttled, clock-dropped, hot and busy-machine (docs/json.md, "The
 * monitor"). bp_monitor_begin and bp_monitor_end are what the command path (cli/dispatch.c)
 * and a suite's children (suite/suite.c) call around a test's run.
 */
#ifndef BP_BOARD_MONITOR_RESULT_H
#define BP_BOARD_MONITOR_RESULT_H

#include "board/monitor.h"
#include "core/options.h"
#include "result/result.h"

/*
 * Only for tests: the /sys tree the monitor reads instead of the machine's (a fixture whose
 * files a test changes during the run). Documented in docs/json.md, "The monitor".
 */
#define BP_MONITOR_SYS_ROOT_ENV "BP_MONITOR_SYS_ROOT"

/*
 * A running monitor for the test about to fill r (its params hold the test's "interval"),
 * NULL with --no-monitor or when it cannot start (the test runs unwatched, and says so at
 * debug level).
 */
struct bp_monitor *bp_monitor_begin(const struct bp_result *r, const struct bp_common_opts *c);

/* Stops m, puts its figures and warnings into r when r measured something, frees m. */
void bp_monitor_end(struct bp_monitor *m, struct bp_result *r, const struct bp_common_opts *c);

/* The figures and warnings of a stopped monitor; busy_warn: --busy-warn's percent. */
int bp_monitor_to_result(const struct bp_monitor *m, struct bp_result *r, double busy_warn);

#endif
