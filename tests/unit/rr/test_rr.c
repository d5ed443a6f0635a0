/*
 * Request/response pieces without a server: the failure kinds, the statistics' interval
 * hand-over, and a flow against a responder over loopback TCP and UDP on one event loop,
 * where every counted transaction must have been answered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/loop.h"
#include "rr/rr_flow.h"
#include "rr/rr_responder.h"
#include "rr/rr_stats.h"
#include "tap.h"

static void test_fail_kinds(void)
{
	CHECK_INT(bp_rr_fail_of(ECONNREFUSED), BP_RR_FAIL_REFUSED);
	CHECK_INT(bp_rr_fail_of(ECONNRESET), BP_RR_FAIL_RESET);
	CHECK_INT(bp_rr_fail_of(EPIPE), BP_RR_FAIL_RESET);
	CHECK_INT(bp_rr_fail_of(ETIMEDOUT), BP_RR_FAIL_TIMEOUT);
	CHECK_INT(bp_rr_fail_of(EADDRNOTAVAIL), BP_RR_FAIL_NO_PORT);
	CHECK_INT(bp_rr_fail_of(EINVAL), BP_RR_FAIL_OTHER);
	CHECK_STR(bp_rr_fail_name(BP_RR_FAIL_NO_PORT), "no_port");
}

static void test_stats_take(void)
{
	struct bp_txn_stats s;
	struct bp_rr_counts c = { 0 };
	struct bp_conn_hists h;

	CHECK_INT(bp_txn_stats_init(&s, 0), 0);
	CHECK_INT(bp_conn_hists_init(&h), 0);
	for (int i = 1; i <= 100; i++)
		bp_txn_stats_done(&s, 1000 + (uint64_t)i, (uint64_t)i * 1000, i > 90, 0);
	bp_txn_stats_connect(&s, 2000, 5000);
	bp_txn_stats_fail(&s, 2000, BP_RR_FAIL_TIMEOUT, 1, NULL);
	bp_txn_stats_fail(&s, 2000, BP_RR_FAIL_REFUSED, 1, NULL);
	/* After the end (what workers finish while they are being stopped): not counted. */
	CHECK(!bp_txn_stats_ended(&s, UINT64_MAX));  /* no end set: never */
	bp_txn_stats_end_at(&s, 2000);
	CHECK(!bp_txn_stats_ended(&s, 2000));
	CHECK(bp_txn_stats_ended(&s, 2001));
	bp_txn_stats_done(&s, 2001, 1, false, 0);
	bp_txn_stats_connect(&s, 2001, 1);
	bp_txn_stats_fail(&s, 2001, BP_RR_FAIL_RESET, 1, NULL);
	bp_txn_stats_take(&s, &c.txn, NULL, &h);
	CHECK_INT(c.txn.done, 100);
	CHECK_INT(c.txn.late, 10);
	CHECK_INT(c.txn.connects, 1);
	CHECK_INT(bp_txn_counts_failures(&c.txn), 2);
	CHECK_INT(bp_histo_count(h.latency), 100);
	CHECK_INT(bp_histo_min(h.latency), 1000);
	CHECK_INT(bp_histo_max(h.latency), 100000);
	/* The interval was handed over: a second take adds nothing. */
	bp_txn_stats_take(&s, &c.txn, NULL, &h);
	CHECK_INT(c.txn.done, 100);
	CHECK_INT(bp_histo_count(h.latency), 100);
	bp_conn_hists_free(&h);
	bp_txn_stats_free(&s);
}

static struct sockaddr_in bound_addr(int fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &len);
	return a;
}

/* A connected pair of loopback sockets: TCP, or two UDP sockets connected to each other. */
static int loopback_pair(int type, int sv[2])
{
	int a = socket(AF_INET, type, 0), b = socket(AF_INET, type, 0);
	struct sockaddr_in aa = bound_addr(a), ba;

	if (type == SOCK_STREAM) {
		listen(a, 1);
		if (connect(b, (struct sockaddr *)&aa, sizeof(aa)))
			return -1;
		sv[0] = b;
		sv[1] = accept(a, NULL, NULL);
		close(a);
		return sv[1] < 0 ? -1 : 0;
	}
	ba = bound_addr(b);
	if (connect(a, (struct sockaddr *)&ba, sizeof(ba)) ||
	    connect(b, (struct sockaddr *)&aa, sizeof(aa)))
		return -1;
	sv[0] = b;
	sv[1] = a;
	return 0;
}

/*
 * The rr flow's timeout is a timerfd (rr_flow.c says why), which the fake clock of
 * core/clock.h cannot move: these runs are on the real clock. So that a busy machine (TSan,
 * qemu-user, parallel tests) cannot fail them, they run in slices until what they wait for
 * has happened or GIVE_UP_NS has passed, a bound that only a flow that stalls or loses a
 * timeout reaches, and check what no delay can change.
 */
#define SLICE_NS (10 * BP_NS_PER_MS)
#define GIVE_UP_NS (10 * BP_NS_PER_SEC)

/*
 * One flow against one responder on loopback, on the same loop, until more than 100
 * transactions are done (a few ms unloaded; was: as many as 200 ms gave).
 */
static void run_pair(int type, bool udp, size_t req, size_t resp)
{
	struct bp_loop *loop = bp_loop_new();
	struct bp_txn_stats stats;
	struct bp_rr_counts c = { 0 };
	struct bp_conn_hists h;
	struct bp_rr_responder_cfg rc = { .req_len = req, .resp_len = resp, .udp = udp };
	struct bp_rr_flow_cfg fc = { .req_len = req, .resp_len = resp, .udp = udp,
				     .timeout_ns = BP_NS_PER_SEC };
	struct bp_rr_responder *r = bp_rr_responder_new(&rc);
	struct bp_rr_flow *f;
	int sv[2];

	CHECK_INT(loopback_pair(type, sv), 0);
	CHECK_INT(bp_txn_stats_init(&stats, 0), 0);
	CHECK_INT(bp_conn_hists_init(&h), 0);
	fc.stats = &stats;
	f = bp_rr_flow_new(&fc);
	CHECK(loop && r && f);
	CHECK_INT(bp_rr_responder_attach(r, loop, sv[1]), 0);
	CHECK_INT(bp_rr_flow_ops.start(f, loop, sv[0]), 0);
	for (uint64_t end = bp_now_ns() + GIVE_UP_NS; c.txn.done <= 100 && bp_now_ns() < end;) {
		bp_loop_run(loop, bp_now_ns() + SLICE_NS);
		bp_txn_stats_take(&stats, &c.txn, NULL, &h);
	}
	bp_rr_flow_ops.stop(f, loop);
	bp_txn_stats_take(&stats, &c.txn, NULL, &h);
	CHECK(c.txn.done > 100);
	CHECK_INT(bp_txn_counts_failures(&c.txn), 0);
	/* The one in flight when the flow stopped was answered but not counted. */
	CHECK(bp_rr_responder_served(r) >= c.txn.done &&
	      bp_rr_responder_served(r) <= c.txn.done + 1);
	CHECK_INT(bp_rr_responder_bytes(r), bp_rr_responder_served(r) * req);
	CHECK(bp_histo_min(h.latency) > 0);
	bp_rr_flow_ops.release(f);
	bp_rr_responder_free(r);
	close(sv[0]);
	close(sv[1]);
	bp_conn_hists_free(&h);
	bp_txn_stats_free(&stats);
	bp_loop_free(loop);
}

/*
 * A responder that never answers: the flow's timeout (50 ms) fires and counts one failure,
 * and the request sent again times out again. Twice at least, and never early: k timeouts
 * take k x 50 ms at least (was: exactly 2 in 130 ms, which a loop held up for the 30 ms
 * around the 2nd deadline failed).
 */
static void test_udp_timeout(void)
{
	struct bp_loop *loop = bp_loop_new();
	struct bp_txn_stats stats;
	struct bp_rr_counts c = { 0 };
	struct bp_conn_hists h;
	struct bp_rr_flow_cfg fc = { .req_len = 16, .resp_len = 16, .udp = true,
				     .timeout_ns = 50 * BP_NS_PER_MS };
	struct bp_rr_flow *f;
	uint64_t t0, elapsed;
	int sv[2];

	CHECK_INT(loopback_pair(SOCK_DGRAM, sv), 0);
	CHECK_INT(bp_txn_stats_init(&stats, 0), 0);
	CHECK_INT(bp_conn_hists_init(&h), 0);
	fc.stats = &stats;
	f = bp_rr_flow_new(&fc);
	t0 = bp_now_ns();
	CHECK_INT(bp_rr_flow_ops.start(f, loop, sv[0]), 0);
	for (uint64_t end = t0 + GIVE_UP_NS;
	     c.txn.fails[BP_RR_FAIL_TIMEOUT] < 2 && bp_now_ns() < end;) {
		bp_loop_run(loop, bp_now_ns() + SLICE_NS);
		bp_txn_stats_take(&stats, &c.txn, NULL, &h);
	}
	bp_rr_flow_ops.stop(f, loop);
	bp_txn_stats_take(&stats, &c.txn, NULL, &h);
	elapsed = bp_now_ns() - t0;
	CHECK_INT(c.txn.done, 0);
	CHECK(c.txn.fails[BP_RR_FAIL_TIMEOUT] >= 2);
	CHECK(c.txn.fails[BP_RR_FAIL_TIMEOUT] * 50 * BP_NS_PER_MS <= elapsed);
	bp_rr_flow_ops.release(f);
	close(sv[0]);
	close(sv[1]);
	bp_conn_hists_free(&h);
	bp_txn_stats_free(&stats);
	bp_loop_free(loop);
}

int main(void)
{
	test_fail_kinds();
	test_stats_take();
	run_pair(SOCK_STREAM, false, 1, 1);
	run_pair(SOCK_STREAM, false, 100, 70000);  /* answers larger than one write */
	run_pair(SOCK_DGRAM, true, 64, 1024);
	test_udp_timeout();
	return tap_done();
}
