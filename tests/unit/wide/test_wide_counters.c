/*
 * Counters past 2^32, on every architecture: on 32-bit ARM `long` and `size_t` are 32 bits,
 * so a byte count, a datagram count, a file offset or a nanosecond figure held in one would
 * wrap silently at 4 GiB, 4.29 s or 4.29 G datagrams. Each check below pushes a real code
 * path past 2^32 and asserts the exact figure; CI runs this file under qemu-arm as well
 * (armhf, armel) as natively.
 */
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "core/clock.h"
#include "core/units.h"
#include "disk/disk_workload.h"
#include "io/pacer.h"
#include "proto/results.h"
#include "stats/series.h"
#include "side/udp_seq.h"
#include "tap.h"

#define TWO32 ((uint64_t)1 << 32)
#define GIB ((uint64_t)1 << 30)

static void test_units(void)
{
	uint64_t v = 0;
	double r = 0;
	char buf[32];

	CHECK_INT(bp_parse_size("5G", &v), 0);
	CHECK(v == 5 * GIB);
	CHECK_INT(bp_parse_size("4GiB", &v), 0);
	CHECK(v == TWO32);
	CHECK_INT(bp_parse_size("16T", &v), 0);
	CHECK(v == 16 * 1024 * GIB);
	CHECK_INT(bp_parse_duration("2h", &v), 0);
	CHECK(v == 7200 * BP_NS_PER_SEC);
	CHECK_INT(bp_parse_duration("5s", &v), 0);
	CHECK(v == 5 * BP_NS_PER_SEC);
	CHECK_INT(bp_parse_rate("40G", &r), 0);
	CHECK(r == 40e9);
	CHECK_STR(bp_format_bytes(buf, sizeof(buf), (double)(5 * GIB)), "5.00 GiB");
	CHECK_STR(bp_format_value(buf, sizeof(buf), (double)(6 * GIB), "B"), "6.00 GiB");
	CHECK_STR(bp_format_duration(buf, sizeof(buf), 5e9), "5.00 s");
	CHECK_STR(bp_format_rate(buf, sizeof(buf), 40e9), "40.0 Gbit/s");
}

/* An interval series of a long test: its times in ns pass 2^32 after 4.3 s. */
static void test_series(void)
{
	static const struct bp_series_column cols[] = { { "receiver.bytes", "B", 0 } };
	struct bp_series *s = bp_series_new(cols, 1);
	double v;
	int bad = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	for (uint64_t i = 0; i < 10; i++) {
		v = (double)(i * 5 * GIB);  /* 5 GiB per interval: 45 GiB in the last row */
		bad += bp_series_append(s, i * BP_NS_PER_SEC, (i + 1) * BP_NS_PER_SEC, &v) != 0;
	}
	CHECK_INT(bad, 0);
	CHECK(bp_series_start_ns(s, 9) == 9 * BP_NS_PER_SEC);
	CHECK(bp_series_end_ns(s, 9) == 10 * BP_NS_PER_SEC);
	CHECK(bp_series_value(s, 9, 0) == (double)(45 * GIB));
	CHECK(bp_series_sum(s, 0) == (double)(225 * GIB));
	bp_series_free(s);
}

/* A UDP receiver: a gap of 5 G datagrams, and a 32-bit wire sequence that wraps. */
static void test_udp_seq(void)
{
	static struct bp_udp_seq s;
	struct bp_udp_seq_counts c;
	const uint64_t jump = 5000000000ULL;

	bp_udp_seq_init(&s, 1);
	bp_udp_seq_add(&s, 1, 0, 0, BP_NS_PER_SEC);
	CHECK_INT(bp_udp_seq_add(&s, 1 + jump, 100, 0, 101 * BP_NS_PER_SEC), BP_UDP_SEQ_NEW);
	bp_udp_seq_totals(&s, &c);
	CHECK(c.expected == jump + 1);
	CHECK(c.lost == (int64_t)jump - 1);
	CHECK_INT(c.received, 2);
	/* iperf3's 32-bit numbers: just past the wrap, the highest seen is 2^32 - 2 */
	bp_udp_seq_init(&s, TWO32 - 10);
	bp_udp_seq_add(&s, TWO32 - 2, 0, 0, BP_NS_PER_SEC);
	CHECK(bp_udp_seq_extend32(&s, 3) == TWO32 + 3);
	CHECK(bp_udp_seq_extend32(&s, (uint32_t)(TWO32 - 5)) == TWO32 - 5);
	CHECK_INT(bp_udp_seq_add(&s, bp_udp_seq_extend32(&s, 3), 0, 0, 2 * BP_NS_PER_SEC),
		  BP_UDP_SEQ_NEW);
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(c.expected, 14);  /* 2^32 - 10 .. 2^32 + 3 */
	CHECK_INT(c.lost, 12);
}

/* The pacer's schedule: datagram 5e9 of a 100 Mbit/s stream of 1470-byte datagrams. */
static void test_pacer(void)
{
	struct bp_pacer p;
	const uint64_t start = 3 * TWO32, k = 5000000000ULL;

	bp_pacer_init(&p, 100e6, 1470 * 8, start);
	/* 1470 * 8 / 100e6 s = 117,600 ns exactly */
	CHECK(bp_pacer_slot_ns(&p, k) == start + k * 117600);
	CHECK(bp_pacer_sub_slot_ns(&p, 3, 4, k) == start + (k * 4 + 3) * 117600);
}

/* A disk file set larger than 4 GiB: offsets past 2^32, each inside its file. */
static void test_disk_offsets(void)
{
	struct bp_disk_workload w = {
		.mode = BP_DISK_RNDRD, .rw_ratio = 1.5,
		.layout = { .nfiles = 2, .block = 16384, .file_size = 6 * GIB },
	};
	struct bp_disk_gen g;
	struct bp_disk_req req;
	int high = 0, bad = 0;

	CHECK(bp_disk_total_bytes(&w.layout) == 12 * GIB);
	CHECK_INT(bp_disk_gen_init(&g, &w, 0, 1, 42), 0);
	for (int i = 0; i < 4096; i++) {
		bp_disk_gen_next(&g, &req);
		bad += req.op != BP_DISK_READ || req.file >= 2 || req.len != 16384 ||
		       req.offset % 16384 || req.offset + 16384 > 6 * GIB;
		high += req.offset >= TWO32;
	}
	CHECK_INT(bad, 0);
	/* a third of each 6 GiB file lies past 4 GiB: about 1,365 of 4,096 draws */
	CHECK(high > 1100 && high < 1650);
	bp_disk_gen_free(&g);

	/* Sequential: the block after the one ending at 4 GiB starts at 2^32 exactly. */
	w.mode = BP_DISK_SEQRD;
	CHECK_INT(bp_disk_gen_init(&g, &w, 0, 1, 42), 0);
	g.seq_next = TWO32 / 16384 - 1;
	bp_disk_gen_next(&g, &req);
	CHECK(req.file == 0 && req.offset == TWO32 - 16384);
	bp_disk_gen_next(&g, &req);
	CHECK(req.file == 0 && req.offset == TWO32);
	g.seq_next = 6 * GIB / 16384 + TWO32 / 16384;  /* in file 1, 4 GiB in */
	bp_disk_gen_next(&g, &req);
	CHECK(req.file == 1 && req.offset == TWO32);
	bp_disk_gen_free(&g);
}

/* The results a peer sends: byte and datagram counts past 2^32 survive JSON both ways. */
static void test_net_results(void)
{
	struct bp_net_results *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char err[256];
	json_t *j;

	CHECK(a && b);
	if (!a || !b)
		goto out;
	a->nstreams = 2;
	for (int i = 0; i < 2; i++)
		a->streams[i] = (struct bp_net_stream_result){
			.id = i + 1, .sender = true, .bytes = 7 * GIB + (uint64_t)i, .retransmits = 0,
			.start_s = 0, .end_s = 60, .packets = 5000000001ULL };
	a->nintervals = 1;
	a->intervals[0] = (struct bp_net_interval){ .start_s = 0, .end_s = 60,
						    .sent = 14 * GIB + 1 };
	j = bp_net_results_to_json(a);
	CHECK(j != NULL);
	CHECK_INT(bp_net_results_from_json(j, b, err, sizeof(err)), 0);
	json_decref(j);
	CHECK(bp_net_results_bytes(b, true) == 14 * GIB + 1);
	CHECK(b->streams[1].bytes == 7 * GIB + 1);
	CHECK(bp_net_results_packets(b, true) == 10000000002ULL);
	CHECK_INT(b->nintervals, 1);
	CHECK(b->intervals[0].sent == 14 * GIB + 1);
out:
	free(a);
	free(b);
}

int main(void)
{
	test_units();
	test_series();
	test_udp_seq();
	test_pacer();
	test_disk_offsets();
	test_net_results();
	return tap_done();
}
