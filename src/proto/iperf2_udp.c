#include "proto/iperf2_udp.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/be32.h"

/* The server report's flags: VERSION1 (1.7's report) and 64-bit counts */
#define REPORT_FLAGS (BP_IPERF2_HEADER_VERSION1 | BP_IPERF2_HEADER_SEQNO64B)
/* The report carries the transit extension (iperf 2's flag of the same value in a header) */
#define SERVER_HEADER_EXTEND BP_IPERF2_HEADER_EXTEND

int bp_iperf2_dgram_decode(const uint8_t *b, size_t n, bool seq64, struct bp_iperf2_dgram *d)
{
	int64_t id;

	if (n < (seq64 ? BP_IPERF2_DGRAM_LEN : 12))
		return -EINVAL;
	if (seq64)
		id = (int64_t)((uint64_t)bp_get_be32(b + 12) << 32 | bp_get_be32(b));
	else
		id = (int32_t)bp_get_be32(b);
	if (id == INT64_MIN)
		return -EINVAL;
	d->fin = id < 0;
	d->seq = (uint64_t)(id < 0 ? -id : id);
	d->sec = bp_get_be32(b + 4);
	d->usec = bp_get_be32(b + 8);
	return d->usec < 1000000 ? 0 : -EINVAL;
}

int bp_iperf2_udp_header_parse(const uint8_t *b, size_t n, struct bp_iperf2_header *h,
			       char *err, size_t errlen)
{
	uint8_t tcp[BP_IPERF2_HEADER_MAX];
	uint32_t flags, len;
	size_t k;

	memset(h, 0, sizeof(*h));
	if (n < BP_IPERF2_DGRAM_LEN + 4) {
		snprintf(err, errlen, "a datagram of %zu bytes: too short for a test header", n);
		return -EINVAL;
	}
	flags = bp_get_be32(b + BP_IPERF2_DGRAM_LEN);
	len = (flags & BP_IPERF2_HEADER_LEN_MASK) >> 1;
	if (!(flags & BP_IPERF2_HEADER_LEN_BIT) || len < BP_IPERF2_DGRAM_LEN + 24) {
		snprintf(err, errlen, "flags 0x%08" PRIx32 ": not an iperf 2.1 UDP test header",
			 flags);
		return -EINVAL;
	}
	/*
	 * The TCP header's reading, on the bytes after the datagram's own 16, the length made
	 * the header's own (UDPTESTS, which only says what the rest is, set aside).
	 */
	k = n - BP_IPERF2_DGRAM_LEN < sizeof(tcp) ? n - BP_IPERF2_DGRAM_LEN : sizeof(tcp);
	memcpy(tcp, b + BP_IPERF2_DGRAM_LEN, k);
	flags &= ~(BP_IPERF2_HEADER_LEN_MASK | BP_IPERF2_HEADER_UDPTESTS);
	bp_put_be32(tcp, flags | (len - BP_IPERF2_DGRAM_LEN) << 1);
	/* A start time sits after the isochronous block over UDP: where the TCP reading finds it */
	if ((flags & BP_IPERF2_HEADER_EXTEND) && k >= 34 &&
	    (((uint32_t)tcp[32] << 8 | tcp[33]) &
	     (BP_IPERF2_UPPER_TRIPTIME | BP_IPERF2_UPPER_EPOCH_START))) {
		if (k < BP_IPERF2_UDP_START_AT + 8) {
			snprintf(err, errlen, "a start time announced in a datagram of %zu bytes: "
				 "too short for it", n);
			return -EINVAL;
		}
		memcpy(tcp + 64, tcp + BP_IPERF2_UDP_START_AT, 8);
		if (len - BP_IPERF2_DGRAM_LEN < BP_IPERF2_HEADER_START_LEN)
			bp_put_be32(tcp, flags | BP_IPERF2_HEADER_START_LEN << 1);
	}
	return bp_iperf2_header_parse(tcp, k, h, err, errlen);
}

void bp_iperf2_dgram_encode(uint8_t b[BP_IPERF2_DGRAM_LEN], int64_t id, uint32_t sec,
			    uint32_t usec)
{
	bp_put_be32(b, (uint32_t)(uint64_t)id);
	bp_put_be32(b + 4, sec);
	bp_put_be32(b + 8, usec);
	bp_put_be32(b + 12, (uint32_t)((uint64_t)id >> 32));
}

size_t bp_iperf2_udp_header_write(const struct bp_iperf2_header *h, uint8_t *out, size_t cap)
{
	size_t len = bp_iperf2_header_write(h, out, cap), counted;
	uint32_t flags;

	if (!len)
		return 0;
	counted = len;
	if (h->has_start) {  /* the start moves past the isochronous block (above) */
		if (cap < BP_IPERF2_UDP_HEADER_START_LEN)
			return 0;
		memset(out + BP_IPERF2_HEADER_LEN, 0,
		       BP_IPERF2_UDP_HEADER_START_LEN - BP_IPERF2_HEADER_LEN);
		bp_put_be32(out + BP_IPERF2_UDP_START_AT, h->start_sec);
		bp_put_be32(out + BP_IPERF2_UDP_START_AT + 4, h->start_usec);
		len = BP_IPERF2_UDP_HEADER_START_LEN;
		counted = BP_IPERF2_UDP_START_AT - 4;
	}
	/* UDPTESTS: the UDP flags are valid (none set here), as 2.1.8 writes it */
	flags = bp_get_be32(out) & ~BP_IPERF2_HEADER_LEN_MASK;
	bp_put_be32(out, flags | BP_IPERF2_HEADER_SEQNO64B | BP_IPERF2_HEADER_UDPTESTS |
		    (uint32_t)(counted + BP_IPERF2_DGRAM_LEN) << 1);
	return len;
}

/* A value in seconds as iperf 2's two words: whole seconds, then microseconds. */
static void put_seconds(uint8_t *b, double s)
{
	double whole;

	if (!(s >= 0))
		s = 0;
	if (s > 2147483647.0)
		s = 2147483647.0;
	whole = floor(s);
	bp_put_be32(b, (uint32_t)whole);
	bp_put_be32(b + 4, (uint32_t)((s - whole) * 1e6));
}

static double get_seconds(const uint8_t *b)
{
	return (double)bp_get_be32(b) + (double)bp_get_be32(b + 4) / 1e6;
}

/*
 * A transit as iperf -s writes one: the whole seconds truncated toward zero, the rest in
 * microseconds of the same sign (rounded: 21 us is not 20.999...), signed.
 */
static void put_signed_seconds(uint8_t *b, double s)
{
	double whole;

	if (!(s > -2147483647.0))
		s = -2147483647.0;
	if (s > 2147483647.0)
		s = 2147483647.0;
	whole = trunc(s);
	bp_put_be32(b, (uint32_t)(int32_t)whole);
	bp_put_be32(b + 4, (uint32_t)(int32_t)lround((s - whole) * 1e6));
}

static double get_signed_seconds(const uint8_t *b)
{
	return (double)(int32_t)bp_get_be32(b) + (double)(int32_t)bp_get_be32(b + 4) / 1e6;
}

/*
 * The layout after the 16 bytes: flags, total bytes (upper, lower word), stop (s, us),
 * lost, out of order, datagrams (lower words), jitter (s, us); 60 bytes of transit figures
 * with SERVER_HEADER_EXTEND (min, max, sum, mean, m2, vd: s and us each; count, the IPG
 * count and sum), zeros without; the counts' upper words.
 */
size_t bp_iperf2_udp_report_write(uint8_t out[BP_IPERF2_UDP_REPORT_LEN],
				  const struct bp_iperf2_udp_report *r)
{
	uint8_t *h = out + BP_IPERF2_DGRAM_LEN;

	memset(out, 0, BP_IPERF2_UDP_REPORT_LEN);
	bp_put_be32(h, REPORT_FLAGS);
	bp_put_be32(h + 4, (uint32_t)(r->bytes >> 32));
	bp_put_be32(h + 8, (uint32_t)r->bytes);
	put_seconds(h + 12, r->stop_s);
	bp_put_be32(h + 20, (uint32_t)r->lost);
	bp_put_be32(h + 24, (uint32_t)r->out_of_order);
	bp_put_be32(h + 28, (uint32_t)r->datagrams);
	put_seconds(h + 32, r->jitter_s);
	if (r->transit) {
		bp_put_be32(h, REPORT_FLAGS | SERVER_HEADER_EXTEND);
		put_signed_seconds(h + 40, r->transit_min_s);
		put_signed_seconds(h + 48, r->transit_max_s);
		put_signed_seconds(h + 56, r->transit_sum_s);
		put_signed_seconds(h + 64, r->transit_mean_s);
		/* m2 in microseconds^2 (the client multiplies by 1e-12); variance vd left 0 */
		put_seconds(h + 72, r->transit_m2 * 1e12);
		bp_put_be32(h + 88, r->transit_count);
		/* the client prints PPS as IPG count / IPG sum: iperf -s sends pps and 1 */
		bp_put_be32(h + 92, r->pps);
		bp_put_be32(h + 96, 1);
	}
	bp_put_be32(h + 100, (uint32_t)(r->lost >> 32));
	bp_put_be32(h + 104, (uint32_t)(r->out_of_order >> 32));
	bp_put_be32(h + 108, (uint32_t)(r->datagrams >> 32));
	return BP_IPERF2_UDP_REPORT_LEN;
}

int bp_iperf2_udp_report_parse(const uint8_t *b, size_t n, struct bp_iperf2_udp_report *r)
{
	const uint8_t *h = b + BP_IPERF2_DGRAM_LEN;
	bool wide;

	memset(r, 0, sizeof(*r));
	if (n < BP_IPERF2_DGRAM_LEN + 40)
		return -EINVAL;
	wide = (bp_get_be32(h) & BP_IPERF2_HEADER_SEQNO64B) && n >= BP_IPERF2_UDP_REPORT_LEN;
	r->bytes = (uint64_t)bp_get_be32(h + 4) << 32 | bp_get_be32(h + 8);
	r->stop_s = get_seconds(h + 12);
	r->lost = (wide ? (uint64_t)bp_get_be32(h + 100) << 32 : 0) | bp_get_be32(h + 20);
	r->out_of_order = (wide ? (uint64_t)bp_get_be32(h + 104) << 32 : 0) | bp_get_be32(h + 24);
	r->datagrams = (wide ? (uint64_t)bp_get_be32(h + 108) << 32 : 0) | bp_get_be32(h + 28);
	r->jitter_s = get_seconds(h + 32);
	if ((bp_get_be32(h) & SERVER_HEADER_EXTEND) && n >= BP_IPERF2_DGRAM_LEN + 100) {
		r->transit = true;
		r->transit_min_s = get_signed_seconds(h + 40);
		r->transit_max_s = get_signed_seconds(h + 48);
		r->transit_sum_s = get_signed_seconds(h + 56);
		r->transit_mean_s = get_signed_seconds(h + 64);
		r->transit_m2 = get_seconds(h + 72) * 1e-12;
		r->transit_count = bp_get_be32(h + 88);
		r->pps = bp_get_be32(h + 92);
	}
	return 0;
}
