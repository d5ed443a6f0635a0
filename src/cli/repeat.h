/*
 * `--repeat N` and `--until-stable COV` on any measuring command: the test runs again and
 * again, each run a child result of the command's own (kept whole, under "results" in JSON
 * as `run`'s steps are), and the command's result holds the median, min, max and
 * coefficient of variation of the runs' headline figures (result/repeat_figures.h).
 */
#ifndef BP_CLI_REPEAT_H
#define BP_CLI_REPEAT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/options.h"
#include "core/test.h"
#include "result/result.h"

/* The cap --until-stable takes without --repeat: ten runs. */
#define BP_REPEAT_STABLE_CAP 10
/* Fewer runs than three say little about a spread: --until-stable judges from the third. */
#define BP_REPEAT_STABLE_MIN 3

/* The user asked for repeated runs (either option). */
bool bp_cli_repeat_wanted(const struct bp_common_opts *c);

/*
 * A usage error (-EINVAL with one line) when --repeat caps below the runs --until-stable
 * needs. (A command whose result is not one measurement, info, run, together, or that has
 * none, serve, does not take the options: its option table says so, and the parser.)
 */
int bp_cli_repeat_check(const struct bp_common_opts *c, char *err, size_t errlen);

/*
 * Run t as --repeat/--until-stable say, each run a child of r, then r's figures. Stops at
 * the first run that failed (its error is returned, the runs before it kept and summarised),
 * at a signal, or once stable. As t->run: 0 or a negative errno with a message.
 */
int bp_cli_run_repeated(const struct bp_test *t, const void *params,
			const struct bp_test_ctx *ctx, struct bp_result *r, char *err,
			size_t errlen);

#endif
