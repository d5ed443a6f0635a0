/* Frame arithmetic: RFC 2544 frame sizes on IEEE 802.3 (8 B preamble, 12 B gap). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/frame.h"
#include "tap.h"

/* The datagram header the udp test needs: iperf3's sec, usec and 32-bit sequence number. */
#define HDR 12

static char err[256];

struct payload_case {
	unsigned frame;
	unsigned ip;
	size_t want;
};

static void test_payloads(void)
{
	static const struct payload_case cases[] = {
		{ 64, 4, 18 }, { 128, 4, 82 }, { 256, 4, 210 }, { 512, 4, 466 },
		{ 1024, 4, 978 }, { 1280, 4, 1234 }, { 1518, 4, 1472 },
		{ 128, 6, 62 }, { 1518, 6, 1452 }, { 78, 6, 12 },
	};
	size_t i, got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = 0;
		CHECK_INT(bp_frame_payload(cases[i].frame, cases[i].ip, HDR, 0, &got, err,
					   sizeof(err)), 0);
		CHECK_INT(got, cases[i].want);
		/* And back: the payload rebuilds the frame. */
		CHECK_INT(bp_frame_from_payload(got, cases[i].ip), cases[i].frame);
	}
	CHECK_INT(bp_frame_overhead(4), 46);
	CHECK_INT(bp_frame_overhead(6), 66);
	/* Short datagrams are padded to Ethernet's minimum. */
	CHECK_INT(bp_frame_from_payload(1, 4), 64);
	CHECK_INT(bp_frame_from_payload(0, 6), 66);
}

static void test_refusals(void)
{
	size_t got = 99;

	CHECK_INT(bp_frame_payload(63, 4, HDR, 0, &got, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "below Ethernet's minimum of 64") != NULL);
	CHECK_INT(bp_frame_payload(1519, 4, HDR, 0, &got, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "jumbo frames not enabled") != NULL);
	/* IPv6 has no 64-byte UDP frame at all: the message shows why and what would do. */
	CHECK_INT(bp_frame_payload(64, 6, HDR, 0, &got, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "frame 64 B leaves -2 B of IPv6/UDP payload, the test needs 12 B: "
		       "smallest usable frame 78 B");
	CHECK_INT(bp_frame_payload(77, 6, HDR, 0, &got, err, sizeof(err)), -EINVAL);
	/* A test that needs a larger header than 18 bytes cannot use 64-byte IPv4 frames. */
	CHECK_INT(bp_frame_payload(64, 4, 24, 0, &got, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "smallest usable frame 70 B") != NULL);
	CHECK_INT(bp_frame_payload(128, 5, HDR, 0, &got, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "neither 4 nor 6") != NULL);
	CHECK_INT(got, 99);
	/* Jumbo frames only when asked for, and not beyond what switches take. */
	CHECK_INT(bp_frame_payload(9018, 4, HDR, BP_FRAME_ALLOW_JUMBO, &got, err, sizeof(err)), 0);
	CHECK_INT(got, 8972);
	CHECK_INT(bp_frame_payload(9217, 4, HDR, BP_FRAME_ALLOW_JUMBO, &got, err, sizeof(err)),
		  -EINVAL);
	CHECK(strstr(err, "maximum of 9216") != NULL);
}

static void test_rates(void)
{
	unsigned i;

	CHECK_INT(bp_frame_wire_bytes(64), 84);
	CHECK_INT(bp_frame_wire_bytes(1518), 1538);
	/* (frame + 20 B) x 8 bits at 1 Gbit/s: 1,488,095 frames/s at 64 bytes, 81,274 at 1518. */
	CHECK_INT((long long)bp_frame_max_fps(1e9, 64), 1488095);
	CHECK_INT((long long)bp_frame_max_fps(1e9, 1518), 81274);
	CHECK_NEAR(bp_frame_max_fps(1e9, 64), 1e9 / 672.0, 1e-6);
	CHECK_INT((long long)bp_frame_max_fps(100e6, 64), 148809);
	/* At the maximum frame rate the line is exactly full, whatever the size. */
	for (i = 0; i < 7; i++) {
		unsigned f = bp_frame_rfc2544_sizes[i];

		CHECK_NEAR(bp_frame_line_bps(bp_frame_max_fps(1e9, f), f), 1e9, 1e-3);
	}
	CHECK_NEAR(bp_frame_bps(1488095.0, 64), 1488095.0 * 512, 1e-3);
}

static void test_tbf(void)
{
	/* tbf counts the frame without FCS: 60 bytes for a 64-byte frame. */
	CHECK_INT(bp_frame_tbf_bytes(64), 60);
	CHECK_INT(bp_frame_tbf_bytes(1518), 1514);
	/* 100 Mbit/s of tbf admits 100e6 / 480 = 208,333 frames of 64 bytes per second ... */
	CHECK_NEAR(bp_frame_tbf_fps(100e6, 64), 100e6 / 480.0, 1e-6);
	CHECK_INT((long long)bp_frame_tbf_fps(100e6, 64), 208333);
	/* ... more than a real 100 Mbit/s Ethernet (148,809), which also carries 24 more bytes. */
	CHECK(bp_frame_tbf_fps(100e6, 64) > bp_frame_max_fps(100e6, 64));
	CHECK_INT((long long)bp_frame_tbf_fps(100e6, 1518), 8256);
	CHECK_INT(bp_frame_tbf_bytes(2), 0);
	CHECK_NEAR(bp_frame_tbf_fps(100e6, 4), 0.0, 0.0);
}

int main(void)
{
	test_payloads();
	test_refusals();
	test_rates();
	test_tbf();
	return tap_done();
}
