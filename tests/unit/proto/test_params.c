/* Parameters and results as they cross the wire: round trips, iperf3's shapes, refusals. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"
#include "proto/params.h"
#include "proto/results.h"
#include "proto/control.h"
#include "kinds.h"
#include "tap.h"

/* The shapes the kinds' descriptors give (stream/stream_metrics.c, rr/rr_metrics.c). */
#define TCP_SHAPE BP_NET_STREAMS
#define UDP_SHAPE (BP_NET_STREAMS | BP_NET_DATAGRAMS)
#define RR_SHAPE BP_NET_FLOWS
#define CRR_SHAPE (BP_NET_FLOWS | BP_NET_CONNS_WHILE_RUNNING)

/* The line a refused result leaves (bp_net_results_from_json). */
static char rerr[256];

static void test_params_round_trip(void)
{
	struct bp_net_params p = {
		.test = "tcp", .shape = TCP_SHAPE, .time_ns = 2500 * BP_NS_PER_MS,
		.omit_ns = BP_NS_PER_SEC, .interval_ns = BP_NS_PER_SEC / 2, .parallel = 4,
		.bidir = true, .window = 262144, .len = 65536, .mss = 1200, .nodelay = true,
		.zerocopy = true, .congestion = "reno", .packet_engine = true,
		.client_version = "boardperf 0.1.0",
	};
	struct bp_net_params q;
	char err[256];
	int ie;
	json_t *j = bp_net_params_to_json(&p);

	/* What a stock iperf3 server reads: whole seconds, its own key names. */
	CHECK_INT(json_integer_value(json_object_get(j, "time")), 3);
	CHECK_INT(json_integer_value(json_object_get(j, "omit")), 1);
	CHECK(json_is_true(json_object_get(j, "tcp")));
	CHECK(json_is_true(json_object_get(j, "bidirectional")));
	CHECK_INT(json_integer_value(json_object_get(j, "MSS")), 1200);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK_STR(q.test, "tcp");
	CHECK_INT(q.shape, TCP_SHAPE);
	CHECK_INT(q.bp_version, BP_PROTO_VERSION_BASE);  /* 2 only with a key offered */
	CHECK_INT(q.time_ns, 2500 * BP_NS_PER_MS);
	CHECK_INT(q.omit_ns, BP_NS_PER_SEC);
	CHECK_INT(q.interval_ns, BP_NS_PER_SEC / 2);
	CHECK_INT(q.parallel, 4);
	CHECK(q.bidir && !q.reverse && q.nodelay && q.zerocopy && q.packet_engine);
	CHECK(json_is_true(json_object_get(j, "bp_packet_engine")));
	CHECK_INT(q.window, 262144);
	CHECK_INT(q.len, 65536);
	CHECK_STR(q.congestion, "reno");
	CHECK_INT(bp_net_params_up_streams(&q), 4);
	CHECK_INT(bp_net_params_down_streams(&q), 4);
	json_decref(j);
}

static void test_params_iperf3_and_refusals(void)
{
	struct bp_net_params q;
	char err[256];
	int ie;
	json_t *j = json_loads("{\"tcp\":true,\"omit\":0,\"time\":5,\"parallel\":2,\"reverse\":true,"
			       "\"len\":131072,\"client_version\":\"3.12\"}", 0, NULL);

	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK_INT(q.bp_version, 0);
	CHECK_INT(q.time_ns, 5 * BP_NS_PER_SEC);
	CHECK_INT(bp_net_params_up_streams(&q), 0);
	CHECK_INT(bp_net_params_down_streams(&q), 2);
	CHECK(!q.packet_engine);  /* a stock iperf3 never asks for it */
	json_decref(j);
	/* A flag that is not a flag is refused, as every other one. */
	j = json_pack("{s:b, s:s}", "udp", 1, "bp_packet_engine", "yes");
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "bp_packet_engine") != NULL);
	json_decref(j);
	j = json_pack("{s:b, s:i}", "tcp", 1, "bp_version", BP_PROTO_VERSION + 1);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "update the older side") != NULL);
	json_decref(j);
	j = json_pack("{s:i}", "time", 5);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "parameters name no test (neither tcp, udp nor sctp)");
	json_decref(j);
	j = json_pack("{s:b, s:i}", "tcp", 1, "parallel", 1000);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "parallel 1000: expected an integer in 1..128");
	CHECK_INT(ie, BP_IE_NUMSTREAMS);
	json_decref(j);
}

/* What the parameters name, as a kind: read once, so the server never compares names. */
static void test_params_kind(void)
{
	static const struct {
		const char *json;
		const char *test;
		unsigned shape;
	} cases[] = {
		{ "{\"bp_test\":\"tcp\",\"tcp\":true}", "tcp", TCP_SHAPE },
		{ "{\"bp_test\":\"udp\",\"udp\":true}", "udp", UDP_SHAPE },
		{ "{\"bp_test\":\"rr\",\"tcp\":true}", "rr", RR_SHAPE },
		{ "{\"bp_test\":\"crr\",\"tcp\":true}", "crr", CRR_SHAPE },
		/* A stock iperf3 names its transport only. */
		{ "{\"tcp\":true}", "tcp", TCP_SHAPE },
		{ "{\"udp\":true}", "udp", UDP_SHAPE },
		/* Unknown names are kept for the server's refusal, and are no kind. */
		{ "{\"bp_test\":\"sctp\",\"tcp\":true}", "sctp", 0 },
		{ "{\"bp_test\":\"CRR\",\"tcp\":true}", "CRR", 0 },
		{ "{\"bp_test\":\"crr \",\"tcp\":true}", "crr ", 0 },
	};
	struct bp_net_params q;
	json_t *long_name;
	char err[256];
	int ie;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);

		CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
		CHECK_STR(q.test, cases[i].test);
		CHECK_INT(q.shape, cases[i].shape);
		json_decref(j);
	}
	/* A name longer than test[] holds is refused whole, never cut to another name. */
	long_name = json_loads("{\"bp_test\":\"tcp-but-much-longer\",\"tcp\":true}", 0, NULL);
	CHECK_INT(bp_net_params_from_json(long_name, &q, &ie, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "bp_test \"tcp-but-much-longer\": expected a string of at most 15 bytes");
	json_decref(long_name);
	CHECK_INT(bp_net_shape_of("rr"), RR_SHAPE);
	CHECK_INT(bp_net_shape_of(""), 0);
	CHECK_INT(bp_net_shape_of("cpu"), 0);  /* a kind, but none the protocol runs */
	/* The setter keeps name and shape together; the predicates follow the shape. */
	bp_net_params_set_test(&q, "crr");
	CHECK_STR(q.test, "crr");
	CHECK_INT(q.shape, CRR_SHAPE);
	CHECK(bp_net_params_rr(&q) && !bp_net_params_udp(&q) && !bp_net_params_datagram(&q));
	q.rr_udp = true;
	CHECK(!bp_net_params_datagram(&q));  /* crr has no UDP variant */
	bp_net_params_set_test(&q, "rr");
	CHECK(bp_net_params_rr(&q) && bp_net_params_datagram(&q));
	bp_net_params_set_test(&q, "udp");
	CHECK(bp_net_params_udp(&q) && !bp_net_params_rr(&q) && bp_net_params_datagram(&q));
	bp_net_params_set_test(&q, "tcp");
	CHECK(!bp_net_params_udp(&q) && !bp_net_params_rr(&q));
	bp_net_params_set_test(&q, "tcp-but-much-longer");
	CHECK_INT(q.shape, 0);
}

/* SCTP: iperf3's one transport key, in both dialects; the client's --nstreams stays home. */
static void test_params_sctp(void)
{
	struct bp_net_params p = {
		.test = "tcp", .shape = TCP_SHAPE, .time_ns = BP_NS_PER_SEC, .parallel = 2,
		.len = 65536, .sctp = true, .nstreams = 4, .client_version = "boardperf 0.1.0",
	};
	struct bp_net_params q;
	char err[256];
	int ie;
	json_t *j = bp_net_params_to_json(&p);

	CHECK(json_is_true(json_object_get(j, "sctp")));
	CHECK(json_object_get(j, "tcp") == NULL);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK(q.sctp && q.shape == TCP_SHAPE && q.parallel == 2 && q.nstreams == 0);
	json_decref(j);
	/* toward a stock iperf3 server: the same key, nothing of boardperf's */
	p.iperf3 = true;
	j = bp_net_params_to_json(&p);
	CHECK(json_is_true(json_object_get(j, "sctp")) && !json_object_get(j, "bp_test"));
	json_decref(j);
	/* rr over SCTP keeps its kind */
	p = (struct bp_net_params){ .test = "rr", .shape = RR_SHAPE, .time_ns = BP_NS_PER_SEC,
				    .parallel = 1, .len = 1, .rr_request = 1, .rr_response = 1,
				    .sctp = true };
	j = bp_net_params_to_json(&p);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK(q.sctp && q.shape == RR_SHAPE);
	json_decref(j);
	/* a plain tcp test is not SCTP */
	p = (struct bp_net_params){ .test = "tcp", .shape = TCP_SHAPE,
				    .time_ns = BP_NS_PER_SEC, .parallel = 1, .len = 1 };
	j = bp_net_params_to_json(&p);
	CHECK_INT(bp_net_params_from_json(j, &q, &ie, err, sizeof(err)), 0);
	CHECK(!q.sctp);
	json_decref(j);
}

static void test_results_round_trip(void)
{
	struct bp_net_results *r = calloc(1, sizeof(*r)), *q = calloc(1, sizeof(*q));
	json_t *j;

	r->cpu_total = 12.5;
	r->busy_max = 0.75;
	r->nstreams = 3;
	r->streams[0] = (struct bp_net_stream_result){ .id = 1, .sender = true, .bytes = 1000,
						       .retransmits = 7, .start_s = 1, .end_s = 11 };
	r->streams[1] = (struct bp_net_stream_result){ .id = 3, .sender = true, .bytes = 3000,
						       .retransmits = 1, .start_s = 1, .end_s = 10 };
	r->streams[2] = (struct bp_net_stream_result){ .id = 4, .bytes = 500, .retransmits = -1,
						       .start_s = 1, .end_s = 11, .packets = 9,
						       .lost = 2, .jitter_ns = 1500,
						       .kernel_drops = 1 };
	r->nintervals = 1;
	r->intervals[0] = (struct bp_net_interval){ .end_s = 1, .sent = 100, .received = 50,
						    .retransmits = 2, .cwnd = 14480, .rtt_us = 60,
						    .omitted = true, .lost = -1 };
	j = bp_net_results_to_json(r);
	CHECK(json_is_array(json_object_get(j, "streams")));
	CHECK_INT(json_integer_value(json_object_get(j, "sender_has_retransmits")), 1);
	CHECK_INT(bp_net_results_from_json(j, q, rerr, sizeof(rerr)), 0);
	CHECK_INT(bp_net_results_bytes(q, true), 4000);
	CHECK_INT(bp_net_results_bytes(q, false), 500);
	CHECK_NEAR(bp_net_results_seconds(q, true), 10.0, 1e-12);
	CHECK_INT(bp_net_results_retransmits(q), 8);
	CHECK_NEAR(q->busy_max, 0.75, 1e-12);
	CHECK_INT(q->nintervals, 1);
	CHECK(q->intervals[0].omitted && q->intervals[0].cwnd == 14480);
	CHECK_INT(q->intervals[0].lost, -1);
	/* UDP figures travel in iperf3's keys: errors = lost, jitter in seconds. */
	CHECK_INT(bp_net_results_packets(q, false), 9);
	CHECK_INT(bp_net_results_lost(q), 2);
	CHECK_INT(bp_net_results_kernel_drops(q), 1);
	CHECK_NEAR(bp_net_results_jitter_ns(q), 1500, 1e-6);
	json_decref(j);
	/* A stock iperf3's results: no bp_ keys, still readable; no streams is refused. */
	j = json_loads("{\"cpu_util_total\":3.5,\"streams\":[{\"id\":1,\"bytes\":42,"
		       "\"retransmits\":-1,\"start_time\":0,\"end_time\":10}]}", 0, NULL);
	CHECK_INT(bp_net_results_from_json(j, q, rerr, sizeof(rerr)), 0);
	CHECK_INT(bp_net_results_bytes(q, false), 42);
	CHECK(isnan(q->busy_max));
	json_decref(j);
	j = json_loads("{\"cpu_util_total\":3.5}", 0, NULL);
	CHECK_INT(bp_net_results_from_json(j, q, rerr, sizeof(rerr)), -EBADMSG);
	json_decref(j);
	free(r);
	free(q);
}

int main(void)
{
	install_all_kinds();  /* the shapes come from the kinds' descriptors */
	test_params_round_trip();
	test_params_iperf3_and_refusals();
	test_params_kind();
	test_params_sctp();
	test_results_round_trip();
	return tap_done();
}
