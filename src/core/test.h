/*
 * One interface per test kind (docs/ARCHITECTURE.md, "The bp_test interface"). A test kind
 * is a const struct bp_test in its own file plus one line in the registry (src/cli/registry.c). A test never prints:
 * it fills the result it is handed, and the CLI renders it; an interval it closes also goes
 * to the live sink in its context, which shows it at once.
 */
#ifndef BP_CORE_TEST_H
#define BP_CORE_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/options.h"

struct bp_kind;
struct bp_live;
struct bp_result;

/* What a test sees of the invocation besides its own parameters. */
struct bp_test_ctx {
	const struct bp_common_opts *common;
	const struct bp_parsed *parsed; /* positional arguments */
	const char *argv0;              /* path of this binary, for tests that start a peer */
	/*
	 * The command of that name, for suites that run other commands (run, together); the
	 * registry lives above the tests (src/cli), so it is handed down rather than called up.
	 */
	const struct bp_test *(*find)(const char *name);
	/*
	 * Where a test sends each interval the moment it ends (result/live.h:
	 * bp_live_interval(live, r, iv)); NULL: nothing is shown live. The sink prints, the
	 * test still does not. It belongs to the command's own result: a suite's children,
	 * which fill results of their own, print nothing live through it.
	 */
	struct bp_live *live;
	/*
	 * Where a command that reports rather than measures (no_result: history, show,
	 * import) prints what it reports: stdout. A test never prints; it has a result.
	 */
	FILE *out;
	/*
	 * Set by a suite that starts several tests at one moment (together), NULL otherwise.
	 * A test whose set-up takes long (disk writes its files first) and says so in its
	 * bp_test (ready_after_setup) calls bp_test_ready(ctx) once set up, just before its
	 * clock starts; the call returns at the common start. Others are held before run.
	 */
	void (*ready)(void *arg);
	void *ready_arg;
};

/* The test is set up and its clock about to start (see bp_test_ctx.ready). */
static inline void bp_test_ready(const struct bp_test_ctx *ctx)
{
	if (ctx->ready)
		ctx->ready(ctx->ready_arg);
}

struct bp_test {
	const char *name;      /* the command word */
	const char *summary;   /* one line for `boardperf --help` */
	const char *synopsis;  /* "[-c HOST] [-t S]" for the usage line */
	const struct bp_opt *opts;
	size_t params_size;    /* bytes of the parameter struct the option table fills */
	bool no_result;        /* a service (serve): nothing to render when it ends */
	/*
	 * No monitor around the whole run (board/monitor_result.h): a suite monitors each of
	 * its tests instead (run), an inventory measures nothing over time (info).
	 */
	bool no_monitor;
	bool ready_after_setup; /* run calls bp_test_ready once set up (bp_test_ctx.ready) */
	/*
	 * Makes its result of other results and measures nothing (merge): no tester-CPU figures
	 * of its own (and, with no_monitor, no monitor); the figures are the testers'.
	 */
	bool combines_results;
	/*
	 * --start-at: the test connects first and waits for the instant itself, just before
	 * its first byte (a network client: common->start_at_ns), and records the start
	 * (board/start_at_result.h); the CLI lets it go BP_START_LEAD_NS before the instant.
	 * Others are held until the instant and the CLI records their start.
	 */
	bool starts_at_first_byte;
	/*
	 * What the kind is (result/kind.h): its metric catalogue and headline, which the
	 * registry installs at start (bp_registry_install_kinds). NULL: no catalogue (serve,
	 * info, the commands over saved results, and the suites run and together, whose
	 * figures are named after their children's).
	 */
	const struct bp_kind *kind;

	/*
	 * Cross-option and positional checks after parsing (optional). Returns 0 or -EINVAL
	 * with a one-line message: a usage error, exit status 2.
	 */
	int (*check)(void *params, const struct bp_parsed *parsed, char *err, size_t errlen);

	/*
	 * Checks that need the other commands (optional, after check): a suite's inner command
	 * lines (together), parsed by their own tables through ctx->find before anything
	 * runs. A failure is a usage error, as check's.
	 */
	int (*check_inner)(const void *params, const struct bp_test_ctx *ctx, char *err,
			   size_t errlen);

	/*
	 * Measure and fill r. Returns 0, or a negative errno with a one-line message when it
	 * could not measure (exit status 1). Whatever was measured before a failure stays in r
	 * and is still rendered.
	 */
	int (*run)(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen);
};

#endif
