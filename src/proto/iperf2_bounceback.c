#include "proto/iperf2_bounceback.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/be32.h"
#include "proto/iperf2_header.h"

bool bp_iperf2_bb_prefix(const uint8_t *b, size_t n)
{
	uint8_t want[4];

	bp_put_be32(want, BP_IPERF2_HEADER_BOUNCEBACK);
	return n >= 1 && !memcmp(b, want, n < 4 ? n : 4);
}

int bp_iperf2_bb_parse(const uint8_t *b, size_t n, struct bp_iperf2_bb *bb, char *err,
		       size_t errlen)
{
	memset(bb, 0, sizeof(*bb));
	if (n < BP_IPERF2_BB_HEAD_LEN) {
		snprintf(err, errlen, "a bounceback request cut short (%zu bytes)", n);
		return -EINVAL;
	}
	if (bp_get_be32(b) != BP_IPERF2_HEADER_BOUNCEBACK) {
		snprintf(err, errlen, "flags 0x%08" PRIx32 ": not iperf 2's bounceback",
			 bp_get_be32(b));
		return -EINVAL;
	}
	bb->size = bp_get_be32(b + 4);
	bb->id = bp_get_be32(b + 8);
	bb->flags = (uint16_t)(b[12] << 8 | b[13]);
	bb->tos = (uint16_t)(b[14] << 8 | b[15]);
	bb->client_sec = bp_get_be32(b + 20);
	bb->client_usec = bp_get_be32(b + 24);
	bb->hold_us = bp_get_be32(b + 44);
	if (bb->size < BP_IPERF2_BB_HEAD_LEN || bb->size > BP_IPERF2_BB_MAX_SIZE) {
		snprintf(err, errlen, "bounceback size %" PRIu32 ": expected %d to %u bytes",
			 bb->size, BP_IPERF2_BB_HEAD_LEN, BP_IPERF2_BB_MAX_SIZE);
		return -EINVAL;
	}
	if (bb->client_usec >= 1000000) {
		snprintf(err, errlen, "bounceback send time's microseconds %" PRIu32 ": expected "
			 "under 1000000", bb->client_usec);
		return -EINVAL;
	}
	return 0;
}

bool bp_iperf2_bb_is_stop(const uint8_t *msg)
{
	return msg[12] << 8 & BP_IPERF2_BB_STOP;
}

void bp_iperf2_bb_stamp(uint8_t *msg, size_t at, uint32_t sec, uint32_t usec)
{
	bp_put_be32(msg + at, sec);
	bp_put_be32(msg + at + 4, usec);
}

void bp_iperf2_bb_request(uint8_t *msg, uint32_t size, uint32_t id, bool trip_times,
			  uint64_t wall_ns)
{
	memset(msg, 0, BP_IPERF2_BB_HEAD_LEN);
	bp_put_be32(msg, BP_IPERF2_HEADER_BOUNCEBACK);
	bp_put_be32(msg + 4, size);
	bp_put_be32(msg + 8, id);
	msg[12] = trip_times ? BP_IPERF2_BB_CLOCKSYNCED >> 8 : 0;
	bp_iperf2_bb_stamp(msg, 20, (uint32_t)(wall_ns / 1000000000u),
			   (uint32_t)(wall_ns % 1000000000u / 1000u));
	memset(msg + BP_IPERF2_BB_RX_AT, 0xff, 16);  /* the server's times: none yet */
}

uint32_t bp_iperf2_bb_id(const uint8_t *msg)
{
	return bp_get_be32(msg + 8);
}

/* A time of the server's at msg + at: false when unset or its microseconds are not. */
static bool server_time(const uint8_t *msg, size_t at, uint64_t *ns)
{
	uint32_t sec = bp_get_be32(msg + at), usec = bp_get_be32(msg + at + 4);

	if ((sec == UINT32_MAX && usec == UINT32_MAX) || usec >= 1000000u)
		return false;
	*ns = (uint64_t)sec * 1000000000u + (uint64_t)usec * 1000u;
	return true;
}

bool bp_iperf2_bb_server_times(const uint8_t *msg, uint64_t *rx_ns, uint64_t *tx_ns)
{
	return server_time(msg, BP_IPERF2_BB_RX_AT, rx_ns) &&
	       server_time(msg, BP_IPERF2_BB_TX_AT, tx_ns);
}
