/*
 * Fuzz target for the UDP datagram header (bp_udp_header_decode, src/io/udp_header.c)
 * and what a receiver does with every header it accepts: the sequence window, loss and
 * jitter of src/side/udp_seq.c, as side/udp_stream.c feeds them.
 *
 * The first byte picks the counter width; the rest is cut into datagrams of the header's
 * length plus 0..3 filler bytes, each arriving 1 us after the one before plus an input-
 * drawn step. A decoded header must hold fields in their domain and encode back to the
 * same bytes; the counts must stay consistent (no more out-of-order than received).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "io/udp_header.h"
#include "side/udp_seq.h"

static struct bp_udp_seq seq;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bp_udp_seq_counts c, iv;
	bool seq64, have_first = false;
	uint64_t arrival = 1000000000;
	size_t off = 1, hl;

	if (size < 1)
		return 0;
	seq64 = data[0] & 1;
	hl = bp_udp_header_len(seq64);
	while (off < size) {
		size_t len = hl + (data[off] & 3);
		struct bp_udp_header h;
		uint8_t again[16];
		int rc;

		if (len > size - off)
			len = size - off;
		arrival += 1000 + (uint64_t)data[off] * 997;
		rc = bp_udp_header_decode(data + off, len, seq64, &h);
		if (rc > 0) {
			if (h.usec >= 1000000 || h.seq > BP_UDP_SEQ64_MAX ||
			    bp_udp_header_encode(again, sizeof(again), &h, seq64) != rc ||
			    memcmp(again, data + off, (size_t)rc))
				abort();
			if (!have_first) {
				bp_udp_seq_init(&seq, h.seq ? h.seq : 1);
				have_first = true;
			}
			bp_udp_seq_add(&seq, seq64 ? h.seq : bp_udp_seq_extend32(&seq, (uint32_t)h.seq),
				       h.sec, h.usec, arrival);
		}
		off += len;
		if (have_first && (data[off - 1] & 0x80))
			bp_udp_seq_interval(&seq, &iv);
	}
	if (have_first) {
		bp_udp_seq_totals(&seq, &c);
		if (c.out_of_order > c.received || c.duplicates > c.received || !(c.jitter_ns >= 0))
			abort();
	}
	return 0;
}
