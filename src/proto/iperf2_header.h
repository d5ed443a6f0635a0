/*
 * iperf 2's test header: what a stock iperf 2.1 client (Debian's 2.1.8) writes first on a
 * TCP test connection, so that the server learns the test (its length, direction, streams,
 * timestamps), and the acknowledgement the server answers with: both sides of the dialect,
 * a server's reading and a client's writing. Pure functions over bytes, fuzzed
 * (tests/fuzz/fuzz_iperf2.c). Every field is big-endian.
 *
 * The header (iperf 2.1's payloads.h, checked against the wire of Debian's 2.1.8):
 *   0  flags       HEADER_EXTEND (0x40000000) and HEADER_LEN_BIT (0x00010000), the header's
 *                  length in bits 1-8 (0x78: 60 bytes); VERSION2 (0x04000000) where the
 *                  upper flags ask for -R or --full-duplex; VERSION1 alone is -d/-r, whose
 *                  server connects back; UDPTESTS, KEYCHECK and BOUNCEBACK other tests
 *   4  threads     -P          8  port     the client's own listen port (-d/-r)
 *  12  buffer len  -l (0: default)         16  window or rate (-w)
 *  20  amount      below 0: the duration in 10 ms (-t 0.3: -30); else bytes (-n)
 *  24  type, 28 length (0 from clients), 32 upper flags (REVERSE 0x0400, FULLDUPLEX
 *      0x0800, TRIPTIME 0x0010, EPOCH_START 0x1000, ...), 34 lower flags, 36 and 40 the
 *      client's version (0x00020001, 0x00080003: 2.1.8), 44 reserved, 46 TOS, 48 and 52
 *      the rate (-b): its lower 32 bits, then its upper 32 in the word's top 24 (<< 8),
 *      56 TCP write prefetch
 *  60  (with --trip-times or --txstart-time, 80 bytes) reserved, the client's start as
 *      seconds and microseconds, the fair-queue rate's two words
 */
#ifndef BP_PROTO_IPERF2_HEADER_H
#define BP_PROTO_IPERF2_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_IPERF2_HEADER_EXTEND 0x40000000u
#define BP_IPERF2_HEADER_VERSION1 0x80000000u
#define BP_IPERF2_HEADER_VERSION2 0x04000000u
#define BP_IPERF2_HEADER_V2PEERDETECT 0x02000000u  /* -X: the client reads the ack */
#define BP_IPERF2_HEADER_UDPTESTS 0x20000000u
#define BP_IPERF2_HEADER_KEYCHECK 0x10000000u
#define BP_IPERF2_HEADER_BOUNCEBACK 0x00800000u
#define BP_IPERF2_HEADER_LEN_BIT 0x00010000u
#define BP_IPERF2_HEADER_LEN_MASK 0x000001feu
#define BP_IPERF2_RUN_NOW 0x00000001u

#define BP_IPERF2_UPPER_UNITS_PPS 0x0080u  /* -b in packets per second (UDP) */
#define BP_IPERF2_UPPER_TRIPTIME 0x0010u
#define BP_IPERF2_UPPER_REVERSE 0x0400u
#define BP_IPERF2_UPPER_FULLDUPLEX 0x0800u
#define BP_IPERF2_UPPER_EPOCH_START 0x1000u

/* The base and extended header a 2.1 client sends; with the start time, 80 bytes. */
#define BP_IPERF2_HEADER_LEN 60
#define BP_IPERF2_HEADER_START_LEN 80
/* The longest a length field can say (8 bits of it, doubled) */
#define BP_IPERF2_HEADER_MAX 510
/* The server's acknowledgement: 28 bytes, 52 with the three timestamps of --trip-times */
#define BP_IPERF2_ACK_LEN 28
#define BP_IPERF2_ACK_TIMES_LEN 52
#define BP_IPERF2_ACK_TYPE 2

/* What the client asks for, decoded and checked. */
enum bp_iperf2_mode {
	BP_IPERF2_NORMAL,	/* the client sends */
	BP_IPERF2_REVERSE,	/* -R: the server sends on the same connection */
	BP_IPERF2_FULL_DUPLEX,	/* --full-duplex: both, on the same connection */
	BP_IPERF2_DUAL,		/* -d: the server connects back at once (VERSION1, RUN_NOW) */
	BP_IPERF2_TRADEOFF,	/* -r: the server connects back after (VERSION1) */
};

struct bp_iperf2_header {
	uint32_t flags;
	uint32_t len;		/* bytes on the wire, flags included */
	enum bp_iperf2_mode mode;
	uint32_t threads;	/* -P, 1..BP_IPERF2_MAX_THREADS */
	uint16_t port;		/* the client's listen port (-d/-r) */
	uint32_t buffer_len;	/* -l, 0: the default */
	uint32_t window;	/* -w, or the rate for UDP */
	bool timed;		/* amount is a duration, else bytes */
	uint64_t duration_ns;	/* -t, when timed */
	uint64_t bytes;		/* -n, when not */
	bool extended;		/* bytes 24-59 are there */
	uint16_t upper, lower;	/* the extended flags */
	uint32_t version_u, version_l;	/* the client's version: 0x00020001, 0x00080003 */
	uint16_t tos;
	uint64_t rate;		/* -b, bits/s (0: none; each stream's, TCP's too) */
	bool trip_times;	/* --trip-times: the start below is the client's clock */
	bool has_start;		/* the 80-byte form: start_sec, start_usec */
	uint32_t start_sec, start_usec;
};

#define BP_IPERF2_MAX_THREADS 128

/*
 * Whether the first n bytes (n >= 1) can begin an iperf 2 TCP header: the flags' high byte
 * has EXTEND or VERSION1 and nothing an iperf3 cookie (a-z, 2-7) or a boardperf client
 * could begin with. serve tells the dialects apart by it before reading on.
 */
bool bp_iperf2_header_prefix(const uint8_t *b, size_t n);

/*
 * The header's length from its first 4 bytes: 4..BP_IPERF2_HEADER_MAX, or -EINVAL for flags
 * no 2.1 TCP client sends (no length bit, a length under 24, bounce-back, UDP).
 */
int bp_iperf2_header_len(const uint8_t b[4]);

/*
 * Decodes a whole header (n >= its length): 0, or -EINVAL with one line in err naming the
 * field and its value. Checks every number in its own domain: threads 1..128, a duration of
 * at most a day, a non-zero amount, a length that holds the fields its flags announce.
 */
int bp_iperf2_header_parse(const uint8_t *b, size_t n, struct bp_iperf2_header *h, char *err,
			   size_t errlen);

/* Writes h as a 2.1.8 client would (60 or, with has_start, 80 bytes); returns the length. */
size_t bp_iperf2_header_write(const struct bp_iperf2_header *h, uint8_t *out, size_t cap);

/*
 * The server's acknowledgement, as 2.1.8's `iperf -s` writes it: type 2, its length, the
 * server's version (2.1.8's), and with times the client's start and the server's receive and
 * send times (seconds, microseconds of the wall clock). Returns its length (28 or 52).
 */
size_t bp_iperf2_ack_write(uint8_t out[BP_IPERF2_ACK_TIMES_LEN], bool times,
			   const uint32_t ts[6]);

/* Reads an acknowledgement (n bytes): 0 with the server's version, or -EINVAL. */
int bp_iperf2_ack_parse(const uint8_t *b, size_t n, uint32_t *version_u, uint32_t *version_l);

#endif
