/*
 * iperf 2's test header and acknowledgement against the bytes Debian's iperf 2.1.8 put on
 * the wire (strace of `iperf -c 127.0.0.1 -p 5096 ...` and of its `iperf -s`, 2026-12-06):
 * each decodes to what the client was asked, writes back byte for byte, and every field out
 * of its domain is refused with a line naming it.
 */
#include <string.h>

#include "proto/iperf2_header.h"
#include "tap.h"

/* The 60-byte header of `-t 0.3` to port 5096; tweak() changes one part of a copy. */
static const uint8_t plain[60] = {
	0x40, 0x01, 0x00, 0x78, 0, 0, 0, 1, 0, 0, 0x13, 0xe8, 0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xe2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 2, 0, 1, 0, 8, 0, 3,
};

static void set32(uint8_t *b, size_t at, uint32_t v)
{
	b[at] = (uint8_t)(v >> 24);
	b[at + 1] = (uint8_t)(v >> 16);
	b[at + 2] = (uint8_t)(v >> 8);
	b[at + 3] = (uint8_t)v;
}

/* --trip-times' 80 bytes: the plain header, its length 80, TRIPTIME, the start at 64 */
static void trip_header(uint8_t b[80], uint32_t sec, uint32_t usec)
{
	memset(b, 0, 80);
	memcpy(b, plain, 60);
	b[3] = 0xa0;
	b[33] = 0x10;
	set32(b, 64, sec);
	set32(b, 68, usec);
}

static int parse(const uint8_t *b, size_t n, struct bp_iperf2_header *h, char *err)
{
	return bp_iperf2_header_parse(b, n, h, err, 160);
}

/* Decoded, and written back byte for byte by the client's writer. */
static void round_trip(const uint8_t *b, size_t n, const char *what)
{
	struct bp_iperf2_header h;
	uint8_t out[BP_IPERF2_HEADER_MAX];
	char err[160] = "";
	size_t len;

	CHECK(parse(b, n, &h, err) == 0);
	len = bp_iperf2_header_write(&h, out, sizeof(out));
	CHECK_INT(len, n);
	CHECK(len == n && memcmp(out, b, n) == 0);
	if (len != n || memcmp(out, b, n) != 0)
		printf("# %s: not written back as read\n", what);
}

static void stock_headers(void)
{
	struct bp_iperf2_header h;
	uint8_t b[80];
	char err[160];

	CHECK(parse(plain, sizeof(plain), &h, err) == 0);
	CHECK_INT(h.len, 60);
	CHECK_INT(h.mode, BP_IPERF2_NORMAL);
	CHECK_INT(h.threads, 1);
	CHECK_INT(h.port, 5096);
	CHECK(h.timed);
	CHECK_INT(h.duration_ns, 300000000);
	CHECK(h.extended);
	CHECK_INT(h.version_u, 0x00020001);
	CHECK_INT(h.version_l, 0x00080003);
	CHECK(!h.trip_times && !h.has_start);
	round_trip(plain, sizeof(plain), "-t 0.3");

	/* -R: VERSION2 and the upper flags' REVERSE */
	memcpy(b, plain, 60);
	b[0] = 0x44;
	b[32] = 0x04;
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.mode, BP_IPERF2_REVERSE);
	round_trip(b, 60, "-R");
	/* --full-duplex */
	b[32] = 0x08;
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.mode, BP_IPERF2_FULL_DUPLEX);
	round_trip(b, 60, "--full-duplex");
	/* -r: VERSION1 without RUN_NOW, the tradeoff; -d with it */
	memcpy(b, plain, 60);
	b[0] = 0xc0;
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.mode, BP_IPERF2_TRADEOFF);
	b[3] |= 1;
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.mode, BP_IPERF2_DUAL);
	/* -n 64K: the amount in bytes */
	memcpy(b, plain, 60);
	set32(b, 20, 65536);
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK(!h.timed);
	CHECK_INT(h.bytes, 65536);
	round_trip(b, 60, "-n 64K");
	/* -P 4 -l 8K -w 256K */
	memcpy(b, plain, 60);
	set32(b, 4, 4);
	set32(b, 12, 8192);
	set32(b, 16, 262144);
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.threads, 4);
	CHECK_INT(h.buffer_len, 8192);
	CHECK_INT(h.window, 262144);
	round_trip(b, 60, "-P 4 -l 8K -w 256K");
	/* -R -b 5G (2.1.8's wire): the rate's low word at 48, its upper 32 bits in the top 24 of
	 * the word at 52 (0x100: 1 << 32), 5 x 2^30 bit/s */
	memcpy(b, plain, 60);
	b[0] = 0x44;
	b[32] = 0x04;
	set32(b, 48, 0x40000000);
	set32(b, 52, 0x100);
	CHECK(parse(b, 60, &h, err) == 0);
	CHECK_INT(h.rate, 5368709120ull);
	round_trip(b, 60, "-R -b 5G");

	/* --trip-times: 80 bytes, the client's start at 64 */
	trip_header(b, 0x6b150727, 0x000e4d54);
	CHECK(parse(b, 80, &h, err) == 0);
	CHECK_INT(h.len, 80);
	CHECK(h.trip_times && h.has_start);
	CHECK_INT(h.start_sec, 0x6b150727);
	CHECK_INT(h.start_usec, 937300);
	round_trip(b, 80, "--trip-times");
}

static void refused(const uint8_t *b, size_t n, const char *want)
{
	struct bp_iperf2_header h;
	char err[160] = "";

	CHECK(parse(b, n, &h, err) < 0);
	CHECK(strstr(err, want) != NULL);
	if (!strstr(err, want))
		printf("# got \"%s\", want \"%s\"\n", err, want);
}

static void out_of_domain(void)
{
	uint8_t b[80];

	memcpy(b, plain, 60);
	set32(b, 4, 0);
	refused(b, 60, "threads 0: expected 1 to 128");
	set32(b, 4, 129);
	refused(b, 60, "threads 129");
	set32(b, 4, 0x80000000u);
	refused(b, 60, "threads -2147483648");
	memcpy(b, plain, 60);
	set32(b, 8, 70000);
	refused(b, 60, "port 70000");
	memcpy(b, plain, 60);
	set32(b, 12, 0xffffffffu);
	refused(b, 60, "buffer length -1");
	memcpy(b, plain, 60);
	set32(b, 20, 0);
	refused(b, 60, "amount 0");
	set32(b, 20, (uint32_t)-(24 * 3600 * 100 + 1));
	refused(b, 60, "amount -8640001");
	memcpy(b, plain, 60);
	refused(b, 59, "cut short");
	refused(b, 3, "cut short");
	/* the start time announced but the header too short to hold it */
	b[33] = 0x10;
	refused(b, 60, "too short");
	/* no length bit (2.0's flags), bounce-back, UDP tests: not this header */
	memcpy(b, plain, 60);
	b[1] = 0;
	refused(b, 60, "flags 0x40000078");
	b[1] = 0x81;
	refused(b, 60, "not an iperf 2.1 TCP test header");
	memcpy(b, plain, 60);
	b[0] = 0x60;
	refused(b, 60, "not an iperf 2.1 TCP test header");
	/* a length under the base header's 24 bytes */
	memcpy(b, plain, 60);
	b[3] = 0x10;
	refused(b, 60, "flags 0x40010010");
	/* the start's microseconds past a second */
	trip_header(b, 0x6b150727, 1000000);
	refused(b, 80, "start microseconds 1000000");
}

/* serve tells the dialects apart by the first bytes: a cookie never passes. */
static void prefixes(void)
{
	static const char cookie[] = "abcdefghijklmnopqrstuvwxyz2345672345";

	CHECK(bp_iperf2_header_prefix(plain, 1));
	CHECK(bp_iperf2_header_prefix(plain, 4));
	CHECK(bp_iperf2_header_prefix(plain, 60));
	for (size_t i = 0; i < sizeof(cookie) - 1; i++)
		CHECK(!bp_iperf2_header_prefix((const uint8_t *)cookie + i, 1));
	CHECK(!bp_iperf2_header_prefix((const uint8_t *)"0123456789", 4));	/* 2.0's data */
	CHECK(!bp_iperf2_header_prefix((const uint8_t *)"GET / HTTP/1.1", 4));
	CHECK(!bp_iperf2_header_prefix(plain, 0));
}

static void acks(void)
{
	/* what `iperf -s` 2.1.8 answered a plain client, and one with --trip-times */
	static const uint8_t stock[28] = { 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 0,
					   0, 2, 0, 1, 0, 8, 0, 3 };
	static const uint32_t ts[6] = { 0x6b150727, 0x000e4d54, 0x6b150727, 0x000e4ede,
					0x6b150727, 0x000e56b9 };
	uint8_t out[BP_IPERF2_ACK_TIMES_LEN];
	uint32_t vu = 0, vl = 0;

	CHECK_INT(bp_iperf2_ack_write(out, false, NULL), 28);
	CHECK(memcmp(out, stock, 28) == 0);
	CHECK(bp_iperf2_ack_parse(out, 28, &vu, &vl) == 0);
	CHECK_INT(vu, 0x00020001);
	CHECK_INT(vl, 0x00080003);
	CHECK_INT(bp_iperf2_ack_write(out, true, ts), 52);
	CHECK_INT(out[7], 52);
	CHECK_INT(out[28], 0x6b);
	CHECK_INT(out[51], 0xb9);
	CHECK(bp_iperf2_ack_parse(out, 52, &vu, &vl) == 0);
	CHECK(bp_iperf2_ack_parse(out, 51, &vu, &vl) < 0);	/* says 52, 51 came */
	out[3] = 3;
	CHECK(bp_iperf2_ack_parse(out, 52, &vu, &vl) < 0);	/* not the ack's type */
	CHECK(bp_iperf2_ack_parse(stock, 27, &vu, &vl) < 0);
}

int main(void)
{
	stock_headers();
	out_of_domain();
	prefixes();
	acks();
	return tap_done();
}
