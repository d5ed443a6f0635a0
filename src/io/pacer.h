/*
 * The send schedule of a rate-limited UDP sender: how many datagrams may go now, and when
 * the next one is due. Pure arithmetic on monotonic nanoseconds (bp_now_ns); the caller
 * owns the socket and the sleeping.
 *
 * What the rate counts. bp_pacer_init takes the bits one datagram counts for. `boardperf
 * udp -b RATE` counts UDP payload bits, as iperf3 -b does (its byte counters are what
 * send() accepted), so -b 100M -l 1470 means 100e6 / (1470 * 8) = 8,503.4 datagrams/s and
 * more than 100 Mbit/s on the wire. RFC 2544 offers load in frames/s or in bits of line
 * rate; bp_pacer_init_pps and bp_pacer_init_line_rate take those directly.
 *
 * Why it cannot drift. Datagram k is due at start + k * interval exactly, with the interval
 * kept as a fraction q + r/den ns (den <= 2^32): the pacer carries k * r mod den from one
 * datagram to the next, which is exact integer arithmetic, not a sum of rounded intervals.
 * An integer rate gives the exact fraction (100 Mbit/s and 1470-byte datagrams: 117,600 ns;
 * 3 Mbit/s and 125-byte datagrams: 333,333 1/3 ns); a rate with a fractional part, or one
 * whose fraction needs den > 2^32, is rounded once to 1/2^32 ns, a relative error below
 * 10^-9 that does not grow with k. 64-bit arithmetic only: 32-bit ARM has no __int128.
 *
 * Catch-up after a late sender. The schedule is absolute, so datagrams that fell due
 * while the sender was late (descheduled, a slow syscall, a full socket buffer) are not
 * dropped: they are sent in the following batches, and the long-run offered rate stays
 * on target. Two limits keep that catch-up from becoming the burst pacing exists to avoid:
 *  - one call of bp_pacer_due never returns more than max_batch (default 64);
 *  - while behind, the pacer releases datagrams at no more than catchup_pct (default
 *    200 %) of the target rate: a token bucket of that rate whose depth is a batch plus
 *    what accrues in BP_PACER_SLACK_NS, so that a timer waking the sender late does not
 *    cost it catch-up. bp_pacer_next_ns names the time a whole batch may go (everything
 *    due, up to max_batch), so a sender that waits for it catches up in whole batches
 *    rather than one datagram per system call as tokens arrive. After a stall at most
 *    max_batch plus 250 us' worth of tokens leave back to back; then twice the rate until
 *    caught up, which takes about S * 100 / (catchup_pct - 100) for a stall of S (S again,
 *    by default). On schedule the bucket refills twice as fast as the schedule drains
 *    it, so it holds back only a sender that is catching up.
 * A sender that stays behind (it cannot reach the rate) is told so by bp_pacer_max_lag_ns;
 * a test reports that as an offered rate not achieved, never as the target rate.
 *
 * Rate 0 means unpaced: every call allows a full batch.
 *
 * Slots: the schedule without a sender. Open-loop tests that start each operation at its
 * own time (rr and crr --rate, http --rate) need only when operation k is due, not the
 * sender's state: bp_pacer_slot_ns(p, k) is start + floor(k * interval), computed in one
 * step, O(1) for any k, and the same number bp_pacer_due_time_ns gives a sender that has
 * sent nothing yet. Two shapes are built on it:
 *  - interleaved sub-schedules (http: request k of the test goes to connection k mod n):
 *    the m-th slot of sub-schedule j of n is slot m * n + j, so n connections each keep
 *    every n-th slot of one exact schedule and stay evenly staggered with no drift;
 *  - a linear ramp of the rate from 0 to the target over R ns (crr --ramp): the slot's
 *    time s = floor(k * interval) since the start is warped to floor(sqrt(2 R s)) while
 *    2 s < R and to s + floor(R / 2) after, so that the count due by time t is t^2 / 2RI
 *    during the ramp (the rate rising linearly) and R / 2I + (t - R) / I after (I the
 *    interval); the two pieces meet at t = R and the warp never runs backwards. The
 *    square root is exact (the largest x with x^2 <= 2 R s), on a 128-bit product kept in
 *    two 64-bit words: 2 s R < R^2 < 2^128 for any R, and x < R.
 * Bounds: a slot's due time must fit in 64 bits (584 years of ns from 0), and for the
 * sub-schedules m * n + j < 2^64; no intermediate value exceeds the result (see
 * slot_offset in pacer.c).
 *
 * Sender loop:
 *	n = bp_pacer_due(p, now);  send n;  bp_pacer_sent(p, sent, now);
 *	if nothing was due, sleep until bp_pacer_next_ns(p). The schedule absorbs a late
 *	wake-up (the next call returns a larger batch); a sender that wants fewer, larger
 *	batches sleeps until bp_pacer_due_time_ns(p, n - 1) instead.
 */
#ifndef BP_IO_PACER_H
#define BP_IO_PACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_PACER_MAX_BATCH	64	/* what one sendmmsg carries; UIO_MAXIOV bounds it */
#define BP_PACER_CATCHUP_PCT	200
/* A timer's late wake-up on a small board, with margin (see the catch-up bucket). */
#define BP_PACER_SLACK_NS	250000ULL

/* Caller-allocated; fields are the pacer's own, read them through the functions below. */
struct bp_pacer {
	uint64_t start_ns;
	uint64_t next_ns;	/* due time of the next datagram to send, k = sent */
	uint64_t frac;		/* k * r mod den: the sub-nanosecond part of k * interval */
	uint64_t q, r, den;	/* interval = q + r / den ns, r < den <= 2^32 */
	uint64_t sent;
	uint64_t tat_ns;	/* token bucket as a virtual clock (GCRA's theoretical arrival) */
	uint64_t step_ns;	/* interval at the catch-up rate; 0: no catch-up limit */
	uint64_t max_lag_ns;
	unsigned max_batch;
	unsigned catchup_pct;
	bool unpaced;
};

/*
 * bits_per_sec: the target rate (0: unpaced); bits_per_datagram: what one datagram counts
 * for (payload bytes * 8 for iperf3's -b). start_ns: when datagram 0 is due.
 */
void bp_pacer_init(struct bp_pacer *p, double bits_per_sec, size_t bits_per_datagram,
		   uint64_t start_ns);

/* A datagram rate (RFC 2544's offered load in frames/s); 0: unpaced. */
void bp_pacer_init_pps(struct bp_pacer *p, double datagrams_per_sec, uint64_t start_ns);

/*
 * A rate in bits of Ethernet line rate, each frame_len-byte frame (with FCS) counting with
 * its preamble and inter-frame gap, (frame + 20) * 8 bits: 1e9 at 64 bytes is
 * 1,488,095 frames/s, the medium's maximum.
 */
void bp_pacer_init_line_rate(struct bp_pacer *p, double line_bps, unsigned frame_len,
			     uint64_t start_ns);

/* An exact interval of period_ns between datagrams (rr's per-flow period); 0: unpaced. */
void bp_pacer_init_period(struct bp_pacer *p, uint64_t period_ns, uint64_t start_ns);

/*
 * max_batch (>= 1; 0 keeps the default) and the catch-up rate in percent of the target
 * (> 100; 0 lifts the limit, leaving only max_batch per call). Returns 0 or -EINVAL.
 */
int bp_pacer_set_limits(struct bp_pacer *p, unsigned max_batch, unsigned catchup_pct);

/*
 * Datagrams to send now: those due by now_ns, at most max_batch and what the catch-up
 * bucket holds. Positive at any time from bp_pacer_next_ns on.
 */
uint64_t bp_pacer_due(const struct bp_pacer *p, uint64_t now_ns);

/*
 * n datagrams went out at now_ns (what the socket took: may be fewer than due, or, from
 * a caller that ignores the pacer, more; the schedule moves on by n either way).
 */
void bp_pacer_sent(struct bp_pacer *p, uint64_t n, uint64_t now_ns);

/*
 * When to call bp_pacer_due next (sleep or spin until then): the time the next datagram is
 * due, or while catching up, the time the bucket lets a whole batch go. 0 when unpaced.
 */
uint64_t bp_pacer_next_ns(const struct bp_pacer *p);

/*
 * Due time of the i-th datagram after the next one (i = 0: the next), by the schedule
 * alone: a sender that wants batches of n waits for bp_pacer_due_time_ns(p, n - 1).
 */
uint64_t bp_pacer_due_time_ns(const struct bp_pacer *p, uint64_t i);

/* Due time of slot k (k = 0 at start_ns) by the schedule alone; start_ns when unpaced. */
uint64_t bp_pacer_slot_ns(const struct bp_pacer *p, uint64_t k);

/* The m-th slot of sub-schedule j of n interleaved ones (j < n): slot m * n + j. */
uint64_t bp_pacer_sub_slot_ns(const struct bp_pacer *p, uint64_t j, uint64_t n, uint64_t m);

/* Slot k with the rate ramped linearly from 0 over the first ramp_ns (0: no ramp). */
uint64_t bp_pacer_ramp_slot_ns(const struct bp_pacer *p, uint64_t ramp_ns, uint64_t k);

/* Datagrams sent so far, and the interval between them in ns (0 when unpaced). */
uint64_t bp_pacer_sent_count(const struct bp_pacer *p);
double bp_pacer_interval_ns(const struct bp_pacer *p);

/* The longest a batch left after its first datagram was due: how far behind the sender fell. */
uint64_t bp_pacer_max_lag_ns(const struct bp_pacer *p);

#endif
