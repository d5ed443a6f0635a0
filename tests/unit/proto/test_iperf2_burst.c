/*
 * iperf 2's TCP --trip-times stream against the wire of Debian's 2.1.8 (`iperf -c 127.0.0.1
 * -p 5399 -e --trip-times -t 0.5 -l 200`, its first 400 bytes read by a plain TCP socket,
 * 2026-12-06): the 80-byte test header, then writes of 200 bytes, each a burst whose head
 * has its write time at 20 and its size at 48. The reader takes each burst's one-way delay
 * at its last byte, the same however the stream is cut between reads, and stops at a head
 * out of its domain.
 */
#include <string.h>

#include "core/be32.h"
#include "proto/iperf2_burst.h"
#include "tap.h"

/* the first burst's head as 2.1.8 wrote it (the rest of its 200 bytes: zeros here) */
static const uint32_t head[23] = {
	0x400100a0, 0x00000001, 0x00001517, 0x6b159753, 0x0008734c, 0x6b159753, 0x0008734f,
	0x00000000, 0x00100000, 0x00020001, 0x00080003, 0x00000001, 0x000000c8, 0x000000ca,
	0x00000000, 0x00000000, 0x6b159753, 0x0008731c, 0, 0, 0, 0, 0,
};

#define WRITE_NS (0x6b159753ull * 1000000000u + 0x8734fu * 1000u)

/* The stream: 80 header bytes, then n bursts of 200 (each the head above), in s. */
static size_t stream(uint8_t *s, int n)
{
	memset(s, 0, 80 + 200 * (size_t)n);
	for (int k = 0; k < n; k++)
		for (int i = 0; i < 23; i++)
			bp_put_be32(s + 80 + 200 * k + 4 * i, head[i]);
	return 80 + 200 * (size_t)n;
}

int main(void)
{
	static uint8_t s[80 + 200 * 3];
	struct bp_iperf2_burst_reader r;
	size_t len = stream(s, 3);
	bool same = true;

	/* whole: three bursts, each read 50 us after its write time */
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, len, WRITE_NS + 50000);
	CHECK_INT(r.transit.n, 3);
	CHECK_NEAR(r.transit.mean, 50000, 0.5);
	CHECK(!r.broken[0]);
	/* a burst counts when its last byte came: 199 bytes of the second are not enough */
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, 80 + 200 + 199, WRITE_NS + 1000);
	CHECK_INT(r.transit.n, 1);
	bp_iperf2_burst_feed(&r, s + 80 + 200 + 199, 1, WRITE_NS + 9000);
	CHECK_INT(r.transit.n, 2);
	CHECK_NEAR(r.transit.max, 9000, 0.5);
	/* cut anywhere into two reads: the same */
	for (size_t at = 0; at <= len; at++) {
		bp_iperf2_burst_init(&r, 80);
		bp_iperf2_burst_feed(&r, s, at, WRITE_NS + 7000);
		bp_iperf2_burst_feed(&r, s + at, len - at, WRITE_NS + 7000);
		same = same && r.transit.n == 3 && !r.broken[0];
	}
	CHECK(same);
	/* a read earlier than the write time: negative (the clocks apart) */
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, 280, WRITE_NS - 2000);
	CHECK_NEAR(r.transit.min, -2000, 0.5);
	/* out of their domain: a size under the head, over the bound, microseconds of 1e6 */
	bp_put_be32(s + 80 + 48, 91);
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, len, WRITE_NS);
	CHECK(r.broken[0] && r.transit.n == 0);
	bp_put_be32(s + 80 + 48, BP_IPERF2_BURST_MAX + 1);
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, len, WRITE_NS);
	CHECK(r.broken[0] && r.transit.n == 0);
	bp_put_be32(s + 80 + 48, 200);
	bp_put_be32(s + 80 + 200 + 24, 1000000);
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, len, WRITE_NS);
	CHECK(r.broken[0] && r.transit.n == 1);
	/* a burst of exactly the head: done with its head */
	stream(s, 3);
	bp_put_be32(s + 80 + 48, 92);
	bp_iperf2_burst_init(&r, 80);
	bp_iperf2_burst_feed(&r, s, 80 + 92, WRITE_NS);
	CHECK_INT(r.transit.n, 1);
	return tap_done();
}
