/*
 * Receiver-side accounting of one UDP stream: from each datagram's sequence number, the
 * sender's timestamp and the arrival time, count what arrived, what is missing, what came
 * out of order or twice, and the interarrival jitter.
 *
 * Sequence numbers. The sender numbers its datagrams first_seq, first_seq + 1, ... — iperf3
 * and boardperf start at 1 — and the receiver is told first_seq rather than guessing it
 * from the first arrival, so that losing the very first datagrams still counts as loss.
 * expected = highest seq seen - first_seq + 1 (0 before anything arrived).
 *
 * The window. The last BP_UDP_SEQ_WINDOW sequence numbers up to the highest seen are kept
 * as a bitmap, so within the window every arrival is classified exactly:
 *  - above the highest: new; the numbers skipped over count as lost;
 *  - below it, not yet seen: out of order; it fills a gap, so lost decreases by one;
 *  - below it, seen already: duplicate; nothing else changes.
 * A datagram more than the window below the highest (or below first_seq) cannot be told
 * from a duplicate; it is counted as late and nothing else changes, so it stays counted
 * as lost. That errs towards reporting loss, the safe side for a zero-loss search: at
 * 1.5 Mpps the window is 2.7 ms of reordering, which no healthy path comes near.
 * A jump ahead by more than the window counts the whole gap as lost and forgets the
 * bitmap; stragglers from the gap that still fall inside the new window fill it as usual.
 *
 * Forged numbers. A jump ahead is taken only when a sender could have sent that many
 * datagrams since the stream's first arrival: at most BP_UDP_SEQ_WINDOW plus
 * BP_UDP_SEQ_MAX_PER_US per microsecond (1.5 Gpps, past 800 Gbit/s Ethernet's 1.2 Gpps of
 * boardperf's smallest datagram, 82 bytes on the wire). A farther jump (a hostile client's
 * seq 0xffffffff after 56 datagrams) is counted as implausible and changes nothing else:
 * it makes no loss, and a real stream never makes one, whatever its rate or outage.
 *
 * Invariant: received = (expected - lost) + duplicates + late + implausible.
 *
 * A transit time that differs from the previous one by more than BP_UDP_SEQ_MAX_D_NS
 * (10 s: no path's delay changes that much between two datagrams; a sender's clock step
 * does, once) does not enter the jitter: it is counted in jitter_excluded and becomes the
 * new reference, so one step costs one sample and forged timestamps cannot make a jitter
 * of years (at most the bound itself).
 *
 * Jitter as RFC 3550 §6.4.1 and A.8: transit = arrival - send time; for each datagram
 * after the first, in arrival order whatever its sequence number, D = transit - previous
 * transit and J += (|D| - J) / 16. Only differences of transit times enter, so the two
 * clocks need not be synchronised (a constant offset cancels), only run at the same rate.
 * Kept in double nanoseconds.
 */
#ifndef BP_STREAM_UDP_SEQ_H
#define BP_STREAM_UDP_SEQ_H

#include <stdint.h>

/* Power of two; 4096 sequence numbers = 512 bytes of bitmap per stream. */
#define BP_UDP_SEQ_WINDOW 4096
#define BP_UDP_SEQ_MAX_PER_US 1500
#define BP_UDP_SEQ_MAX_D_NS 10000000000LL

enum bp_udp_seq_class {
	BP_UDP_SEQ_NEW,			/* above the highest seen (possibly after a gap) */
	BP_UDP_SEQ_OUT_OF_ORDER,	/* below the highest, filled a gap */
	BP_UDP_SEQ_DUPLICATE,		/* seen before */
	BP_UDP_SEQ_LATE,		/* below the window (or first_seq): not classified */
	BP_UDP_SEQ_IMPLAUSIBLE,		/* a jump ahead no sender could make: ignored */
};

/* Totals, or one interval's deltas (bp_udp_seq_interval). */
struct bp_udp_seq_counts {
	uint64_t received;	/* datagrams that arrived, duplicates and late ones included */
	uint64_t expected;
	int64_t lost;		/* an interval's delta is negative when stragglers fill old gaps */
	uint64_t out_of_order;
	uint64_t duplicates;
	uint64_t late;
	uint64_t implausible;	/* jumps ahead no sender could make (see Forged numbers) */
	uint64_t jitter_excluded; /* transit changes beyond BP_UDP_SEQ_MAX_D_NS */
	double jitter_ns;	/* the smoothed value at the end, in intervals too (not a delta) */
};

/* Caller-allocated; read it through the functions below. */
struct bp_udp_seq {
	uint64_t first_seq;
	uint64_t top;		/* highest seq seen + 1; first_seq while nothing arrived */
	struct bp_udp_seq_counts c;
	struct bp_udp_seq_counts mark;	/* totals at the last bp_udp_seq_interval */
	int64_t prev_transit_ns;
	int have_transit;
	uint64_t first_arrival_ns;	/* of the first datagram (have_transit set) */
	uint64_t seen[BP_UDP_SEQ_WINDOW / 64];	/* bit seq % WINDOW: seq arrived */
};

void bp_udp_seq_init(struct bp_udp_seq *s, uint64_t first_seq);

/*
 * One datagram: its sequence number, the sender's timestamp (seconds and microseconds,
 * as iperf3 writes them) and the arrival time in ns (bp_now_ns, or a kernel timestamp).
 */
enum bp_udp_seq_class bp_udp_seq_add(struct bp_udp_seq *s, uint64_t seq, uint32_t sent_sec,
				     uint32_t sent_usec, uint64_t arrival_ns);

/*
 * iperf3 carries 32-bit sequence numbers unless both ends agree on 64 bits: widen one to
 * the 64-bit number nearest the highest seen, so a stream survives the wrap at 2^32.
 */
uint64_t bp_udp_seq_extend32(const struct bp_udp_seq *s, uint32_t wire_seq);

/* Totals since init. */
void bp_udp_seq_totals(const struct bp_udp_seq *s, struct bp_udp_seq_counts *out);

/* Deltas since the previous call (or init); jitter is the current smoothed value. */
void bp_udp_seq_interval(struct bp_udp_seq *s, struct bp_udp_seq_counts *out);

#endif
