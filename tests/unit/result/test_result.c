/* The result model: adders copy, finders find, the result owns and frees what it holds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/result.h"
#include "result/result_latency.h"
#include "tap.h"

static void test_better_names(void)
{
	CHECK_STR(bp_better_name(BP_BETTER_HIGHER), "higher");
	CHECK_STR(bp_better_name(BP_BETTER_LOWER), "lower");
	CHECK_STR(bp_better_name(BP_BETTER_NONE), "none");
	CHECK_STR(bp_better_name((enum bp_better)42), "none");
}

/* Enough metrics to grow the array several times; names are copies, not borrowed. */
static void test_metrics(void)
{
	struct bp_result *r = bp_result_new("cpu");
	char name[32];
	const struct bp_metric *m;
	int err = 0;

	CHECK(r != NULL);
	CHECK_STR(r->test, "cpu");
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "sha256.%d", 16 << (i % 10));
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ".%d", i);
		err |= bp_result_add_metric(r, name, i * 1.5, "B/s", BP_BETTER_HIGHER);
	}
	CHECK_INT(err, 0);
	CHECK_INT(r->nmetrics, 100);
	strcpy(name, "overwritten");
	m = bp_result_find_metric(r, "sha256.16.0");
	CHECK(m == &r->metrics[0]);
	m = bp_result_find_metric(r, "sha256.8192.99");
	CHECK(m != NULL);
	if (m) {
		CHECK_NEAR(m->value, 148.5, 0);
		CHECK_STR(m->unit, "B/s");
		CHECK_INT(m->better, BP_BETTER_HIGHER);
	}
	CHECK(bp_result_find_metric(r, "sha256") == NULL);
	CHECK_INT(bp_result_add_metric(r, "no.unit", 3, NULL, BP_BETTER_NONE), 0);
	CHECK(bp_result_find_metric(r, "no.unit")->unit == NULL);
	bp_result_free(r);
}

static void test_latency_and_intervals(void)
{
	struct bp_result *r = bp_result_new("rr");
	struct bp_latency lat = { .what = "rtt", .unit = "ns", .count = 3, .p50 = 42 };
	struct bp_interval *iv;
	char what[] = "rtt";

	lat.what = what;
	CHECK_INT(bp_result_add_latency(r, &lat), 0);
	what[0] = 'x';
	CHECK_STR(r->latency[0].what, "rtt");
	CHECK(r->latency[0].what != lat.what);
	CHECK_INT(r->latency[0].count, 3);
	CHECK_NEAR(r->latency[0].p50, 42, 0);

	for (int i = 0; i < 10; i++) {
		iv = bp_result_add_interval(r, i, i + 1);
		CHECK(iv != NULL);
		for (int j = 0; iv && j < 9; j++)
			bp_interval_add_metric(iv, "transactions.rate", j, "op/s",
					       BP_BETTER_HIGHER);
	}
	CHECK_INT(r->nintervals, 10);
	CHECK_INT(r->intervals[9].nmetrics, 9);
	CHECK_NEAR(r->intervals[9].start, 9, 0);
	CHECK_NEAR(r->intervals[9].metrics[8].value, 8, 0);
	CHECK_STR(r->intervals[3].metrics[0].unit, "op/s");
	bp_result_free(r);
}

static void test_warnings(void)
{
	struct bp_result *r = bp_result_new("tcp");

	CHECK_INT(bp_result_add_warning(r, "tester-cpu-bound", "worker %d at %.0f %%", 2,
					95.4), 0);
	CHECK_INT(bp_result_add_warning(r, "throttled", "plain"), 0);
	CHECK_INT(r->nwarnings, 2);
	CHECK_STR(r->warnings[0].message, "worker 2 at 95 %");
	CHECK_STR(r->warnings[1].code, "throttled");
	CHECK(bp_result_has_warning(r, "throttled"));
	CHECK(bp_result_has_warning(r, "tester-cpu-bound"));
	CHECK(!bp_result_has_warning(r, "page-cache"));
	bp_result_free(r);
}

/* An open loop's late starts: nothing below 1 % of those done, then the lowest printed
 * percentile their share reaches (the same-morning http --rate 5000 run: 267 of 25,000). */
static void test_late_starts(void)
{
	static const struct {
		uint64_t late, done;
		const char *want;  /* NULL: no warning */
	} cases[] = {
		{ 0, 25000, NULL }, { 249, 25000, NULL }, { 5, 0, NULL },
		{ 267, 25000, "1.1 % of requests started over 1 ms after their due time, so p99 and "
			      "up may show the tester's wait, not the path's (267 of 25000; why; "
			      "latency counts from each due time)" },
		{ 2500, 25000, "p90" }, { 12500, 25000, "p50" }, { 30, 30, "100.0 % of requests" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bp_result *r = bp_result_new("http");

		CHECK_INT(bp_result_warn_late_starts(r, cases[i].late, cases[i].done, "requests",
						     "why"), 0);
		if (!cases[i].want) {
			CHECK_INT(r->nwarnings, 0);
		} else {
			CHECK_INT(r->nwarnings, 1);
			CHECK(r->nwarnings == 1 && !strcmp(r->warnings[0].code, "late-starts") &&
			      strstr(r->warnings[0].message, cases[i].want));
		}
		bp_result_free(r);
	}
}

/* Children are owned: freeing the suite frees them (the sanitizer build checks it). */
static void test_children(void)
{
	struct bp_result *suite = bp_result_new("run");

	for (int i = 0; i < 7; i++) {
		struct bp_result *c = bp_result_new(i % 2 ? "mem" : "cpu");

		bp_result_add_metric(c, "x", i, "count", BP_BETTER_NONE);
		bp_result_set_env(c, json_pack("{s:i}", "i", i));
		CHECK_INT(bp_result_add_child(suite, c), 0);
	}
	CHECK_INT(bp_result_add_child(suite, NULL), -EINVAL);
	CHECK_INT(suite->nchildren, 7);
	CHECK_STR(suite->children[6]->test, "cpu");
	CHECK_NEAR(bp_result_find_metric(suite->children[5], "x")->value, 5, 0);
	bp_result_free(suite);
	bp_result_free(NULL);
}

/* Setters take the reference; replacing or clearing drops the old one exactly once. */
static void test_json_ownership(void)
{
	struct bp_result *r = bp_result_new("info");
	json_t *env = json_object(), *keep = json_object();

	bp_result_set_env(r, env);
	CHECK(r->env == env);
	json_incref(env);
	bp_result_set_env(r, env);  /* the same tree again, with its own reference */
	CHECK_INT(env->refcount, 1);
	json_incref(keep);
	bp_result_set_params(r, keep);
	CHECK_INT(keep->refcount, 2);
	bp_result_set_params(r, NULL);
	CHECK(r->params == NULL);
	CHECK_INT(keep->refcount, 1);
	json_decref(keep);
	bp_result_set_cpu(r, json_object());
	bp_result_free(r);
}

/* The error codes scripts branch on: one word per kind of failure, the sign not mattering. */
static void test_error_codes(void)
{
	static const struct { int rc; const char *code; } cases[] = {
		{ -ECONNREFUSED, "connect-refused" }, { -EREMOTEIO, "server-refused" },
		{ -ETIMEDOUT, "timeout" }, { -EHOSTUNREACH, "unreachable" },
		{ -ENETUNREACH, "unreachable" }, { -ECONNRESET, "peer-gone" },
		{ -EPIPE, "peer-gone" }, { -ENOSPC, "no-space" }, { -EDQUOT, "no-space" },
		{ -EACCES, "permission" }, { -EPERM, "permission" }, { -ENOENT, "not-found" },
		{ -EINTR, "interrupted" }, { -EPROTO, "protocol" }, { -EBADMSG, "protocol" },
		{ -ENOMEM, "out-of-memory" }, { -EIO, "io-error" },
		{ -EADDRINUSE, "address-in-use" }, { -EROFS, "read-only" },
		{ -EINVAL, "invalid" }, { -ENOTTY, "failed" }, { 0, "failed" },
		{ ECONNREFUSED, "connect-refused" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(bp_error_code(cases[i].rc), cases[i].code);
}

/* The error is owned and replaced whole; measured() is what the CLI's stop rule reads. */
static void test_error_and_measured(void)
{
	struct bp_result *r = bp_result_new("disk");

	CHECK(r->error.code == NULL && r->error.message == NULL);
	CHECK(!bp_result_measured(r));
	CHECK_INT(bp_result_set_error(r, bp_error_code(-ENOSPC), "write %s: %s", "test_file.3",
				      "No space left on device"), 0);
	CHECK_STR(r->error.code, "no-space");
	CHECK_STR(r->error.message, "write test_file.3: No space left on device");
	CHECK_INT(bp_result_set_error(r, "interrupted", "stopped"), 0);
	CHECK_STR(r->error.code, "interrupted");
	CHECK_STR(r->error.message, "stopped");
	bp_result_add_warning(r, "page-cache", "a warning alone is not a measurement");
	CHECK(!bp_result_measured(r));
	bp_result_add_metric(r, "reads.count", 0, "count", BP_BETTER_NONE);
	CHECK(bp_result_measured(r));
	bp_result_free(r);
}

int main(void)
{
	test_better_names();
	test_metrics();
	test_latency_and_intervals();
	test_warnings();
	test_late_starts();
	test_children();
	test_json_ownership();
	test_error_codes();
	test_error_and_measured();
	return tap_done();
}
