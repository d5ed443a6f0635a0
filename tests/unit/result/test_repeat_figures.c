/*
 * A repeated test's figures from runs built here: the headline picked as the summary picks
 * it (tcp's metrics, rr's latency p50, a test without an entry), a failed run left out of
 * the statistics, and the parent's metrics against the values worked by hand.
 */
#include "result/repeat_figures.h"

#include <math.h>

#include "kinds.h"
#include "tap.h"

static struct bp_result *tcp_run(double bitrate, double retrans, bool failed)
{
	struct bp_result *r = bp_result_new("tcp");

	bp_result_add_metric(r, "sender.bitrate", bitrate + 1, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "receiver.bitrate", bitrate, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sender.retransmits", retrans, "count", BP_BETTER_LOWER);
	if (failed)
		bp_result_set_error(r, "peer-gone", "the server went away");
	return r;
}

static double metric(const struct bp_result *r, const char *name)
{
	const struct bp_metric *m = bp_result_find_metric(r, name);

	return m ? m->value : NAN;
}

static void check_tcp(void)
{
	struct bp_result *p = bp_result_new("tcp");
	struct bp_repeat_figure f[BP_REPEAT_FIGURES];

	bp_result_add_child(p, tcp_run(1e12, 5, true));  /* failed: not a sample */
	bp_result_add_child(p, tcp_run(900e6, 0, false));
	bp_result_add_child(p, tcp_run(1100e6, 2, false));
	bp_result_add_child(p, tcp_run(1000e6, 1, false));
	CHECK_INT(bp_repeat_figures_of(p, f, BP_REPEAT_FIGURES), 2);
	CHECK_STR(f[0].name, "receiver.bitrate");
	CHECK_STR(f[1].name, "sender.retransmits");
	CHECK_INT(bp_repeat_runs_ok(p), 3);
	CHECK_INT(bp_repeat_summarize(p), 0);
	CHECK_NEAR(metric(p, "runs"), 3, 0);
	CHECK_NEAR(metric(p, "receiver.bitrate"), 1000e6, 0);
	CHECK_NEAR(metric(p, "receiver.bitrate.min"), 900e6, 0);
	CHECK_NEAR(metric(p, "receiver.bitrate.max"), 1100e6, 0);
	CHECK_NEAR(metric(p, "receiver.bitrate.cov"), 10, 1e-9);  /* stddev 100e6 of 1000e6 */
	CHECK_NEAR(metric(p, "sender.retransmits.cov"), 100, 1e-9);
	CHECK(bp_result_find_metric(p, "receiver.bitrate")->better == BP_BETTER_HIGHER);
	CHECK(bp_result_find_metric(p, "receiver.bitrate.cov")->better == BP_BETTER_LOWER);
	CHECK_STR(bp_result_find_metric(p, "receiver.bitrate.cov")->unit, "percent");
	CHECK(!bp_result_find_metric(p, "sender.bitrate"));  /* not a headline figure */
	bp_result_free(p);
}

static void check_rr_latency(void)
{
	struct bp_result *p = bp_result_new("rr");
	struct bp_repeat_figure f[BP_REPEAT_FIGURES];

	for (int i = 1; i <= 2; i++) {
		struct bp_result *r = bp_result_new("rr");
		struct bp_latency lat = { .what = "transaction", .unit = "ns", .count = 10,
					  .p50 = 1000.0 * i };

		bp_result_add_metric(r, "transactions.rate", 5000.0 * i, "op/s",
				     BP_BETTER_HIGHER);
		bp_result_add_latency(r, &lat);
		bp_result_add_child(p, r);
	}
	CHECK_INT(bp_repeat_figures_of(p, f, BP_REPEAT_FIGURES), 2);
	CHECK_STR(f[1].name, "transaction.p50");
	CHECK_INT(bp_repeat_summarize(p), 0);
	CHECK_NEAR(metric(p, "transaction.p50"), 1500, 0);
	CHECK_NEAR(metric(p, "transactions.rate.max"), 10000, 0);
	CHECK(bp_result_find_metric(p, "transaction.p50")->better == BP_BETTER_LOWER);
	bp_result_free(p);
}

static void check_fallback_and_one_run(void)
{
	struct bp_result *p = bp_result_new("gpio");
	struct bp_result *r = bp_result_new("gpio");

	bp_result_add_metric(r, "toggles.rate", 4e6, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "pairs", 10, "count", BP_BETTER_NONE);
	bp_result_add_metric(r, "third", 3, "count", BP_BETTER_NONE);
	bp_result_add_child(p, r);
	CHECK_INT(bp_repeat_summarize(p), 0);
	CHECK_NEAR(metric(p, "toggles.rate"), 4e6, 0);
	CHECK_NEAR(metric(p, "pairs.max"), 10, 0);
	CHECK(!bp_result_find_metric(p, "third"));
	CHECK(!bp_result_find_metric(p, "toggles.rate.cov"));  /* undefined for one run */
	bp_result_free(p);

	p = bp_result_new("tcp");
	CHECK_INT(bp_repeat_summarize(p), 0);  /* no run measured: only the count */
	CHECK_NEAR(metric(p, "runs"), 0, 0);
	CHECK_INT(p->nmetrics, 1);
	bp_result_free(p);
}

int main(void)
{
	install_all_kinds();
	check_tcp();
	check_rr_latency();
	check_fallback_and_one_run();
	return tap_done();
}
