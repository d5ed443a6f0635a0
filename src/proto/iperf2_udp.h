/*
 * iperf 2's UDP test on the wire, a server's reading of it: every datagram of a 2.1 client
 * begins with its sequence number and send time (16 bytes: id, seconds, microseconds, the
 * id's upper word), followed by the test header (proto/iperf2_header.h) with its length
 * counted from the datagram's start; the last datagrams carry the sequence number negated
 * (the client's FIN, repeated until the server answers with its report). The server's
 * report: 16 zero bytes, then its counts as the client prints them ("Server Report"). Pure
 * functions over bytes, fuzzed (tests/fuzz/fuzz_iperf2_udp.c). Checked against the wire of
 * Debian's 2.1.8 (`iperf -c -u`, 2026-12-06).
 */
#ifndef BP_PROTO_IPERF2_UDP_H
#define BP_PROTO_IPERF2_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/iperf2_header.h"

/* 64-bit sequence numbers: the id's upper word at 12 (every 2.1 client sets it) */
#define BP_IPERF2_HEADER_SEQNO64B 0x08000000u
/* The datagram's own header, before the test header */
#define BP_IPERF2_DGRAM_LEN 16
/*
 * A UDP test header with a start time (--trip-times): the TCP header's 60 bytes, an
 * isochronous block of 32 (zero), then the start block of 20 whose second and third words
 * are the start's seconds and microseconds (at 96 and 100). Its length field says 92 (the
 * start block not counted), as 2.1.8 writes it.
 */
#define BP_IPERF2_UDP_HEADER_START_LEN 112
#define BP_IPERF2_UDP_START_AT 96
/* The server's report: the datagram header's 16 bytes and 112 of counts */
#define BP_IPERF2_UDP_REPORT_LEN 128

struct bp_iperf2_dgram {
	uint64_t seq;           /* from 1; a FIN's with its sign removed */
	bool fin;               /* the client's last datagram (or a repeat of it) */
	uint32_t sec, usec;     /* the client's send time */
};

/*
 * A datagram's sequence number and send time (n bytes; seq64: the id's upper word is used,
 * the header said SEQNO64B): 0, or -EINVAL when too short or the microseconds are out of
 * their domain.
 */
int bp_iperf2_dgram_decode(const uint8_t *b, size_t n, bool seq64, struct bp_iperf2_dgram *d);

/*
 * The test header inside a datagram (n bytes, the datagram's start at b): as
 * bp_iperf2_header_parse, the length field counting the datagram's first 16 bytes too
 * (h->len is the header's own). 0, or -EINVAL with one line in err.
 */
int bp_iperf2_udp_header_parse(const uint8_t *b, size_t n, struct bp_iperf2_header *h,
			       char *err, size_t errlen);

/*
 * A client's writing of them: the datagram's own 16 bytes (id, the send time, 64-bit), and
 * the test header that follows them in every datagram (h as bp_iperf2_header_write takes it;
 * its length field counting the 16, SEQNO64B and UDPTESTS set; with a start time, the
 * 112-byte layout above). Returns the header's length, 0 when cap is too small.
 */
void bp_iperf2_dgram_encode(uint8_t b[BP_IPERF2_DGRAM_LEN], int64_t id, uint32_t sec,
			    uint32_t usec);
size_t bp_iperf2_udp_header_write(const struct bp_iperf2_header *h, uint8_t *out, size_t cap);

/* What a server counted, for its report (iperf -s's server_hdr). */
struct bp_iperf2_udp_report {
	uint64_t bytes;         /* payload received, the FIN's included */
	uint64_t datagrams;     /* the highest sequence number seen (the FIN's) */
	uint64_t lost, out_of_order;
	double stop_s;          /* from the first datagram to the FIN, seconds */
	double jitter_s;        /* RFC 1889's, seconds */
	/*
	 * The extension iperf -s sends when the client asked for --trip-times (or the server
	 * runs -e), the client's "Latency avg/min/max/stdev" and "PPS": the data datagrams'
	 * transits (arrival on the server's wall clock less the send time each carries; the
	 * one-way delay when the clocks agree), seconds, negative when they do not; m2 is the
	 * sum of squared deviations from their mean (s^2: variance = m2 / (count - 1)); pps
	 * the datagrams per second. On the wire a transit is the whole seconds and the
	 * microseconds, each truncated toward zero (a negative one reads as unrealistic to a
	 * stock client, which then prints no latency), m2 in microseconds^2.
	 */
	bool transit;
	double transit_min_s, transit_max_s, transit_sum_s, transit_mean_s, transit_m2;
	uint32_t transit_count, pps;
};

/* The report's 128 bytes; returns BP_IPERF2_UDP_REPORT_LEN. */
size_t bp_iperf2_udp_report_write(uint8_t out[BP_IPERF2_UDP_REPORT_LEN],
				  const struct bp_iperf2_udp_report *r);
/* A report (n bytes) as a client reads it: 0, or -EINVAL when it is cut short. */
int bp_iperf2_udp_report_parse(const uint8_t *b, size_t n, struct bp_iperf2_udp_report *r);

#endif
