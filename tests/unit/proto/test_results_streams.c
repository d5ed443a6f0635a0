/*
 * Per-stream keys in the results exchange (results_streams.c): what one side writes the
 * other reads back exactly; a stock iperf3's results (none of the keys) read as unknown;
 * and a peer's malformed or out-of-range figures are refused rather than used; a UDP
 * receiver's tail (bp_net_results_add_tail) from its sender's final count.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/results.h"
#include "proto/results_streams.h"
#include "tap.h"

/* The line a refused result leaves (bp_net_results_from_json). */
static char rerr[256];

static struct bp_net_results *crafted(void)
{
	struct bp_net_results *r = calloc(1, sizeof(*r));

	r->nstreams = 2;
	r->streams[0] = (struct bp_net_stream_result){ .id = 1, .sender = true, .bytes = 1 << 20,
		.retransmits = 2, .snd_cwnd = 65483, .rtt_us = 31, .rttvar_us = 7,
		.pmtu = 65535 };
	r->streams[1] = (struct bp_net_stream_result){ .id = 3, .sender = false, .bytes = 99,
		.retransmits = -1 };
	r->stream_ivs.stride = 2;
	r->stream_ivs.nintervals = 2;
	for (int k = 0; k < 4; k++)
		r->stream_ivs.rec[k] = (struct bp_net_stream_interval){
			.bytes = 1000u * (unsigned)k + 1, .retransmits = k % 2 ? -1 : k,
			.cwnd = 14480, .rtt_us = 40 + (uint32_t)k, .rttvar_us = 3, .pmtu = 1500,
			.packets = (uint64_t)k, .lost = -k, .jitter_ns = 1500 };
	return r;
}

static void check_round_trip(void)
{
	struct bp_net_results *r = crafted(), *back = calloc(1, sizeof(*back));
	json_t *j = bp_net_results_to_json(r);

	CHECK_INT(bp_net_results_from_json(j, back, rerr, sizeof(rerr)), 0);
	CHECK_INT(back->streams[0].snd_cwnd, 65483);
	CHECK_INT(back->streams[0].rtt_us, 31);
	CHECK_INT(back->streams[0].rttvar_us, 7);
	CHECK_INT(back->streams[0].pmtu, 65535);
	CHECK_INT(back->stream_ivs.stride, 2);
	CHECK_INT(back->stream_ivs.nintervals, 2);
	CHECK(!memcmp(back->stream_ivs.rec, r->stream_ivs.rec, 4 * sizeof(r->stream_ivs.rec[0])));
	CHECK(bp_net_stream_interval_at(back, 1, 1) == &back->stream_ivs.rec[3]);
	CHECK(!bp_net_stream_interval_at(back, 2, 0));
	CHECK(!bp_net_stream_interval_at(back, 0, 2));
	json_decref(j);
	free(r);
	free(back);
}

/* A stock iperf3's results: its own per-stream keys only. */
static void check_iperf3(void)
{
	struct bp_net_results *back = calloc(1, sizeof(*back));
	json_t *j = json_loads("{\"cpu_util_total\": 1, \"streams\": [{\"id\": 1, \"bytes\": 5, "
			       "\"retransmits\": 0, \"jitter\": 0, \"errors\": 0, \"packets\": 0, "
			       "\"start_time\": 0, \"end_time\": 1}]}", 0, NULL);

	CHECK_INT(bp_net_results_from_json(j, back, rerr, sizeof(rerr)), 0);
	CHECK_INT(back->nstreams, 1);
	CHECK_INT(back->streams[0].snd_cwnd, 0);
	CHECK_INT(back->streams[0].rtt_us, 0);
	CHECK_INT(back->stream_ivs.nintervals, 0);
	json_decref(j);
	free(back);
}

/* Change one thing in good results with edit, and read what comes back. */
static struct bp_net_results *read_edited(void (*edit)(json_t *streams))
{
	struct bp_net_results *r = crafted(), *back = calloc(1, sizeof(*back));
	json_t *j = bp_net_results_to_json(r);

	edit(json_object_get(j, "streams"));
	bp_net_results_from_json(j, back, rerr, sizeof(rerr));
	json_decref(j);
	free(r);
	return back;
}

static json_t *record(json_t *streams, size_t i, size_t k)
{
	return json_array_get(json_object_get(json_array_get(streams, i), "bp_intervals"), k);
}

static void short_record(json_t *s)
{
	json_array_remove(record(s, 1, 0), 8);
}

static void negative_bytes(json_t *s)
{
	json_array_set_new(record(s, 0, 1), 0, json_integer(-5));
}

static void huge_cwnd(json_t *s)
{
	json_array_set_new(record(s, 1, 1), 2, json_integer(1LL << 33));
}

static void fractional(json_t *s)
{
	json_array_set_new(record(s, 0, 0), 6, json_real(2.5));
}

static void unequal(json_t *s)
{
	json_array_remove(json_object_get(json_array_get(s, 1), "bp_intervals"), 1);
}

static void text_value(json_t *s)
{
	json_array_set_new(record(s, 0, 0), 3, json_string("40"));
}

static void bad_tcp_info(json_t *s)
{
	json_object_set_new(json_array_get(s, 0), "bp_rtt_us", json_integer(-1));
	json_object_set_new(json_array_get(s, 0), "bp_snd_cwnd", json_real(1e12));
	json_object_set_new(json_array_get(s, 0), "bp_pmtu", json_string("1500"));
}

/* More records than the series holds: 2 streams of 1025 intervals each. */
static void too_many(json_t *s)
{
	for (size_t i = 0; i < 2; i++) {
		json_t *a = json_object_get(json_array_get(s, i), "bp_intervals");

		while (json_array_size(a) < BP_NET_MAX_STREAM_INTERVALS / 2 + 1)
			json_array_append(a, json_array_get(a, 0));
	}
}

static void check_refused(void)
{
	static const struct {
		const char *what;
		void (*edit)(json_t *streams);
	} cases[] = {
		{ "a record of 8 fields", short_record },
		{ "negative bytes", negative_bytes },
		{ "a cwnd beyond 32 bits", huge_cwnd },
		{ "a fractional count", fractional },
		{ "streams with unequal intervals", unequal },
		{ "a string for a number", text_value },
		{ "more records than fit", too_many },
	};
	struct bp_net_results *back;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		back = read_edited(cases[c].edit);
		printf("# %s\n", cases[c].what);
		CHECK_INT(back->stream_ivs.nintervals, 0);
		CHECK_INT(back->nstreams, 2);   /* the totals are still read */
		free(back);
	}
	back = read_edited(bad_tcp_info);
	CHECK_INT(back->streams[0].rtt_us, 0);
	CHECK_INT(back->streams[0].snd_cwnd, 0);
	CHECK_INT(back->streams[0].pmtu, 0);
	CHECK_INT(back->streams[0].rttvar_us, 7);
	CHECK_INT(back->stream_ivs.nintervals, 2);
	free(back);
}

/*
 * The tail: sender's count minus what the receiver saw up to its highest number (received
 * less duplicates, plus the gaps) becomes lost, so sent = received - duplicates + lost.
 */
static void check_tail(void)
{
	struct bp_net_results *rx = calloc(1, sizeof(*rx)), *tx = calloc(1, sizeof(*tx));

	rx->nstreams = 4;
	/* 1: 9968 read, no gaps, 10304 sent: 336 left in the socket after the drain */
	rx->streams[0] = (struct bp_net_stream_result){ .id = 1, .packets = 9968 };
	/* 3: gaps (5) and a duplicate: 100 sent, 96 read = 95 distinct + 1 twice, tail 0 */
	rx->streams[1] = (struct bp_net_stream_result){ .id = 3, .packets = 96, .lost = 5,
							.duplicates = 1 };
	/* 4: more than its sender says it sent: left as counted */
	rx->streams[2] = (struct bp_net_stream_result){ .id = 4, .packets = 50 };
	/* 5: a peer's impossible figures (duplicates above received): left as counted */
	rx->streams[3] = (struct bp_net_stream_result){ .id = 5, .packets = 1, .duplicates = 2 };
	tx->nstreams = 5;
	tx->streams[0] = (struct bp_net_stream_result){ .id = 1, .sender = true, .packets = 10304 };
	tx->streams[1] = (struct bp_net_stream_result){ .id = 3, .sender = true, .packets = 100 };
	tx->streams[2] = (struct bp_net_stream_result){ .id = 4, .sender = true, .packets = 40 };
	tx->streams[3] = (struct bp_net_stream_result){ .id = 5, .sender = true, .packets = 9 };
	/* the same id received on (--bidir's other direction) is not a sender: no tail */
	tx->streams[4] = (struct bp_net_stream_result){ .id = 1, .sender = false, .packets = 1 };
	/* two intervals recorded, side and streams: the tail is the last one's loss */
	rx->nintervals = 2;
	rx->intervals[1].lost = 2;
	rx->stream_ivs = (struct bp_net_stream_series){ .stride = 4, .nintervals = 2 };
	rx->stream_ivs.rec[4 + 1].lost = 2;
	bp_net_results_add_tail(rx, tx);
	CHECK_INT(rx->streams[0].lost, 336);
	CHECK_INT(rx->intervals[0].lost, 0);
	CHECK_INT(rx->intervals[1].lost, 2 + 336);
	CHECK_INT(rx->stream_ivs.rec[4 + 0].lost, 336);
	CHECK_INT(rx->stream_ivs.rec[4 + 1].lost, 2);
	CHECK_INT(rx->stream_ivs.rec[0].lost, 0);
	CHECK_INT(rx->streams[0].packets + rx->streams[0].lost, 10304);
	CHECK_INT(rx->streams[1].lost, 5);
	CHECK_INT(rx->streams[2].lost, 0);
	CHECK_INT(rx->streams[3].lost, 0);
	/* once is once: a second call finds nothing more to add */
	bp_net_results_add_tail(rx, tx);
	CHECK_INT(rx->streams[0].lost, 336);
	CHECK_INT(rx->intervals[1].lost, 2 + 336);
	/* a sender's own streams never gain a tail */
	rx->streams[0].sender = true;
	rx->streams[0].lost = 0;
	bp_net_results_add_tail(rx, tx);
	CHECK_INT(rx->streams[0].lost, 0);
	free(rx);
	free(tx);
}

int main(void)
{
	check_round_trip();
	check_tail();
	check_iperf3();
	check_refused();
	return tap_done();
}
