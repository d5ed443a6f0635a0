/*
 * `boardperf together "TEST ARGS" "TEST ARGS" ...`: two or more tests of this binary at
 * the same moment, each in a process of its own (suite/together_child.h) released by one
 * common start, and, unless --no-alone, each one alone before them in every round (alone
 * A, alone B, together; --repeat rounds), so that what a test loses beside the others is
 * measured rather than guessed: the degradation in percent of its headline figures, with
 * the spread over the rounds (suite/together_report.h). Every run's own document is a
 * child of this result, as `run`'s are.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/test.h"
#include "result/result.h"
#include "result/result_doc.h"
#include "suite/together_args.h"
#include "suite/together_child.h"
#include "suite/together_metrics.h"
#include "suite/together_report.h"

struct together_params {
	uint64_t time_ns;
	bool alone;
	bool no_alone;
	int64_t repeat;
};

static const struct bp_opt together_opts[] = {
	{ 't', "time", BP_OPT_DURATION, offsetof(struct together_params, time_ns), "S", NULL,
	  0.01, 86400, NULL, "every test's duration, in place of each one's own -t [default: "
	  "each test's own]" },
	{ 0, "alone", BP_OPT_FLAG, offsetof(struct together_params, alone), NULL, NULL, 0, 0,
	  NULL, "each test also alone, before the tests together, in every round (the default)" },
	{ 0, "no-alone", BP_OPT_FLAG, offsetof(struct together_params, no_alone), NULL, NULL,
	  0, 0, NULL, "the tests together only: no figures alone, no degradation" },
	{ 0, "repeat", BP_OPT_INT, offsetof(struct together_params, repeat), "N", "3", 1, 100,
	  NULL, "rounds (each: every test alone, then all together)" },
	BP_OPT_END_WITHOUT(BP_COMMON_REPEAT),
};

static const char *const labels[BP_TOGETHER_MAX] = { "A", "B", "C", "D", "E", "F", "G", "H" };

/*
 * How long the tests of a phase may take to set up before the common start (disk writes
 * its files first, at the medium's speed: 1 GiB at 4 MiB/s is over 4 minutes), and after
 * their -t to wind down; past either they are stopped.
 */
#define SETUP_NS (600 * BP_NS_PER_SEC)
#define WIND_DOWN_NS (60 * BP_NS_PER_SEC)

static int together_check(void *params, const struct bp_parsed *parsed, char *err,
			  size_t errlen)
{
	struct together_params *p = params;

	if (parsed->npos < 2 || parsed->npos > BP_TOGETHER_MAX) {
		snprintf(err, errlen, "expected 2 to %d tests, each one quoted command line such as "
			 "\"tcp -c HOST\" (got %d)", BP_TOGETHER_MAX, parsed->npos);
		return -EINVAL;
	}
	int rc = bp_check_exclusive(p->alone, "--alone", p->no_alone, "--no-alone", err, errlen);

	/* the default, so that the recorded parameters say what ran */
	p->alone = !p->no_alone;
	return rc;
}

/* Every inner command line through its own table and check, before anything runs. */
static int parse_all(const struct together_params *p, const struct bp_test_ctx *ctx,
		     struct bp_inner *in, char *err, size_t errlen)
{
	int rc = 0, n = ctx->parsed->npos, i;

	for (i = 0; !rc && i < n; i++)
		rc = bp_inner_parse(&in[i], i + 1, ctx->parsed->pos[i], ctx->find, p->time_ns, err,
				    errlen);
	if (rc)
		bp_inner_free(&in[i - 1]);
	for (int k = 0; rc && k < i - 1; k++)
		bp_inner_free(&in[k]);
	return rc;
}

static int together_check_inner(const void *params, const struct bp_test_ctx *ctx,
				char *err, size_t errlen)
{
	struct bp_inner in[BP_TOGETHER_MAX];
	int rc = parse_all(params, ctx, in, err, errlen);

	for (int i = 0; !rc && i < ctx->parsed->npos; i++)
		bp_inner_free(&in[i]);
	return rc;
}

/* What the runs so far are, for the result and for the report at the end. */
struct rounds {
	struct bp_inner *in;
	size_t ntests;
	struct bp_together_run runs[BP_TOGETHER_MAX * 2 * 100];
	size_t nruns;
	char first_failure[512];
	size_t failures;
};

/* A child's document as its result, or one that says why there is none. */
static struct bp_result *result_of(const struct bp_together_child *c, const struct bp_inner *in)
{
	char why[256];
	struct bp_result *res = c->doc ? bp_result_from_json(c->doc, why, sizeof(why)) : NULL;

	if (res)
		return res;
	if (!c->doc)
		bp_together_child_why(c, why, sizeof(why));
	res = bp_result_new(in->t->name);
	if (res)
		bp_result_set_error(res, "failed", "%s", why);
	return res;
}

static void note_failure(struct rounds *rs, struct bp_result *r, const struct bp_together_run *run)
{
	const struct bp_inner *in = &rs->in[run->test];
	const char *msg = run->res->error.message ? run->res->error.message : run->res->error.code;

	bp_result_add_warning(r, "child-failed", "test %zu ('%s'), round %d %s: %s",
			      run->test + 1, in->line, run->round,
			      run->together ? "together" : "alone", msg);
	if (!rs->failures++)
		snprintf(rs->first_failure, sizeof(rs->first_failure), "test %zu ('%s'), round %d "
			 "%s: %s", run->test + 1, in->line, run->round,
			 run->together ? "together" : "alone", msg);
}

/*
 * Which run a child's document is, in its own params (the text leaves the children out;
 * JSON, CSV and the store have them): its label, round, phase and, when it had intervals,
 * when its clock started after the common start.
 */
static void annotate(struct bp_result *res, const char *label, int round, bool together,
		     const struct bp_together_child *c)
{
	json_t *o = json_pack("{s:s, s:i, s:s}", "label", label, "round", round, "phase",
			      together ? "together" : "alone");

	if (o && c->has_start)
		json_object_set_new(o, "start", json_real(c->start_s));
	if (!json_is_object(res->params))
		bp_result_set_params(res, json_object());
	if (o && json_is_object(res->params))
		json_object_set_new(res->params, "together", o);
	else
		json_decref(o);
}

/* The children's results into r and the runs, in the order they were started. */
static int keep_phase(struct rounds *rs, struct bp_result *r, struct bp_together_child *cs,
		      const size_t *tests, size_t n, int round)
{
	for (size_t k = 0; k < n; k++) {
		struct bp_result *res = result_of(&cs[k], &rs->in[tests[k]]);
		struct bp_together_run *run = &rs->runs[rs->nruns];

		if (!res || bp_result_add_child(r, res))
			return -ENOMEM;
		annotate(res, labels[tests[k]], round, n > 1 || rs->ntests == 1, &cs[k]);
		*run = (struct bp_together_run){
			.test = tests[k], .round = round, .together = n > 1 || rs->ntests == 1,
			.res = res, .start_s = cs[k].start_s, .has_start = cs[k].has_start,
		};
		rs->nruns++;
		if (res->error.code)
			note_failure(rs, r, run);
	}
	return 0;
}

/* The longest -t of the tests in a phase, for its bound. */
static uint64_t longest(const struct rounds *rs, const size_t *tests, size_t n)
{
	uint64_t t = 0;

	for (size_t k = 0; k < n; k++)
		if (rs->in[tests[k]].time_ns > t)
			t = rs->in[tests[k]].time_ns;
	return t;
}

/* One phase: the tests tests[0..n) started at one moment, their results kept. */
static int run_phase(struct rounds *rs, struct bp_result *r, const struct bp_test_ctx *ctx,
		     const size_t *tests, size_t n, int round, char *err, size_t errlen)
{
	struct bp_together_child cs[BP_TOGETHER_MAX];
	struct bp_together_gate g;
	int others[BP_TOGETHER_MAX], rc;
	size_t started = 0;
	uint64_t t0;

	rc = bp_together_gate_open(&g, err, errlen);
	if (rc)
		return rc;
	for (; started < n; started++) {
		rc = bp_together_child_start(&cs[started], &rs->in[tests[started]],
					     labels[tests[started]], ctx, &g, others, started,
					     err, errlen);
		if (rc)
			break;
		others[started] = cs[started].out_fd;
	}
	if (!rc && !bp_together_await_ready(cs, n, &g, bp_now_ns() + SETUP_NS)) {
		snprintf(err, errlen, "together: a test's process ended, or was not set up "
			 "within %d s, before the common start (round %d)",
			 (int)(SETUP_NS / BP_NS_PER_SEC), round);
		rc = -EIO;
	}
	if (rc) {
		for (size_t k = 0; k < started; k++)
			bp_together_child_release(&cs[k]);
		bp_together_gate_close(&g);
		return rc;
	}
	bp_debug("round %d: %zu test(s) ready, starting", round, n);
	t0 = bp_together_gate_release(&g);
	bp_together_collect(cs, n, t0, t0 + longest(rs, tests, n) + WIND_DOWN_NS);
	rc = keep_phase(rs, r, cs, tests, n, round);
	for (size_t k = 0; k < n; k++)
		bp_together_child_release(&cs[k]);
	bp_together_gate_close(&g);
	return rc;
}

/* A round: each test alone (unless no_alone), then all together. */
static int run_round(struct rounds *rs, struct bp_result *r, const struct bp_test_ctx *ctx,
		     bool alone, int round, char *err, size_t errlen)
{
	size_t all[BP_TOGETHER_MAX];
	int rc = 0;

	for (size_t i = 0; i < rs->ntests; i++)
		all[i] = i;
	for (size_t i = 0; alone && !rc && i < rs->ntests && !bp_stop_requested(); i++) {
		bp_info("round %d: %s (%s) alone", round, labels[i], rs->in[i].line);
		rc = run_phase(rs, r, ctx, &all[i], 1, round, err, errlen);
	}
	if (!rc && !bp_stop_requested()) {
		bp_info("round %d: together", round);
		rc = run_phase(rs, r, ctx, all, rs->ntests, round, err, errlen);
	}
	return rc;
}

/* params: the command lines, in the order of their labels (A, B, ...). */
static void describe(struct bp_result *r, const struct rounds *rs)
{
	json_t *tests = json_array(), *names = json_array();

	for (size_t i = 0; i < rs->ntests; i++) {
		json_array_append_new(tests, json_string(rs->in[i].line));
		json_array_append_new(names, json_string(labels[i]));
	}
	if (json_is_object(r->params)) {
		json_object_set_new(r->params, "tests", tests);
		json_object_set_new(r->params, "labels", names);
	} else {
		json_decref(tests);
		json_decref(names);
	}
}

static int together_run(const void *params, const struct bp_test_ctx *ctx,
			struct bp_result *r, char *err, size_t errlen)
{
	const struct together_params *p = params;
	struct rounds *rs = calloc(1, sizeof(*rs));
	struct bp_inner in[BP_TOGETHER_MAX];
	int rc;

	if (!rs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = parse_all(p, ctx, in, err, errlen);
	if (rc) {
		free(rs);
		return rc;
	}
	r->text_hide_children = true;
	rs->in = in;
	rs->ntests = (size_t)ctx->parsed->npos;
	for (int round = 1; !rc && round <= p->repeat && !bp_stop_requested(); round++)
		rc = run_round(rs, r, ctx, !p->no_alone, round, err, errlen);
	describe(r, rs);
	if (bp_together_report(r, rs->runs, rs->nruns, rs->ntests, labels) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc && rs->failures) {
		snprintf(err, errlen, "%zu run(s) could not measure, the first: %.400s",
			 rs->failures, rs->first_failure);
		/* after Ctrl-C the runs it cut short are no failure: the CLI's stop rule applies */
		rc = bp_stop_requested() ? -EINTR : -EIO;
	}
	for (size_t i = 0; i < rs->ntests; i++)
		bp_inner_free(&in[i]);
	free(rs);
	return rc;
}

const struct bp_test bp_cmd_together = {
	.name = "together",
	.summary = "two or more tests at the same moment, each also alone: what each loses",
	.synopsis = "\"TEST ARGS\" \"TEST ARGS\" [...] [--alone|--no-alone] [--repeat N] [-t S]",
	.opts = together_opts,
	.params_size = sizeof(struct together_params),
	.check = together_check,
	.check_inner = together_check_inner,
	.run = together_run,
	.kind = &bp_kind_together,
	/*
	 * No monitor thread here: fork() copies only the forking thread, and a lock the
	 * monitor's thread held at that moment stays held in the child (with ASan's allocator
	 * a child hung for good). Each test samples with a monitor of its own, in its process.
	 */
	.no_monitor = true,
};
