/*
 * A result holds only what its kind declares (result/kind_check.h): names, units and
 * scopes against the catalogue, children under their own kinds, --repeat's derived figures.
 */
#include <errno.h>
#include <string.h>

#include "kinds.h"
#include "result/kind_check.h"
#include "tap.h"

static char err[256];

static int check(const struct bp_result *r)
{
	err[0] = '\0';
	return bp_kind_check_result(r, err, sizeof(err));
}

static struct bp_result *tcp_run(double bitrate)
{
	struct bp_result *r = bp_result_new("tcp");
	struct bp_interval *iv;

	bp_result_add_metric(r, "receiver.bitrate", bitrate, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sender.retransmits", 3, "count", BP_BETTER_LOWER);
	iv = bp_result_add_interval(r, 0, 1);
	bp_interval_add_metric(iv, "rtt", 20000, "ns", BP_BETTER_LOWER);
	return r;
}

int main(void)
{
	struct bp_result *r, *parent, *suite;
	struct bp_interval *iv;

	install_all_kinds();
	r = tcp_run(1e9);
	CHECK_INT(check(r), 0);
	/* --bidir's up./down. forms of a directed figure */
	bp_result_add_metric(r, "up.receiver.bitrate", 1e9, "bit/s", BP_BETTER_HIGHER);
	CHECK_INT(check(r), 0);
	bp_result_add_metric(r, "receiver.bogus", 1, "count", BP_BETTER_NONE);
	CHECK_INT(check(r), -EPROTO);
	CHECK_STR(err, "tcp: metric 'receiver.bogus' (total) is not in its catalogue");
	bp_result_free(r);

	r = tcp_run(1e9);
	bp_result_add_metric(r, "sender.bytes", 1, "MiB", BP_BETTER_NONE);
	CHECK_INT(check(r), -EPROTO);
	CHECK_STR(err, "tcp: metric 'sender.bytes' (total) in 'MiB', its catalogue says 'B'");
	bp_result_free(r);

	/* an interval-only figure in the totals */
	r = tcp_run(1e9);
	bp_result_add_metric(r, "rtt", 1, "ns", BP_BETTER_LOWER);
	CHECK_INT(check(r), -EPROTO);
	CHECK_STR(err, "tcp: metric 'rtt' in the totals, its catalogue says interval only");
	bp_result_free(r);

	/* a total-only figure in an interval */
	r = tcp_run(1e9);
	iv = bp_result_add_interval(r, 1, 2);
	bp_interval_add_metric(iv, "sender.retransmits", 1, "count", BP_BETTER_LOWER);
	CHECK_INT(check(r), -EPROTO);
	bp_result_free(r);

	/* --repeat: runs, the median under the figure's name, .min/.max in its unit, .cov % */
	parent = bp_result_new("tcp");
	bp_result_add_child(parent, tcp_run(1e9));
	bp_result_add_child(parent, tcp_run(2e9));
	bp_result_add_metric(parent, "runs", 2, "count", BP_BETTER_NONE);
	bp_result_add_metric(parent, "receiver.bitrate", 1.5e9, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(parent, "receiver.bitrate.min", 1e9, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(parent, "receiver.bitrate.cov", 33, "percent", BP_BETTER_LOWER);
	CHECK_INT(check(parent), 0);
	bp_result_add_metric(parent, "receiver.bitrate.max", 2e9, "percent", BP_BETTER_HIGHER);
	CHECK_INT(check(parent), -EPROTO);
	CHECK_STR(err, "tcp --repeat: metric 'receiver.bitrate.max' in 'percent' is not a declared "
		  "figure's median, .min, .max or .cov");
	bp_result_free(parent);

	/* rr's headline latency, repeated: transaction.p50 in ns */
	parent = bp_result_new("rr");
	bp_result_add_child(parent, bp_result_new("rr"));
	bp_result_add_metric(parent, "transaction.p50", 20000, "ns", BP_BETTER_LOWER);
	bp_result_add_metric(parent, "transaction.p50.cov", 2, "percent", BP_BETTER_LOWER);
	CHECK_INT(check(parent), 0);
	bp_result_add_metric(parent, "transaction.p90", 20000, "ns", BP_BETTER_LOWER);
	CHECK_INT(check(parent), -EPROTO);
	bp_result_free(parent);

	/* together: its tests' figures under their labels, in the units of their own kinds */
	parent = bp_result_new("together");
	r = tcp_run(1e9);
	bp_result_set_params(r, json_pack("{s:{s:s}}", "together", "label", "A"));
	bp_result_add_child(parent, r);
	bp_result_add_metric(parent, "A.receiver.bitrate.alone", 1e9, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(parent, "A.receiver.bitrate.together", 5e8, "bit/s",
			     BP_BETTER_HIGHER);
	bp_result_add_metric(parent, "A.receiver.bitrate.degradation", 50, "percent",
			     BP_BETTER_LOWER);
	bp_result_add_metric(parent, "A.receiver.bitrate.degradation.max", 50, "percent",
			     BP_BETTER_NONE);
	iv = bp_result_add_interval(parent, 0, 1);
	bp_interval_add_metric(iv, "round", 1, "count", BP_BETTER_NONE);
	bp_interval_add_metric(iv, "A.rtt", 20000, "ns", BP_BETTER_LOWER);
	CHECK_INT(check(parent), 0);
	bp_result_add_metric(parent, "A.sender.bytes.alone", 1, "bit/s", BP_BETTER_NONE);
	CHECK_INT(check(parent), -EPROTO);
	CHECK_STR(err, "together: metric 'A.sender.bytes.alone' (total) in 'bit/s', its "
		  "catalogue says 'B'");
	bp_result_free(parent);
	parent = bp_result_new("together");
	r = tcp_run(1e9);
	bp_result_set_params(r, json_pack("{s:{s:s}}", "together", "label", "A"));
	bp_result_add_child(parent, r);
	bp_result_add_metric(parent, "B.receiver.bitrate.alone", 1e9, "bit/s", BP_BETTER_HIGHER);
	CHECK_INT(check(parent), -EPROTO);
	CHECK_STR(err, "together: metric 'B.receiver.bitrate.alone' (total) borrows no figure of "
		  "a test it ran");
	bp_result_free(parent);
	parent = bp_result_new("together");
	bp_result_add_metric(parent, "A.bogus", 1, "count", BP_BETTER_NONE);
	CHECK_INT(check(parent), -EPROTO);
	CHECK_STR(err, "together: metric 'A.bogus' in the totals, its catalogue says interval only");
	bp_result_free(parent);

	/* a suite is not checked itself; each child under its own kind */
	suite = bp_result_new("run");
	bp_result_add_metric(suite, "anything", 1, "count", BP_BETTER_NONE);
	bp_result_add_child(suite, tcp_run(1e9));
	CHECK_INT(check(suite), 0);
	r = bp_result_new("udp");
	bp_result_add_metric(r, "receiver.retransmits", 1, "count", BP_BETTER_LOWER);
	bp_result_add_child(suite, r);
	CHECK_INT(check(suite), -EPROTO);
	CHECK_STR(err, "udp: metric 'receiver.retransmits' (total) is not in its catalogue");
	bp_result_free(suite);
	return tap_done();
}
