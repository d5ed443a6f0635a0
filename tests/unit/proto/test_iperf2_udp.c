/*
 * iperf 2's UDP datagrams and server report against the wire of Debian's iperf 2.1.8
 * (`iperf -c 127.0.0.1 -p 15320 -u -t 0.3 -b 1M`, read by a plain UDP socket, 2026-12-06):
 * the first datagram's sequence number, send time and test header; the FIN's negated number
 * in 64 bits; a report written and read back, with counts past 32 bits.
 */
#include <string.h>

#include "core/be32.h"
#include "proto/iperf2_udp.h"
#include "tap.h"

/* The first 76 bytes of the client's first datagram: id 1, its send time, id2 0, the header */
static const uint8_t first[76] = {
	0x00, 0x00, 0x00, 0x01, 0x6b, 0x15, 0x36, 0x62, 0x00, 0x06, 0xb8, 0x76, 0, 0, 0, 0,
	0x48, 0x01, 0x00, 0x98, 0, 0, 0, 1, 0, 0, 0x3b, 0xd8, 0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xe2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 2, 0, 1, 0, 8, 0, 3, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0,
};

static void datagrams(void)
{
	struct bp_iperf2_dgram d;
	/* the client's FIN after 31 datagrams: -32 in 64 bits (id2 all ones) */
	uint8_t fin[16] = { 0xff, 0xff, 0xff, 0xe0, 0x6b, 0x15, 0x36, 0x62, 0, 0x0b, 0x13, 0x1a,
			    0xff, 0xff, 0xff, 0xff };

	CHECK(bp_iperf2_dgram_decode(first, sizeof(first), true, &d) == 0);
	CHECK_INT(d.seq, 1);
	CHECK(!d.fin);
	CHECK_INT(d.sec, 0x6b153662);
	CHECK_INT(d.usec, 0x0006b876);
	CHECK(bp_iperf2_dgram_decode(fin, sizeof(fin), true, &d) == 0);
	CHECK(d.fin);
	CHECK_INT(d.seq, 32);
	/* 32-bit ids (a client without SEQNO64B): the sign in the first word */
	CHECK(bp_iperf2_dgram_decode(fin, 12, false, &d) == 0);
	CHECK(d.fin && d.seq == 32);
	CHECK(bp_iperf2_dgram_decode(fin, 15, true, &d) < 0);	/* id2 cut off */
	fin[8] = 0x7f;	/* microseconds 2131563290: out of their domain */
	CHECK(bp_iperf2_dgram_decode(fin, 16, true, &d) < 0);
	memset(fin, 0, 16);
	fin[12] = 0x80;	/* INT64_MIN (id2 0x80000000, id 0) has no positive twin */
	CHECK(bp_iperf2_dgram_decode(fin, 16, true, &d) < 0);
}

static void headers(void)
{
	struct bp_iperf2_header h;
	uint8_t b[76];
	char err[160] = "";

	CHECK(bp_iperf2_udp_header_parse(first, sizeof(first), &h, err, sizeof(err)) == 0);
	CHECK_INT(h.len, 60);
	CHECK_INT(h.mode, BP_IPERF2_NORMAL);
	CHECK_INT(h.threads, 1);
	CHECK_INT(h.port, 15320);
	CHECK(h.timed);
	CHECK_INT(h.duration_ns, 300000000);
	CHECK_INT(h.rate, 1048576);
	CHECK(h.flags & BP_IPERF2_HEADER_SEQNO64B);
	CHECK_INT(h.version_l, 0x00080003);
	/* a length that does not cover the datagram's own 16 bytes and a base header */
	memcpy(b, first, sizeof(b));
	b[19] = 0x4e;	/* 39 */
	CHECK(bp_iperf2_udp_header_parse(b, sizeof(b), &h, err, sizeof(err)) < 0);
	CHECK(strstr(err, "not an iperf 2.1 UDP test header") != NULL);
	/* cut short: the header says 76, 60 came */
	CHECK(bp_iperf2_udp_header_parse(first, 60, &h, err, sizeof(err)) < 0);
	CHECK(bp_iperf2_udp_header_parse(first, 19, &h, err, sizeof(err)) < 0);
	/* an iperf3 datagram (time first, then the sequence number): no header */
	memset(b, 0, sizeof(b));
	b[0] = 0x6b;
	CHECK(bp_iperf2_udp_header_parse(b, sizeof(b), &h, err, sizeof(err)) < 0);
}

/*
 * --trip-times: the first 128 bytes of a datagram of Debian's 2.1.8 (`iperf -c -u -e
 * --trip-times -b 1M -t 0.2 -l 1000 -p 5313`, 2026-12-06): the start time after the
 * isochronous block, the length field saying 108; and ours written the same way.
 */
static void trip_times(void)
{
	static const uint32_t stock[32] = {
		0x00000001, 0x6b1562ed, 0x00040c6b, 0, 0x680100d8, 1, 0x14c1, 0x3e8, 0,
		0xffffffec, 0, 0, 0x00100000, 0x00020001, 0x00080003, 0, 0x00100000, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0x6b1562ed, 0x00040c6b, 0, 0,
	};
	uint8_t b[128], ours[BP_IPERF2_UDP_HEADER_START_LEN];
	struct bp_iperf2_header h, back;
	char err[160];

	for (int i = 0; i < 32; i++)
		bp_put_be32(b + 4 * i, stock[i]);
	CHECK(bp_iperf2_udp_header_parse(b, sizeof(b), &h, err, sizeof(err)) == 0);
	CHECK(h.trip_times && h.has_start);
	CHECK_INT(h.start_sec, 0x6b1562ed);
	CHECK_INT(h.start_usec, 0x40c6b);
	CHECK_INT(h.rate, 1048576);
	/* cut before the start time: refused, not read from the isochronous block */
	CHECK(bp_iperf2_udp_header_parse(b, 16 + 100, &h, err, sizeof(err)) < 0);
	/* ours: the same layout and length field */
	h = (struct bp_iperf2_header){ .threads = 1, .buffer_len = 1000, .extended = true,
				       .timed = true, .duration_ns = 200000000, .trip_times = true,
				       .has_start = true, .start_sec = 0x6b1562ed,
				       .start_usec = 0x40c6b, .version_u = 0x00020001,
				       .version_l = 0x00080003, .rate = 1048576 };
	CHECK_INT(bp_iperf2_udp_header_write(&h, ours, sizeof(ours)), 112);
	CHECK_INT(bp_get_be32(ours) & 0xffff, 0x00d8);	/* length 108, as 2.1.8's */
	CHECK(!memcmp(ours + 32, b + 48, 4));		/* the upper flags: TRIPTIME */
	CHECK(!memcmp(ours + 96, b + 112, 8));		/* the start, where 2.1.8 puts it */
	CHECK_INT(bp_iperf2_udp_header_write(&h, ours, 111), 0);
	memcpy(b + 16, ours, sizeof(ours));
	CHECK(bp_iperf2_udp_header_parse(b, sizeof(b), &back, err, sizeof(err)) == 0);
	CHECK(back.trip_times && back.start_sec == h.start_sec && back.start_usec == h.start_usec);
}

/*
 * -R: the first datagram of Debian's 2.1.8 `iperf -c 127.0.0.1 -p 5394 -u -R -t 1 -b 1M
 * -l 1000` (2026-12-06, read by a plain UDP socket; it came three times, the same but for
 * the time): number 1, the header with REVERSE; ours for the same test writes the same
 * header bytes, and it reads back as -R.
 */
static void reverse(void)
{
	static const uint32_t stock[20] = {
		0x00000001, 0x6b158cf6, 0x000c4e3b, 0, 0x6c010098, 1, 0x1512, 0x3e8, 0,
		0xffffff9c, 0, 0, 0x04000000, 0x00020001, 0x00080003, 0, 0x00100000, 0, 0, 0,
	};
	uint8_t b[80], ours[BP_IPERF2_UDP_HEADER_START_LEN];
	struct bp_iperf2_header h, back;
	char err[160];
	size_t n;

	for (int i = 0; i < 20; i++)
		bp_put_be32(b + 4 * i, stock[i]);
	CHECK(bp_iperf2_udp_header_parse(b, sizeof(b), &back, err, sizeof(err)) == 0);
	CHECK(back.mode == BP_IPERF2_REVERSE && back.timed && back.duration_ns == 1000000000);
	h = (struct bp_iperf2_header){ .threads = 1, .buffer_len = 1000, .extended = true,
				       .mode = BP_IPERF2_REVERSE, .timed = true,
				       .duration_ns = 1000000000, .version_u = 0x00020001,
				       .version_l = 0x00080003, .rate = 1048576, .port = 0x1512 };
	n = bp_iperf2_udp_header_write(&h, ours, sizeof(ours));
	CHECK(n > 0 && n <= sizeof(b) - 16);
	CHECK(!memcmp(ours, b + 16, n));
	if (memcmp(ours, b + 16, n))
		for (size_t i = 0; i < n; i += 4)
			printf("#   word %zu: ours 0x%08x, 2.1.8's 0x%08x\n", i / 4,
			       bp_get_be32(ours + i), bp_get_be32(b + 16 + i));
}

static void reports(void)
{
	struct bp_iperf2_udp_report r = { .bytes = 0x100000123ull, .datagrams = 0x200000005ull,
					  .lost = 7, .out_of_order = 0x100000000ull,
					  .stop_s = 1.0018, .jitter_s = 0.000033 }, back;
	uint8_t out[BP_IPERF2_UDP_REPORT_LEN];

	CHECK_INT(bp_iperf2_udp_report_write(out, &r), 128);
	CHECK(out[0] == 0 && out[15] == 0);	/* the datagram header's 16 bytes: zero */
	CHECK_INT(out[16], 0x88);		/* VERSION1 | SEQNO64B */
	CHECK(bp_iperf2_udp_report_parse(out, sizeof(out), &back) == 0);
	CHECK_INT(back.bytes, r.bytes);
	CHECK_INT(back.datagrams, r.datagrams);
	CHECK_INT(back.lost, 7);
	CHECK_INT(back.out_of_order, r.out_of_order);
	CHECK(back.stop_s > 1.0017 && back.stop_s < 1.0019);
	CHECK(back.jitter_s > 0.0000329 && back.jitter_s < 0.0000331);
	/* a 1.7-sized report (56 bytes): the lower words only */
	CHECK(bp_iperf2_udp_report_parse(out, 56, &back) == 0);
	CHECK_INT(back.datagrams, 5);
	CHECK(bp_iperf2_udp_report_parse(out, 55, &back) < 0);
	/* a negative stop or jitter is written as 0 */
	r.stop_s = -1;
	bp_iperf2_udp_report_write(out, &r);
	CHECK(bp_iperf2_udp_report_parse(out, sizeof(out), &back) == 0 && back.stop_s == 0);
	CHECK(!back.transit);	/* no extension unless asked */
}

/*
 * --trip-times: the transit extension iperf -s sends, at its offsets (2.1.8's server_hdr:
 * min, max, sum, mean, m2 in us^2, vd, count, IPG count and sum after the 40-byte base),
 * a negative transit in two's complement as iperf -s's (long) casts write it.
 */
static void transits(void)
{
	struct bp_iperf2_udp_report r = { .datagrams = 1251, .stop_s = 1.0, .transit = true,
					  .transit_min_s = 0.000021, .transit_max_s = 0.000215,
					  .transit_sum_s = 0.0575, .transit_mean_s = 0.000046,
					  .transit_m2 = 1.5e-7, .transit_count = 1250, .pps = 1251 },
				    back;
	uint8_t out[BP_IPERF2_UDP_REPORT_LEN], *h = out + 16;

	bp_iperf2_udp_report_write(out, &r);
	CHECK_INT(h[0], 0xc8);			/* VERSION1 | SERVER_HEADER_EXTEND | SEQNO64B */
	CHECK_INT(bp_get_be32(h + 44), 21);	/* min: 0 s, 21 us */
	CHECK_INT(bp_get_be32(h + 52), 215);	/* max */
	CHECK_INT(bp_get_be32(h + 64), 0);	/* mean: 0 s ... */
	CHECK_INT(bp_get_be32(h + 68), 46);	/* ... 46 us */
	CHECK_INT(bp_get_be32(h + 72), 150000);	/* m2: 1.5e-7 s^2 = 150,000 us^2 */
	CHECK_INT(bp_get_be32(h + 88), 1250);
	CHECK_INT(bp_get_be32(h + 92), 1251);	/* pps over an IPG sum of 1 */
	CHECK_INT(bp_get_be32(h + 96), 1);
	CHECK(bp_iperf2_udp_report_parse(out, sizeof(out), &back) == 0 && back.transit);
	CHECK(back.transit_min_s > 0.0000209 && back.transit_min_s < 0.0000211);
	CHECK(back.transit_sum_s > 0.05749 && back.transit_sum_s < 0.05751);
	CHECK(back.transit_m2 > 1.49e-7 && back.transit_m2 < 1.51e-7);
	CHECK_INT(back.transit_count, 1250);
	/* clocks apart: -1.5 s is -1 s and -500,000 us */
	r.transit_min_s = -1.5;
	bp_iperf2_udp_report_write(out, &r);
	CHECK_INT(bp_get_be32(h + 40), 0xffffffffu);
	CHECK_INT(bp_get_be32(h + 44), (uint32_t)-500000);
	CHECK(bp_iperf2_udp_report_parse(out, sizeof(out), &back) == 0);
	CHECK(back.transit_min_s > -1.5001 && back.transit_min_s < -1.4999);
}

int main(void)
{
	datagrams();
	headers();
	trip_times();
	reverse();
	reports();
	transits();
	return tap_done();
}
