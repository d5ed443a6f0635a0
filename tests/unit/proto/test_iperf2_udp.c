/*
 * iperf 2's UDP datagrams and server report against the wire of Debian's iperf 2.1.8
 * (`iperf -c 127.0.0.1 -p 15320 -u -t 0.3 -b 1M`, read by a plain UDP socket, 2026-12-06):
 * the first datagram's sequence number, send time and test header; the FIN's negated number
 * in 64 bits; a report written and read back, with counts past 32 bits.
 */
#include <string.h>

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
}

int main(void)
{
	datagrams();
	headers();
	reports();
	return tap_done();
}
