/*
 * iperf 2's bounceback request against the wire of Debian's iperf 2.1.8 (`iperf -c
 * 127.0.0.1 -p 5314 --bounceback -t 1`, its first 64 bytes read by a plain TCP socket,
 * 2026-12-06): the prefix the server's door tells it by, the head's fields, the server's
 * times written where the client reads them, STOP, and heads that are refused.
 */
#include <string.h>

#include "core/be32.h"
#include "proto/iperf2_bounceback.h"
#include "tap.h"

static const uint32_t stock[16] = {
	0x00800000, 0x00000064, 0x00000001, 0x80005a5a, 0x00000000, 0x6b1569e6, 0x000c4818,
	0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x00000000, 0x5a5a5a5a, 0x5a5a5a5a,
	0x5a5a5a5a, 0x30313233,
};

int main(void)
{
	uint8_t b[BP_IPERF2_BB_HEAD_LEN];
	struct bp_iperf2_bb bb;
	char err[160];

	for (int i = 0; i < 16; i++)
		bp_put_be32(b + 4 * i, stock[i]);
	/* the door's prefix: as far as the flags word came; a cookie never starts with 0 */
	CHECK(bp_iperf2_bb_prefix(b, 1) && bp_iperf2_bb_prefix(b, 2) && bp_iperf2_bb_prefix(b, 64));
	CHECK(!bp_iperf2_bb_prefix((const uint8_t *)"abcd", 4));
	CHECK(!bp_iperf2_bb_prefix(b, 0));
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) == 0);
	CHECK_INT(bb.size, 100);
	CHECK_INT(bb.id, 1);
	CHECK_INT(bb.flags, 0x8000);	/* QUICKACK, the default */
	CHECK_INT(bb.client_sec, 0x6b1569e6);
	CHECK_INT(bb.client_usec, 0xc4818);
	CHECK_INT(bb.hold_us, 0);
	CHECK(!bp_iperf2_bb_is_stop(b));
	/* the server's times where the client reads them (rx at 28, tx at 36) */
	bp_iperf2_bb_stamp(b, BP_IPERF2_BB_RX_AT, 1800000000u, 5);
	bp_iperf2_bb_stamp(b, BP_IPERF2_BB_TX_AT, 1800000001u, 6);
	CHECK_INT(bp_get_be32(b + 28), 1800000000u);
	CHECK_INT(bp_get_be32(b + 32), 5);
	CHECK_INT(bp_get_be32(b + 36), 1800000001u);
	CHECK_INT(bp_get_be32(b + 40), 6);
	CHECK_INT(bp_get_be32(b + 24), 0xc4818);	/* the client's own time untouched */
	/* what the client reads back: the two times, none while unset, none out of domain */
	{
		uint64_t rx = 0, tx = 0;

		CHECK(bp_iperf2_bb_server_times(b, &rx, &tx));
		CHECK(rx == 1800000000ull * 1000000000u + 5000 &&
		      tx == 1800000001ull * 1000000000u + 6000);
		bp_put_be32(b + 40, 1000000);
		CHECK(!bp_iperf2_bb_server_times(b, &rx, &tx));
		bp_put_be32(b + 40, 6);
	}
	b[12] |= 0x10;	/* STOP */
	CHECK(bp_iperf2_bb_is_stop(b));
	/* refused: cut short, a size under the head or over 1 MiB, microseconds out of range,
	 * other flags beside BOUNCEBACK */
	CHECK(bp_iperf2_bb_parse(b, 63, &bb, err, sizeof(err)) < 0);
	bp_put_be32(b + 4, 63);
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) < 0);
	bp_put_be32(b + 4, (1u << 20) + 1);
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) < 0);
	bp_put_be32(b + 4, 1u << 20);
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) == 0);
	bp_put_be32(b + 24, 1000000);
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) < 0);
	bp_put_be32(b + 24, 0);
	bp_put_be32(b, 0x00800001);
	CHECK(bp_iperf2_bb_parse(b, sizeof(b), &bb, err, sizeof(err)) < 0 && err[0]);
	/*
	 * rr --iperf2's request: the stock head's words but the options' (its QUICKACK, a TOS
	 * left as payload), the send time at 20 as the client's microseconds, the server's
	 * times unset, which the client then reads as none
	 */
	{
		uint8_t r[BP_IPERF2_BB_HEAD_LEN];
		uint64_t rx, tx, wall = 0x6b1569e6ull * 1000000000u + 0xc4818u * 1000u + 999u;
		static const int same[] = { 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11 };

		memset(r, 0x5a, sizeof(r));
		bp_iperf2_bb_request(r, 100, 1, false, wall);
		for (int i = 0; i < 16; i++)
			bp_put_be32(b + 4 * i, stock[i]);
		for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
			CHECK_INT(bp_get_be32(r + 4 * same[i]), stock[same[i]]);
		CHECK_INT(bp_get_be32(r + 12), 0);
		CHECK_INT(bp_iperf2_bb_id(r), 1);
		CHECK(!bp_iperf2_bb_server_times(r, &rx, &tx));
		CHECK(bp_iperf2_bb_parse(r, sizeof(r), &bb, err, sizeof(err)) == 0 &&
		      bb.size == 100 && !bb.flags);
		bp_iperf2_bb_request(r, 64, 7, true, wall);
		CHECK(bp_iperf2_bb_parse(r, sizeof(r), &bb, err, sizeof(err)) == 0 &&
		      bb.size == 64 && bb.id == 7 && bb.flags == BP_IPERF2_BB_CLOCKSYNCED);
	}
	return tap_done();
}
