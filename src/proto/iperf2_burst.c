#include "proto/iperf2_burst.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/be32.h"

void bp_iperf2_burst_init(struct bp_iperf2_burst_reader *r, uint64_t skip)
{
	memset(r, 0, sizeof(*r));
	r->skip = skip;
	bp_welford_init(&r->transit);
}

/* The head is whole: its size and write time, checked in their domains. */
static void take_head(struct bp_iperf2_burst_reader *r)
{
	uint32_t size = bp_get_be32(r->head + 48), usec = bp_get_be32(r->head + 24);

	if (size < BP_IPERF2_BURST_HEAD_LEN || size > BP_IPERF2_BURST_MAX) {
		snprintf(r->broken, sizeof(r->broken), "a burst of %" PRIu32 " bytes: expected "
			 "%d to %u", size, BP_IPERF2_BURST_HEAD_LEN, BP_IPERF2_BURST_MAX);
		return;
	}
	if (usec >= 1000000) {
		snprintf(r->broken, sizeof(r->broken), "a write time's microseconds %" PRIu32
			 ": expected under 1000000", usec);
		return;
	}
	r->write_ns = (uint64_t)bp_get_be32(r->head + 20) * 1000000000u + (uint64_t)usec * 1000u;
	r->left = size - BP_IPERF2_BURST_HEAD_LEN;
}

/* The burst ended with the byte just read: its one-way delay (negative: clocks apart). */
static void burst_done(struct bp_iperf2_burst_reader *r, uint64_t now_ns)
{
	/* the difference first: a double holds a wall-clock ns to 256 ns only */
	bp_welford_add(&r->transit, (double)(int64_t)(now_ns - r->write_ns));
	r->have = 0;
}

void bp_iperf2_burst_feed(struct bp_iperf2_burst_reader *r, const uint8_t *b, size_t n,
			  uint64_t now_ns)
{
	while (n && !r->broken[0]) {
		size_t k;

		if (r->skip) {
			k = r->skip < n ? (size_t)r->skip : n;
			r->skip -= k;
		} else if (r->have < BP_IPERF2_BURST_HEAD_LEN) {
			k = BP_IPERF2_BURST_HEAD_LEN - r->have < n ? BP_IPERF2_BURST_HEAD_LEN - r->have :
								       n;
			memcpy(r->head + r->have, b, k);
			r->have += k;
			if (r->have == BP_IPERF2_BURST_HEAD_LEN) {
				take_head(r);
				if (!r->broken[0] && !r->left)
					burst_done(r, now_ns);
			}
		} else {
			k = r->left < n ? (size_t)r->left : n;
			r->left -= k;
			if (!r->left)
				burst_done(r, now_ns);
		}
		b += k;
		n -= k;
	}
}
