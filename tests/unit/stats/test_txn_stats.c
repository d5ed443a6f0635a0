/*
 * Transaction statistics: per-kind failures and their first messages, classes of done
 * operations, the end of the run, and a take that moves the interval out and starts anew.
 */
#include <stdint.h>

#include "stats/txn_stats.h"
#include "tap.h"

int main(void)
{
	struct bp_txn_stats s;
	struct bp_txn_counts c = { 0 }, sum = { 0 };
	struct bp_conn_hists h;
	uint64_t classes[4] = { 0 };

	CHECK_INT(bp_txn_stats_init(&s, 4), 0);
	CHECK_INT(bp_conn_hists_init(&h), 0);
	for (int i = 0; i < 10; i++)
		bp_txn_stats_done(&s, 100, 1000 * (uint64_t)(i + 1), i < 3, (size_t)i % 5);
	bp_txn_stats_connect(&s, 100, 500);
	bp_txn_stats_bytes(&s, 100, 4096);
	bp_txn_stats_fail(&s, 100, 2, 3, "first");
	bp_txn_stats_fail(&s, 100, 2, 0, "second");
	bp_txn_stats_fail(&s, 100, BP_TXN_MAX_KINDS, 1, "ignored");
	bp_txn_stats_end_at(&s, 200);
	CHECK(!bp_txn_stats_ended(&s, 200));
	CHECK(bp_txn_stats_ended(&s, 201));
	bp_txn_stats_done(&s, 201, 1, false, 0);
	bp_txn_stats_fail(&s, 201, 1, 1, NULL);
	bp_txn_stats_take(&s, &c, classes, &h);
	CHECK_INT(c.done, 10);
	CHECK_INT(c.late, 3);
	CHECK_INT(c.connects, 1);
	CHECK_INT(c.bytes, 4096);
	CHECK_INT(c.fails[2], 3);
	CHECK_INT(bp_txn_counts_failures(&c), 3);
	CHECK_STR(s.first_msg[2], "first");
	/* Class 4 is out of range: counted as done, in no class. */
	CHECK_INT(classes[0] + classes[1] + classes[2] + classes[3], 8);
	CHECK_INT(classes[0], 2);
	CHECK_INT(bp_histo_count(h.latency), 10);
	CHECK_INT(bp_histo_count(h.connect), 1);
	/* The interval starts anew; the message stays. */
	bp_txn_stats_take(&s, &c, classes, &h);
	CHECK_INT(c.done, 10);
	CHECK_INT(classes[0], 2);
	bp_txn_counts_add(&sum, &c);
	bp_txn_counts_add(&sum, &c);
	CHECK_INT(sum.done, 20);
	CHECK_INT(sum.fails[2], 6);
	CHECK_STR(s.first_msg[2], "first");
	bp_txn_stats_free(&s);
	bp_txn_stats_free(&s);  /* twice is harmless */
	bp_conn_hists_free(&h);
	/* No classes: take accepts NULL. */
	CHECK_INT(bp_txn_stats_init(&s, 0), 0);
	CHECK_INT(bp_conn_hists_init(&h), 0);
	bp_txn_stats_done(&s, 1, 1, false, 0);
	bp_txn_stats_take(&s, &c, NULL, &h);
	CHECK_INT(c.done, 11);
	bp_txn_stats_free(&s);
	bp_conn_hists_free(&h);
	return tap_done();
}
