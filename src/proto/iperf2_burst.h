/*
 * iperf 2's TCP stream under --trip-times, as Debian's 2.1.8 client writes it (`iperf -c
 * HOST -e --trip-times`): after the test header, every write of -l bytes is a burst that
 * begins with this 92-byte block (big-endian):
 *
 *   0  flags, 4 type, 8 length, 12 and 16 the test's start (seconds, microseconds)
 *  20  write time   seconds, microseconds: the client's wall clock as it wrote the burst
 *  28  read time    (the server's, unused on the wire)
 *  36  reserved, 40 burst period (microseconds), 44 burst id
 *  48  burst size   the burst's bytes, this block included
 *  52  sequence number (lower, upper), 60 write-ack times, 76 reserved to 92
 *
 * A server takes each burst's one-way delay as iperf -s does: its wall clock when the burst's
 * last byte was read, less the burst's write time. The reader below follows the stream byte
 * by byte as it is read (any cut between reads), pure over bytes, fuzzed
 * (tests/fuzz/fuzz_iperf2.c).
 */
#ifndef BP_PROTO_IPERF2_BURST_H
#define BP_PROTO_IPERF2_BURST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/welford.h"

#define BP_IPERF2_BURST_HEAD_LEN 92
/* The largest burst a reader takes: iperf 2's -l is at most a few MiB */
#define BP_IPERF2_BURST_MAX (64u << 20)

struct bp_iperf2_burst_reader {
	uint64_t skip;              /* bytes before the first burst (the test header) */
	uint8_t head[BP_IPERF2_BURST_HEAD_LEN];
	size_t have;                /* of the current burst's head */
	uint64_t left;              /* of the current burst after its head */
	uint64_t write_ns;          /* the current burst's write time (the client's clock) */
	struct bp_welford transit;  /* each whole burst's one-way delay, ns */
	char broken[96];            /* why the reading stopped (a head out of its domain), or "" */
};

/* A reader of a stream whose first skip bytes are the test header. */
void bp_iperf2_burst_init(struct bp_iperf2_burst_reader *r, uint64_t skip);

/*
 * n more bytes of the stream at b, read at now_ns (this host's wall clock, ns): every burst
 * that ends in them adds now_ns less its write time to r->transit. Once a head is out of its
 * domain (a size under the head or over BP_IPERF2_BURST_MAX, microseconds of a million or
 * more) the reader says why in r->broken and reads no further.
 */
void bp_iperf2_burst_feed(struct bp_iperf2_burst_reader *r, const uint8_t *b, size_t n,
			  uint64_t now_ns);

#endif
