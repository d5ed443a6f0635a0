/*
 * The iperf3 dialect: refusals both ways over a real socket pair, the options a server
 * refuses by name, stream roles of a stock iperf3's results, and the server's text report.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"
#include "proto/iperf3_text.h"
#include "proto/params.h"
#include "proto/results.h"
#include "proto/control.h"
#include "kinds.h"
#include "tap.h"

/* The line a refused result leaves (bp_net_results_from_json). */
static char rerr[256];

static uint64_t soon(void)
{
	return bp_now_ns() + BP_NS_PER_SEC;
}

/* What a client reads after SERVER_ERROR, for each way a server may refuse. */
static void test_refusals(void)
{
	unsigned char code_only[4] = { 0, 0, 0, 142 };
	char why[256];
	int sv[2], state;

	/* A stock iperf3 client gets two numbers; boardperf's reader turns them into text. */
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	CHECK_INT(bp_iperf3_send_refusal(sv[0], 0, BP_IE_UNIMP, EINVAL, "ignored", soon()), 0);
	CHECK_INT(bp_proto_recv_state(sv[1], &state, soon()), 0);
	CHECK_INT(state, BP_SERVER_ERROR);
	CHECK_INT(bp_iperf3_recv_refusal(sv[1], why, sizeof(why), soon()), 0);
	CHECK_STR(why, "an option is not implemented by the server (iperf3 error 13: "
		  "Invalid argument)");
	/* A boardperf client gets the server's own line. */
	CHECK_INT(bp_iperf3_send_refusal(sv[0], 1, BP_IE_UNIMP, 0, "iperf3 option -n refused",
					 soon()), 0);
	CHECK_INT(bp_proto_recv_state(sv[1], &state, soon()), 0);
	CHECK_INT(bp_iperf3_recv_refusal(sv[1], why, sizeof(why), soon()), 0);
	CHECK_STR(why, "iperf3 option -n refused");
	/* iperf3's failed authorization: the code alone, then the connection closes. */
	CHECK_INT(write(sv[0], code_only, sizeof(code_only)), 4);
	close(sv[0]);
	CHECK_INT(bp_iperf3_recv_refusal(sv[1], why, sizeof(why), soon()), 0);
	CHECK_STR(why, "test authorization failed (iperf3 error 142)");
	close(sv[1]);
	CHECK_STR(bp_iperf3_error_text(999, why, sizeof(why)), "iperf3 error 999");
}

static int parse(const char *text, struct bp_net_params *p, int *ie, char *err, size_t len)
{
	json_t *j = json_loads(text, 0, NULL);
	int rc = bp_net_params_from_json(j, p, ie, err, len);

	json_decref(j);
	return rc;
}

static void test_params(void)
{
	struct bp_net_params p;
	char err[256];
	int ie;
	json_t *j;

	/* What iperf3 3.12 sends for `-u -b 10M -S 0x10 --dont-fragment -Z --fq-rate 5M`. */
	CHECK_INT(parse("{\"udp\":true,\"omit\":0,\"time\":10,\"num\":0,\"blockcount\":0,"
			"\"parallel\":1,\"len\":1460,\"bandwidth\":10000000,\"fqrate\":5000000,"
			"\"pacing_timer\":1000,\"TOS\":16,\"dont_fragment\":1,\"zerocopy\":1,"
			"\"title\":\"x\",\"client_version\":\"3.12\"}", &p, &ie, err,
			sizeof(err)), 0);
	CHECK_INT(p.tos, 16);
	CHECK(p.dont_fragment && p.zerocopy && p.fq_rate == 5e6 && p.bandwidth == 1e7);
	/* -n and -k: "time" 0 (the server sets its cut), the count kept */
	CHECK_INT(parse("{\"tcp\":true,\"time\":0,\"num\":1048576}", &p, &ie, err, sizeof(err)),
		  0);
	CHECK(p.num_bytes == 1048576 && !p.num_blocks && p.time_ns == 0);
	CHECK_INT(parse("{\"udp\":true,\"time\":0,\"blockcount\":100}", &p, &ie, err,
			sizeof(err)), 0);
	CHECK(p.num_blocks == 100 && p.time_ns == 0);
	/* without one, "time" 0 (endless) stays refused */
	CHECK_INT(parse("{\"tcp\":true,\"time\":0}", &p, &ie, err, sizeof(err)), -EINVAL);
	CHECK_INT(ie, BP_IE_DURATION);
	/* Options refused by name, each with iperf3's error number. */
	CHECK_INT(parse("{\"udp\":true,\"time\":1,\"burst\":10}", &p, &ie, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "bursts") != NULL);
	CHECK_INT(parse("{\"udp\":true,\"time\":1,\"burst\":1}", &p, &ie, err, sizeof(err)), 0);
	CHECK_INT(parse("{\"tcp\":true,\"time\":1,\"server_affinity\":0}", &p, &ie, err,
			sizeof(err)), -EINVAL);
	/* iperf3 --sctp: a tcp test over SCTP streams; SCTP with UDP is no test at all. */
	CHECK_INT(parse("{\"sctp\":true,\"time\":1}", &p, &ie, err, sizeof(err)), 0);
	CHECK(p.sctp && p.shape == BP_NET_STREAMS);
	CHECK_INT(parse("{\"udp\":true,\"sctp\":true,\"time\":1}", &p, &ie, err, sizeof(err)),
		  -EINVAL);
	CHECK_INT(ie, BP_IE_PROTOCOL);
	CHECK_STR(err, "sctp with a udp test: expected one transport");
	CHECK_INT(parse("{\"bp_test\":\"rr\",\"sctp\":true,\"bp_rr_udp\":true,\"time\":1}",
			&p, &ie, err, sizeof(err)), -EINVAL);
	CHECK_INT(ie, BP_IE_PROTOCOL);
	CHECK_INT(parse("{\"tcp\":true,\"time\":0}", &p, &ie, err, sizeof(err)), -EINVAL);
	CHECK_INT(ie, BP_IE_DURATION);
	CHECK_INT(parse("{\"tcp\":true,\"time\":1,\"parallel\":500}", &p, &ie, err, sizeof(err)),
		  -EINVAL);
	CHECK_INT(ie, BP_IE_NUMSTREAMS);
	/* Toward a stock server: iperf3's keys only. */
	p = (struct bp_net_params){ .test = "udp", .shape = BP_NET_STREAMS | BP_NET_DATAGRAMS,
				    .time_ns = 2 * BP_NS_PER_SEC, .parallel = 1,
				    .len = 1460, .iperf3 = true, .zerocopy = true };
	j = bp_net_params_to_json(&p);
	CHECK(json_object_get(j, "bp_version") == NULL && json_object_get(j, "bp_time_ns") == NULL);
	CHECK_INT(json_integer_value(json_object_get(j, "zerocopy")), 1);
	CHECK_INT(json_integer_value(json_object_get(j, "time")), 2);
	json_decref(j);
}

static void test_mirror_roles(void)
{
	struct bp_net_results *mine = calloc(1, sizeof(*mine)), *theirs = calloc(1, sizeof(*theirs));
	json_t *j = json_loads("{\"cpu_util_total\":1,\"cpu_util_user\":0.5,\"cpu_util_system\":0.5,"
			       "\"sender_has_retransmits\":1,\"streams\":[{\"id\":1,\"bytes\":100,"
			       "\"retransmits\":0},{\"id\":3,\"bytes\":200,\"retransmits\":-1}]}",
			       0, NULL);

	mine->nstreams = 2;
	mine->streams[0] = (struct bp_net_stream_result){ .id = 1, .sender = false };
	mine->streams[1] = (struct bp_net_stream_result){ .id = 3, .sender = true };
	CHECK_INT(bp_net_results_from_json(j, theirs, rerr, sizeof(rerr)), 0);
	CHECK(theirs->from_iperf3);
	bp_net_results_mirror_roles(theirs, mine);
	CHECK(theirs->streams[0].sender && !theirs->streams[1].sender);
	CHECK_INT(bp_net_results_bytes(theirs, true), 100);
	CHECK_INT(bp_net_results_bytes(theirs, false), 200);
	json_decref(j);
	free(mine);
	free(theirs);
}

static void test_text(void)
{
	struct bp_net_params p = { .test = "udp", .shape = BP_NET_STREAMS | BP_NET_DATAGRAMS, .parallel = 1,
				   .interval_ns = BP_NS_PER_SEC };
	struct bp_net_results *r = calloc(1, sizeof(*r));
	char buf[64], *text;

	CHECK_STR(bp_iperf3_bytes(buf, sizeof(buf), 3.49 * 1024 * 1024 * 1024), "3.49 GBytes");
	CHECK_STR(bp_iperf3_bytes(buf, sizeof(buf), 12500000), "11.9 MBytes");
	CHECK_STR(bp_iperf3_rate(buf, sizeof(buf), 100e6), "100 Mbits/sec");
	CHECK_STR(bp_iperf3_rate(buf, sizeof(buf), 32.2e9), "32.2 Gbits/sec");
	r->nintervals = 2;
	r->intervals[0] = (struct bp_net_interval){ .start_s = 0, .end_s = 1, .received = 1250000,
						    .packets_received = 1000, .lost = 10,
						    .jitter_ns = 25000 };
	r->intervals[1] = (struct bp_net_interval){ .start_s = 1, .end_s = 1.01 };  /* sliver */
	r->nstreams = 1;
	r->streams[0] = (struct bp_net_stream_result){ .id = 1, .bytes = 1250000, .end_s = 1,
						       .packets = 1000, .lost = 10 };
	text = bp_iperf3_text(&p, r, "127.0.0.1:40000");
	CHECK(text && strstr(text, "Accepted connection from 127.0.0.1:40000"));
	/* one stream: numbered as iperf3's server numbers its first, [  5], no [SUM] */
	CHECK(text && strstr(text, "[  5]   0.00-1.00   sec  1.19 MBytes  10.0 Mbits/sec"
			     "  0.025 ms  10/1010 (0.99%)\n"));
	CHECK(text && !strstr(text, "1.00-1.01"));
	CHECK(text && strstr(text, "[  5]   0.00-1.00   sec  1.19 MBytes  10.0 Mbits/sec"
			     "  0.000 ms  10/1010 (0.99%)  receiver\n"));
	CHECK(text && !strstr(text, "[SUM]") && !strstr(text, "[  1]"));
	free(text);
	/* -P 2: the intervals' [SUM], each stream's total, the receivers' [SUM] */
	p.parallel = 2;
	r->nstreams = 2;
	r->streams[1] = (struct bp_net_stream_result){ .id = 3, .bytes = 1250000, .start_s = 0,
						       .end_s = 2, .packets = 1000, .lost = 0 };
	text = bp_iperf3_text(&p, r, "127.0.0.1:40000");
	CHECK(text && strstr(text, "[SUM]   0.00-1.00   sec  1.19 MBytes  10.0 Mbits/sec"));
	CHECK(text && strstr(text, "[  6]   0.00-2.00   sec  1.19 MBytes  5.00 Mbits/sec"));
	CHECK(text && strstr(text, "[SUM]   0.00-2.00   sec  2.38 MBytes  10.0 Mbits/sec"
			     "  0.000 ms  10/2010 (0.5%)  receiver\n"));
	free(text);
	free(r);
}

int main(void)
{
	install_all_kinds();  /* the shapes come from the kinds' descriptors */
	test_refusals();
	test_params();
	test_mirror_roles();
	test_text();
	return tap_done();
}
