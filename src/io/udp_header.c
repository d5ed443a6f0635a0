#include "io/udp_header.h"

#include <errno.h>
#include <string.h>

#include "core/be32.h"
#include "core/clock.h"

/* Byte by byte, so the codec neither cares about the host's byte order nor about alignment. */
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

size_t bp_udp_header_len(bool seq64)
{
	return seq64 ? BP_UDP_HDR_LEN_SEQ64 : BP_UDP_HDR_LEN_SEQ32;
}

int bp_udp_header_encode(void *buf, size_t len, const struct bp_udp_header *h, bool seq64)
{
	uint8_t *p = buf;
	size_t need = bp_udp_header_len(seq64);

	if (len < need)
		return -EMSGSIZE;
	bp_put_be32(p, h->sec);
	bp_put_be32(p + 4, h->usec);
	if (seq64) {
		bp_put_be32(p + 8, (uint32_t)(h->seq >> 32));
		bp_put_be32(p + 12, (uint32_t)h->seq);
	} else {
		bp_put_be32(p + 8, (uint32_t)h->seq);
	}
	return (int)need;
}

int bp_udp_header_decode(const void *buf, size_t len, bool seq64, struct bp_udp_header *h)
{
	const uint8_t *p = buf;
	size_t need = bp_udp_header_len(seq64);

	if (len < need)
		return -EMSGSIZE;
	h->sec = bp_get_be32(p);
	h->usec = bp_get_be32(p + 4);
	if (seq64)
		h->seq = (uint64_t)bp_get_be32(p + 8) << 32 | bp_get_be32(p + 12);
	else
		h->seq = bp_get_be32(p + 8);
	/* In their own domain before anyone computes with them (see the header). */
	if (h->usec >= BP_US_PER_SEC || h->seq > BP_UDP_SEQ64_MAX)
		return -EBADMSG;
	return (int)need;
}

void bp_udp_header_set_time(struct bp_udp_header *h, uint64_t ns)
{
	h->sec = (uint32_t)(ns / BP_NS_PER_SEC);
	h->usec = (uint32_t)(ns % BP_NS_PER_SEC / BP_NS_PER_US);
}

uint64_t bp_udp_header_time_ns(const struct bp_udp_header *h)
{
	return (uint64_t)h->sec * BP_NS_PER_SEC + (uint64_t)h->usec * BP_NS_PER_US;
}

bool bp_udp_is_connect_msg(const void *buf, size_t len)
{
	if (len != BP_UDP_CONNECT_LEN)
		return false;
	if (memcmp(buf, BP_UDP_CONNECT_MSG, BP_UDP_CONNECT_LEN) == 0)
		return true;
	/* Old clients wrote the integer in their own byte order, whichever that was. */
	return bp_get_be32(buf) == BP_UDP_LEGACY_CONNECT_MSG ||
	       get_le32(buf) == BP_UDP_LEGACY_CONNECT_MSG;
}

bool bp_udp_is_connect_reply(const void *buf, size_t len)
{
	/* iperf3 reads the reply into 4 bytes, so a longer datagram counts by its first 4. */
	if (len < BP_UDP_CONNECT_LEN)
		return false;
	if (memcmp(buf, BP_UDP_CONNECT_REPLY, BP_UDP_CONNECT_LEN) == 0)
		return true;
	return get_le32(buf) == BP_UDP_LEGACY_CONNECT_REPLY;
}
