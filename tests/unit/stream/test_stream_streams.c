/*
 * Per-stream figures from crafted results of both sides (stream_streams.c): streams paired
 * by id whatever order the peer lists them in, each side's rate over its own span, the
 * server's late last interval folded in, TCP_INFO in base units, unknowns as null, a side
 * whose results are missing, the bound on per-stream intervals; then the three renderings
 * of a TCP and a UDP result against golden files (tests/unit/golden/streams_*.*).
 *
 * Usage: test_stream_streams GOLDEN_DIR
 */
#include <stdlib.h>

#include "proto/params.h"
#include "proto/results.h"
#include "result/render.h"
#include "result/result.h"
#include "stream/stream_streams.h"
#include "kinds.h"
#include "tap.h"
#include "stream/results_fixture.h"
#include "golden_check.h"

static const char *golden_dir = "tests/unit/golden";

static void add_interval(struct bp_net_results *r, double start, double end)
{
	struct bp_net_interval *iv = &r->intervals[r->nintervals++];

	iv->start_s = start;
	iv->end_s = end;
}

/* Record interval k of stream i: bytes and a TCP sender's state. */
static void rec(struct bp_net_results *r, int k, int i, uint64_t bytes, int64_t retr,
		uint32_t cwnd, uint32_t rtt_us)
{
	struct bp_net_stream_interval *v = &r->stream_ivs.rec[k * r->stream_ivs.stride + i];

	v->bytes = bytes;
	v->retransmits = retr;
	v->cwnd = cwnd;
	v->rtt_us = rtt_us;
	v->rttvar_us = rtt_us / 4;
	v->pmtu = cwnd ? 1500 : 0;
	if (k + 1 > r->stream_ivs.nintervals)
		r->stream_ivs.nintervals = k + 1;
}

static struct bp_net_params tcp_params(int streams, bool reverse, bool bidir, const char *test)
{
	struct bp_net_params np = { 0 };

	bp_net_params_set_test(&np, test);
	np.parallel = streams;
	np.reverse = reverse;
	np.bidir = bidir;
	return np;
}

/*
 * -P 3 upload: the client sent on 1, 3, 4 for 2 intervals; the server, listing its streams
 * as 4, 1, 3, received for 2.01 s in 3 intervals (its last one after the client's end).
 */
static void upload(struct bp_net_results *c, struct bp_net_results *s)
{
	static const uint64_t sent[3][2] = { { 600, 400 }, { 1000, 1000 }, { 1, 2 } };
	static const int ids[3] = { 1, 3, 4 };

	c->stream_ivs.stride = 3;
	s->stream_ivs.stride = 3;
	add_interval(c, 0, 1);
	add_interval(c, 1, 2);
	add_interval(s, 0, 1);
	add_interval(s, 1, 2);
	add_interval(s, 2, 2.01);
	for (int i = 0; i < 3; i++) {
		add_stream(c, ids[i], true, sent[i][0] + sent[i][1], 0, 2);
		rec(c, 0, i, sent[i][0], i, 14480 * (uint32_t)(i + 1), 100);
		rec(c, 1, i, sent[i][1], 0, 28960, 250);
	}
	c->streams[0].retransmits = 3;
	c->streams[0].snd_cwnd = 28960;
	c->streams[0].rtt_us = 250;
	c->streams[0].rttvar_us = 40;
	c->streams[0].pmtu = 1500;
	c->streams[2].retransmits = -1;   /* qemu: TCP_INFO without retransmits */
	/* the server: id 4 first; stream 3 still had 10 bytes in flight at the client's end */
	add_stream(s, 4, false, 3, 0, 2.01);
	add_stream(s, 1, false, 1000, 0, 2.01);
	add_stream(s, 3, false, 1990, 0, 2.01);
	rec(s, 0, 0, 1, -1, 0, 0);
	rec(s, 1, 0, 2, -1, 0, 0);
	rec(s, 2, 0, 0, -1, 0, 0);
	rec(s, 0, 1, 600, -1, 0, 0);
	rec(s, 1, 1, 400, -1, 0, 0);
	rec(s, 2, 1, 0, -1, 0, 0);
	rec(s, 0, 2, 990, -1, 0, 0);
	rec(s, 1, 2, 900, -1, 0, 0);
	rec(s, 2, 2, 100, -1, 0, 0);
}

static const json_t *stream_at(const json_t *a, size_t i, const char *side)
{
	return json_object_get(json_array_get(a, i), side);
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : -12345;
}

static void check_upload(void)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(3, false, false, "tcp");
	json_t *j, *end, *ivs;
	double sum = 0;

	upload(c, s);
	j = bp_stream_streams_json(&np, c, s);
	end = json_object_get(j, "end");
	ivs = json_object_get(j, "intervals");
	CHECK_INT(json_array_size(end), 3);
	CHECK_INT(json_array_size(ivs), 2);
	/* in the client's order, each paired with the server's stream of the same id */
	CHECK_INT(json_integer_value(json_object_get(json_array_get(end, 0), "id")), 1);
	CHECK_INT(json_integer_value(json_object_get(json_array_get(end, 2), "id")), 4);
	CHECK_STR(json_string_value(json_object_get(json_array_get(end, 0), "direction")), "up");
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "bytes"), 1000, 0);
	CHECK_NEAR(num(stream_at(end, 0, "receiver"), "bytes"), 1000, 0);
	CHECK_NEAR(num(stream_at(end, 1, "receiver"), "bytes"), 1990, 0);
	CHECK_NEAR(num(stream_at(end, 2, "receiver"), "bytes"), 3, 0);
	/* each rate over its own side's span */
	CHECK_NEAR(num(stream_at(end, 1, "sender"), "bitrate"), 2000 * 8 / 2.0, 1e-9);
	CHECK_NEAR(num(stream_at(end, 1, "receiver"), "bitrate"), 1990 * 8 / 2.01, 1e-9);
	/* TCP_INFO in base units (ns, bytes); what is unknown is null */
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "rtt"), 250000, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "rttvar"), 40000, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "snd_cwnd"), 28960, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "pmtu"), 1500, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "retransmits"), 3, 0);
	CHECK(json_is_null(json_object_get(stream_at(end, 1, "sender"), "rtt")));
	CHECK(json_is_null(json_object_get(stream_at(end, 2, "sender"), "retransmits")));
	CHECK(!json_object_get(stream_at(end, 0, "receiver"), "rtt"));
	for (size_t i = 0; i < 3; i++)
		sum += num(stream_at(end, i, "sender"), "bytes");
	CHECK_NEAR(sum, (double)bp_net_results_bytes(c, true), 0);
	sum = 0;
	for (size_t i = 0; i < 3; i++)
		sum += num(stream_at(end, i, "receiver"), "bytes");
	CHECK_NEAR(sum, (double)bp_net_results_bytes(s, false), 0);

	/* interval 0 as recorded; interval 1 takes in the server's third, to 2.01 s */
	const json_t *iv0 = json_array_get(ivs, 0), *iv1 = json_array_get(ivs, 1);

	CHECK_NEAR(num(stream_at(iv0, 1, "receiver"), "bytes"), 990, 0);
	CHECK_NEAR(num(stream_at(iv0, 0, "sender"), "snd_cwnd"), 14480, 0);
	CHECK_NEAR(num(stream_at(iv0, 2, "sender"), "retransmits"), 2, 0);
	CHECK_NEAR(num(stream_at(iv0, 0, "sender"), "rtt"), 100000, 0);
	CHECK_NEAR(num(stream_at(iv1, 1, "receiver"), "bytes"), 1000, 0);
	CHECK_NEAR(num(stream_at(iv1, 1, "receiver"), "seconds"), 1.01, 1e-12);
	CHECK_NEAR(num(stream_at(iv1, 1, "receiver"), "bitrate"), 1000 * 8 / 1.01, 1e-6);
	CHECK_NEAR(num(stream_at(iv1, 1, "sender"), "seconds"), 1, 1e-12);
	CHECK_NEAR(num(stream_at(iv1, 2, "receiver"), "bytes"), 2, 0);
	json_decref(j);
	free(c);
	free(s);
}

/* -R -P 2: the server sent; then its results never arrived (the exchange failed). */
static void check_reverse_and_missing(void)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(2, true, false, "tcp");
	json_t *j, *end;

	add_stream(c, 1, false, 500, 0, 1);
	add_stream(c, 3, false, 700, 0, 1);
	add_stream(s, 1, true, 510, 0, 1.5);
	add_stream(s, 3, true, 700, 0, 1.5);
	s->streams[0].snd_cwnd = 64000;
	s->streams[0].rtt_us = 20;
	j = bp_stream_streams_json(&np, c, s);
	end = json_object_get(j, "end");
	CHECK_STR(json_string_value(json_object_get(json_array_get(end, 1), "direction")), "down");
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "bytes"), 510, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "rtt"), 20000, 0);
	CHECK_NEAR(num(stream_at(end, 0, "sender"), "bitrate"), 510 * 8 / 1.5, 1e-9);
	CHECK_NEAR(num(stream_at(end, 0, "receiver"), "bytes"), 500, 0);
	json_decref(j);

	s->nstreams = 0;
	j = bp_stream_streams_json(&np, c, s);
	end = json_object_get(j, "end");
	CHECK(json_is_null(stream_at(end, 0, "sender")));
	CHECK_NEAR(num(stream_at(end, 1, "receiver"), "bytes"), 700, 0);
	json_decref(j);
	free(c);
	free(s);
}

/* A side that kept records for fewer intervals than it has: null there, and a warning. */
static void check_truncated(void)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(2, false, false, "tcp");
	struct bp_result *r = bp_result_new("tcp");
	const json_t *ivs;

	c->stream_ivs.stride = 2;
	for (int k = 0; k < 3; k++)
		add_interval(c, k, k + 1);
	add_stream(c, 1, true, 10, 0, 3);
	add_stream(c, 3, true, 10, 0, 3);
	rec(c, 0, 0, 5, 0, 1, 1);
	rec(c, 0, 1, 5, 0, 1, 1);
	c->stream_ivs.truncated = true;
	CHECK_INT(bp_stream_report_streams(r, &np, c, s), 0);
	ivs = json_object_get(r->streams, "intervals");
	CHECK(json_is_array(json_array_get(ivs, 0)));
	CHECK(json_is_null(json_array_get(ivs, 1)));
	CHECK(json_is_null(json_array_get(ivs, 2)));
	CHECK(bp_result_has_warning(r, "stream-intervals-truncated"));
	bp_result_free(r);

	/* all of them kept: no warning */
	r = bp_result_new("tcp");
	for (int k = 1; k < 3; k++) {
		rec(c, k, 0, 1, 0, 1, 1);
		rec(c, k, 1, 1, 0, 1, 1);
	}
	CHECK_INT(bp_stream_report_streams(r, &np, c, s), 0);
	CHECK(!bp_result_has_warning(r, "stream-intervals-truncated"));
	bp_result_free(r);
	free(c);
	free(s);
}

/* A TCP upload result as the report makes it: metrics, intervals and its streams. */
static struct bp_result *tcp_result(bool verbose)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(3, false, false, "tcp");
	struct bp_result *r = bp_result_new("tcp");

	upload(c, s);
	bp_result_add_metric(r, "sender.bytes", 3003, "B", BP_BETTER_NONE);
	bp_result_add_metric(r, "receiver.bytes", 2993, "B", BP_BETTER_NONE);
	bp_interval_add_metric(bp_result_add_interval(r, 0, 1), "sender.bytes", 1601, "B",
			       BP_BETTER_NONE);
	bp_interval_add_metric(bp_result_add_interval(r, 1, 2), "sender.bytes", 1402, "B",
			       BP_BETTER_NONE);
	bp_stream_report_streams(r, &np, c, s);
	r->text_show_stream_intervals = verbose;
	free(c);
	free(s);
	return r;
}

/* UDP --bidir -P 2: streams 1, 3 up and 4, 5 down, with loss on the way down. */
static struct bp_result *udp_result(void)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(2, false, true, "udp");
	struct bp_result *r = bp_result_new("udp");
	static const int ids[4] = { 1, 3, 4, 5 };

	c->stream_ivs.stride = s->stream_ivs.stride = 4;
	add_interval(c, 0, 1);
	add_interval(s, 0, 1);
	for (int i = 0; i < 4; i++) {
		bool up = i < 2;
		struct bp_net_results *snd = up ? c : s, *rcv = up ? s : c;
		struct bp_net_stream_result *a, *b;

		add_stream(snd, ids[i], true, 14600, 0, 1);
		add_stream(rcv, ids[i], false, up ? 14600 : 13140, 0, 1.001);
		a = &snd->streams[snd->nstreams - 1];
		b = &rcv->streams[rcv->nstreams - 1];
		a->retransmits = -1;
		a->packets = 10;
		b->packets = up ? 10 : 9;
		b->lost = up ? 0 : 1;
		b->jitter_ns = 1000 * (i + 1);
		snd->stream_ivs.rec[i] = (struct bp_net_stream_interval){ .bytes = a->bytes,
			.retransmits = -1, .packets = 10 };
		rcv->stream_ivs.rec[i] = (struct bp_net_stream_interval){ .bytes = b->bytes,
			.retransmits = -1, .packets = b->packets, .lost = b->lost,
			.jitter_ns = b->jitter_ns };
	}
	c->stream_ivs.nintervals = s->stream_ivs.nintervals = 1;
	bp_result_add_metric(r, "up.sender.bytes", 29200, "B", BP_BETTER_NONE);
	bp_interval_add_metric(bp_result_add_interval(r, 0, 1), "up.sender.bytes", 29200, "B",
			       BP_BETTER_NONE);
	bp_stream_report_streams(r, &np, c, s);
	r->text_show_stream_intervals = true;
	free(c);
	free(s);
	return r;
}

static void check_golden_files(void)
{
	struct bp_result *r = tcp_result(true);

	for (int f = BP_FORMAT_TEXT; f <= BP_FORMAT_CSV; f++)
		golden_check(golden_dir, r, "streams_tcp", (enum bp_format)f);
	bp_result_free(r);
	/* without -v the text has the end table only */
	r = tcp_result(false);
	golden_check(golden_dir, r, "streams_tcp_quiet", BP_FORMAT_TEXT);
	bp_result_free(r);
	r = udp_result();
	for (int f = BP_FORMAT_TEXT; f <= BP_FORMAT_CSV; f++)
		golden_check(golden_dir, r, "streams_udp", (enum bp_format)f);
	bp_result_free(r);
}

/* One stream each way (--bidir -P 1): the metrics already are the streams, no table. */
static void check_single_stream_text(void)
{
	struct bp_net_results *c = calloc(1, sizeof(*c)), *s = calloc(1, sizeof(*s));
	struct bp_net_params np = tcp_params(1, false, true, "tcp");
	struct bp_result *r = bp_result_new("tcp");
	char *text;

	add_stream(c, 1, true, 10, 0, 1);
	add_stream(c, 3, false, 10, 0, 1);
	add_stream(s, 1, false, 10, 0, 1);
	add_stream(s, 3, true, 10, 0, 1);
	bp_result_add_metric(r, "up.sender.bytes", 10, "B", BP_BETTER_NONE);
	bp_stream_report_streams(r, &np, c, s);
	text = golden_render(r, BP_FORMAT_TEXT);
	CHECK(text && !strstr(text, "[ID]"));
	free(text);
	text = golden_render(r, BP_FORMAT_JSON);
	CHECK(text && strstr(text, "\"direction\": \"down\""));
	free(text);
	bp_result_free(r);
	free(c);
	free(s);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	install_all_kinds();  /* the parameters' shapes come from the kinds' descriptors */
	check_upload();
	check_reverse_and_missing();
	check_truncated();
	check_single_stream_text();
	check_golden_files();
	return tap_done();
}
