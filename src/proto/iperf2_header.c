#include "proto/iperf2_header.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/be32.h"

/* The base header (flags .. amount) and its extension (type .. write prefetch). */
#define BASE_LEN 24
/* A day: the longest test a header may ask for (serve cuts at --max-duration anyway). */
#define MAX_DURATION_10MS (24 * 3600 * 100)

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

bool bp_iperf2_header_prefix(const uint8_t *b, size_t n)
{
	/* a cookie's first byte is a-z or 2-7; a header's has EXTEND or VERSION1 set */
	if (n < 1 || !(b[0] & 0xc0) || (b[0] >= 'a' && b[0] <= 'z'))
		return false;
	return n < 4 || bp_iperf2_header_len(b) > 0;
}

int bp_iperf2_header_len(const uint8_t b[4])
{
	uint32_t flags = bp_get_be32(b), len = (flags & BP_IPERF2_HEADER_LEN_MASK) >> 1;

	if (!(flags & (BP_IPERF2_HEADER_EXTEND | BP_IPERF2_HEADER_VERSION1)) ||
	    !(flags & BP_IPERF2_HEADER_LEN_BIT) ||
	    (flags & (BP_IPERF2_HEADER_BOUNCEBACK | BP_IPERF2_HEADER_UDPTESTS)) || len < BASE_LEN)
		return -EINVAL;
	return (int)len;
}

static int bad(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -EINVAL;
}

static enum bp_iperf2_mode mode_of(uint32_t flags, uint16_t upper)
{
	if (flags & BP_IPERF2_HEADER_VERSION2) {
		if (upper & BP_IPERF2_UPPER_FULLDUPLEX)
			return BP_IPERF2_FULL_DUPLEX;
		if (upper & BP_IPERF2_UPPER_REVERSE)
			return BP_IPERF2_REVERSE;
	} else if (flags & BP_IPERF2_HEADER_VERSION1) {
		return flags & BP_IPERF2_RUN_NOW ? BP_IPERF2_DUAL : BP_IPERF2_TRADEOFF;
	}
	return BP_IPERF2_NORMAL;
}

int bp_iperf2_header_parse(const uint8_t *b, size_t n, struct bp_iperf2_header *h, char *err,
			   size_t errlen)
{
	int len = n >= 4 ? bp_iperf2_header_len(b) : -EINVAL;
	int32_t threads, amount, port, buffer_len, window;

	memset(h, 0, sizeof(*h));
	if (n < 4)
		return bad(err, errlen, "the header is cut short");
	if (len < 0) {
		snprintf(err, errlen, "flags 0x%08" PRIx32 ": not an iperf 2.1 TCP test header",
			 bp_get_be32(b));
		return -EINVAL;
	}
	if (n < (size_t)len)
		return bad(err, errlen, "the header is cut short");
	h->flags = bp_get_be32(b);
	h->len = (uint32_t)len;
	threads = (int32_t)bp_get_be32(b + 4);
	port = (int32_t)bp_get_be32(b + 8);
	buffer_len = (int32_t)bp_get_be32(b + 12);
	window = (int32_t)bp_get_be32(b + 16);
	amount = (int32_t)bp_get_be32(b + 20);
	if (threads < 1 || threads > BP_IPERF2_MAX_THREADS) {
		snprintf(err, errlen, "threads %" PRId32 ": expected 1 to %d", threads,
			 BP_IPERF2_MAX_THREADS);
		return -EINVAL;
	}
	if (port < 0 || port > 65535) {
		snprintf(err, errlen, "port %" PRId32 ": expected 0 to 65535", port);
		return -EINVAL;
	}
	if (buffer_len < 0 || window < 0) {
		snprintf(err, errlen, "buffer length %" PRId32 ", window %" PRId32
			 ": expected 0 or more", buffer_len, window);
		return -EINVAL;
	}
	if (amount == 0 || amount < -MAX_DURATION_10MS) {
		snprintf(err, errlen, "amount %" PRId32 ": expected bytes above 0 or a duration of"
			 " 10 ms to a day", amount);
		return -EINVAL;
	}
	h->threads = (uint32_t)threads;
	h->port = (uint16_t)port;
	h->buffer_len = (uint32_t)buffer_len;
	h->window = (uint32_t)window;
	h->timed = amount < 0;
	if (h->timed)
		h->duration_ns = (uint64_t)-(int64_t)amount * 10000000u;
	else
		h->bytes = (uint64_t)amount;
	if (h->flags & BP_IPERF2_HEADER_EXTEND) {
		if (len < BP_IPERF2_HEADER_LEN)
			return bad(err, errlen, "an extended header shorter than 60 bytes");
		h->extended = true;
		h->upper = get16(b + 32);
		h->lower = get16(b + 34);
		h->version_u = bp_get_be32(b + 36);
		h->version_l = bp_get_be32(b + 40);
		h->tos = get16(b + 46);
		/* the upper word's high 24 bits are the rate's upper 32, as 2.1 writes them */
		h->rate = (uint64_t)(bp_get_be32(b + 52) >> 8) << 32 | bp_get_be32(b + 48);
	}
	h->mode = mode_of(h->flags, h->upper);
	h->trip_times = h->upper & BP_IPERF2_UPPER_TRIPTIME;
	if (h->upper & (BP_IPERF2_UPPER_TRIPTIME | BP_IPERF2_UPPER_EPOCH_START)) {
		if (len < BP_IPERF2_HEADER_START_LEN)
			return bad(err, errlen, "a start time announced in a header too short for it");
		h->has_start = true;
		h->start_sec = bp_get_be32(b + 64);
		h->start_usec = bp_get_be32(b + 68);
		if (h->start_usec >= 1000000) {
			snprintf(err, errlen, "start microseconds %" PRIu32 ": expected under 1000000",
				 h->start_usec);
			return -EINVAL;
		}
	}
	return 0;
}

size_t bp_iperf2_header_write(const struct bp_iperf2_header *h, uint8_t *out, size_t cap)
{
	size_t len = h->has_start ? BP_IPERF2_HEADER_START_LEN : BP_IPERF2_HEADER_LEN;
	uint32_t flags = BP_IPERF2_HEADER_EXTEND | BP_IPERF2_HEADER_LEN_BIT | (uint32_t)(len << 1);
	uint16_t upper = h->upper;
	int64_t amount = h->timed ? -(int64_t)(h->duration_ns / 10000000u) : (int64_t)h->bytes;

	if (cap < len)
		return 0;
	if (h->mode == BP_IPERF2_REVERSE || h->mode == BP_IPERF2_FULL_DUPLEX) {
		flags |= BP_IPERF2_HEADER_VERSION2;
		upper |= h->mode == BP_IPERF2_REVERSE ? BP_IPERF2_UPPER_REVERSE :
							BP_IPERF2_UPPER_FULLDUPLEX;
	}
	if (h->trip_times)
		upper |= BP_IPERF2_UPPER_TRIPTIME;
	memset(out, 0, len);
	bp_put_be32(out, flags);
	bp_put_be32(out + 4, h->threads);
	bp_put_be32(out + 8, h->port);
	bp_put_be32(out + 12, h->buffer_len);
	bp_put_be32(out + 16, h->window);
	bp_put_be32(out + 20, (uint32_t)(int32_t)amount);
	put16(out + 32, upper);
	put16(out + 34, h->lower);
	bp_put_be32(out + 36, h->version_u);
	bp_put_be32(out + 40, h->version_l);
	put16(out + 46, h->tos);
	bp_put_be32(out + 48, (uint32_t)h->rate);
	bp_put_be32(out + 52, (uint32_t)(h->rate >> 32) << 8);
	if (h->has_start) {
		bp_put_be32(out + 64, h->start_sec);
		bp_put_be32(out + 68, h->start_usec);
	}
	return len;
}

/* The version a server of ours answers with: the iperf 2 release whose wire it speaks. */
#define SERVER_VERSION_U 0x00020001u
#define SERVER_VERSION_L 0x00080003u

size_t bp_iperf2_ack_write(uint8_t out[BP_IPERF2_ACK_TIMES_LEN], bool times,
			   const uint32_t ts[6])
{
	size_t len = times ? BP_IPERF2_ACK_TIMES_LEN : BP_IPERF2_ACK_LEN;

	memset(out, 0, len);
	bp_put_be32(out, BP_IPERF2_ACK_TYPE);
	bp_put_be32(out + 4, (uint32_t)len);
	bp_put_be32(out + 12, SERVER_VERSION_U);
	bp_put_be32(out + 16, SERVER_VERSION_L);
	for (int i = 0; times && i < 6; i++)
		bp_put_be32(out + 28 + 4 * i, ts[i]);
	return len;
}

int bp_iperf2_ack_parse(const uint8_t *b, size_t n, uint32_t *version_u, uint32_t *version_l)
{
	uint32_t len;

	if (n < BP_IPERF2_ACK_LEN || bp_get_be32(b) != BP_IPERF2_ACK_TYPE)
		return -EINVAL;
	len = bp_get_be32(b + 4);
	if ((len != BP_IPERF2_ACK_LEN && len != BP_IPERF2_ACK_TIMES_LEN) || n < len)
		return -EINVAL;
	*version_u = bp_get_be32(b + 12);
	*version_l = bp_get_be32(b + 16);
	return 0;
}
