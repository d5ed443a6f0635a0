/* The iperf3 UDP datagram header and connect exchange: layout, byte order, both counter widths. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "io/udp_header.h"
#include "tap.h"

struct round_trip_case {
	uint32_t sec, usec;
	uint64_t seq;
	bool seq64;
};

static const struct round_trip_case round_trips[] = {
	{ 0, 0, 0, false },
	{ 1, 999999, 1, false },
	{ 0xffffffffu, 999999, 0xffffffffu, false },
	{ 12345, 678, 1, true },
	{ 0xffffffffu, 999999, BP_UDP_SEQ64_MAX, true }, /* the largest a decoder accepts */
	{ 7, 8, 0x100000000ull, true }, /* first value a 32-bit counter cannot carry */
};

static void test_round_trips(void)
{
	for (size_t i = 0; i < sizeof(round_trips) / sizeof(round_trips[0]); i++) {
		const struct round_trip_case *c = &round_trips[i];
		struct bp_udp_header in = { c->sec, c->usec, c->seq }, out;
		uint8_t buf[64];

		memset(buf, 0xaa, sizeof(buf));
		CHECK_INT(bp_udp_header_encode(buf, sizeof(buf), &in, c->seq64),
			  c->seq64 ? 16 : 12);
		/* Nothing past the header is touched: the filler is the caller's. */
		CHECK_INT(buf[bp_udp_header_len(c->seq64)], 0xaa);
		CHECK_INT(bp_udp_header_decode(buf, sizeof(buf), c->seq64, &out),
			  c->seq64 ? 16 : 12);
		CHECK_INT(out.sec, c->sec);
		CHECK_INT(out.usec, c->usec);
		CHECK(out.seq == c->seq);
	}
}

/* The bytes on the wire, written out by hand from iperf_udp_send's htonl/htobe64. */
static void test_byte_order(void)
{
	static const uint8_t want32[12] = { 0x01, 0x02, 0x03, 0x04, 0x00, 0x0a, 0x0b, 0x0c,
					    0xde, 0xad, 0xbe, 0xef };
	static const uint8_t want64[16] = { 0x01, 0x02, 0x03, 0x04, 0x00, 0x0a, 0x0b, 0x0c,
					    0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef };
	struct bp_udp_header h = { 0x01020304, 0x000a0b0c, 0x1deadbeefull };
	uint8_t buf[16];

	CHECK_INT(bp_udp_header_encode(buf, sizeof(buf), &h, false), 12);
	CHECK(memcmp(buf, want32, sizeof(want32)) == 0);
	CHECK_INT(bp_udp_header_encode(buf, sizeof(buf), &h, true), 16);
	CHECK(memcmp(buf, want64, sizeof(want64)) == 0);
	/* A 32-bit counter keeps the low half, as iperf3's htonl of its 64-bit count does. */
	CHECK_INT(bp_udp_header_decode(want32, sizeof(want32), false, &h), 12);
	CHECK(h.seq == 0xdeadbeefull);
	/* Unaligned buffers are fine. */
	uint8_t odd[17];
	memcpy(odd + 1, want64, 16);
	CHECK_INT(bp_udp_header_decode(odd + 1, 16, true, &h), 16);
	CHECK(h.seq == 0x1deadbeefull);
}

static void test_sizes(void)
{
	struct bp_udp_header h = { 1, 2, 3 };
	uint8_t buf[16];

	CHECK_INT(bp_udp_header_len(false), 12);
	CHECK_INT(bp_udp_header_len(true), 16);
	CHECK_INT(bp_udp_header_encode(buf, 11, &h, false), -EMSGSIZE);
	CHECK_INT(bp_udp_header_encode(buf, 12, &h, false), 12);
	CHECK_INT(bp_udp_header_encode(buf, 15, &h, true), -EMSGSIZE);
	CHECK_INT(bp_udp_header_decode(buf, 11, false, &h), -EMSGSIZE);
	CHECK_INT(bp_udp_header_decode(buf, 15, true, &h), -EMSGSIZE);
	CHECK_INT(BP_UDP_IPERF_MIN_LEN, 16);
	CHECK_INT(BP_UDP_IPERF_MAX_LEN, 65535 - 8 - 20);
}

static void test_time(void)
{
	struct bp_udp_header h = { 0, 0, 0 };

	bp_udp_header_set_time(&h, 5123456789ull);
	CHECK_INT(h.sec, 5);
	CHECK_INT(h.usec, 123456);
	/* Microseconds are what travels: the nanoseconds below them are gone. */
	CHECK(bp_udp_header_time_ns(&h) == 5123456000ull);
}

static void test_connect(void)
{
	static const uint8_t msg[4] = { 0x39, 0x38, 0x37, 0x36 };
	static const uint8_t reply[4] = { 0x36, 0x37, 0x38, 0x39 };
	static const uint8_t legacy_reply_le[4] = { 0xb1, 0x68, 0xde, 0x3a };
	static const uint8_t legacy_reply_be[4] = { 0x3a, 0xde, 0x68, 0xb1 };
	static const uint8_t legacy_msg_le[4] = { 0x15, 0xcd, 0x5b, 0x07 };
	static const uint8_t legacy_msg_be[4] = { 0x07, 0x5b, 0xcd, 0x15 };
	uint8_t longer[8] = { 0x36, 0x37, 0x38, 0x39, 1, 2, 3, 4 };

	CHECK(memcmp(BP_UDP_CONNECT_MSG, msg, 4) == 0);
	CHECK(memcmp(BP_UDP_CONNECT_REPLY, reply, 4) == 0);
	CHECK(bp_udp_is_connect_msg(msg, 4));
	CHECK(bp_udp_is_connect_msg(legacy_msg_le, 4));
	CHECK(bp_udp_is_connect_msg(legacy_msg_be, 4));
	CHECK(!bp_udp_is_connect_msg(reply, 4));
	CHECK(!bp_udp_is_connect_msg(msg, 3));
	CHECK(bp_udp_is_connect_reply(reply, 4));
	CHECK(bp_udp_is_connect_reply(legacy_reply_le, 4));
	CHECK(!bp_udp_is_connect_reply(legacy_reply_be, 4));
	CHECK(!bp_udp_is_connect_reply(msg, 4));
	CHECK(!bp_udp_is_connect_reply(reply, 3));
	CHECK(bp_udp_is_connect_reply(longer, sizeof(longer)));
}

int main(void)
{
	test_round_trips();
	test_byte_order();
	test_sizes();
	test_time();
	test_connect();
	return tap_done();
}
