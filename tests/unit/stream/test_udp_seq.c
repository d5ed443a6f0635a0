/*
 * Receiver accounting: sequences in order, with gaps, reordered, duplicated, filled late
 * and jumping past the window; interval deltas; 32-bit wrap; RFC 3550 jitter computed
 * against the recurrence itself.
 */
#include <stdint.h>

#include "core/clock.h"
#include "io/udp_header.h"
#include "side/udp_seq.h"
#include "tap.h"

/* The sender's and the receiver's clocks count from unrelated epochs. */
#define SEND_EPOCH_S 1700000000ULL
#define RECV_EPOCH_NS (12345 * BP_NS_PER_SEC)
#define GAP_NS (100 * BP_NS_PER_US)	/* between datagrams at the sender */
#define DELAY_NS (5 * BP_NS_PER_MS)

/* Datagram seq, sent at seq * GAP_NS, arriving after DELAY_NS + extra_ns. */
static enum bp_udp_seq_class add_delayed(struct bp_udp_seq *s, uint64_t seq, int64_t extra_ns)
{
	uint64_t t = seq * GAP_NS;

	return bp_udp_seq_add(s, seq, (uint32_t)(SEND_EPOCH_S + t / BP_NS_PER_SEC),
			      (uint32_t)(t % BP_NS_PER_SEC / BP_NS_PER_US),
			      RECV_EPOCH_NS + t + DELAY_NS + (uint64_t)extra_ns);
}

static enum bp_udp_seq_class add(struct bp_udp_seq *s, uint64_t seq)
{
	return add_delayed(s, seq, 0);
}

static void add_range(struct bp_udp_seq *s, uint64_t from, uint64_t to)
{
	for (; from <= to; from++)
		add(s, from);
}

/* received = (expected - lost) + duplicates + late + implausible, whatever happened. */
static void check_invariant(const struct bp_udp_seq *s)
{
	struct bp_udp_seq_counts c;

	bp_udp_seq_totals(s, &c);
	CHECK_INT(c.received, (int64_t)c.expected - c.lost +
		  (int64_t)(c.duplicates + c.late + c.implausible));
}

static void check_counts(const struct bp_udp_seq *s, uint64_t received, uint64_t expected,
			 int64_t lost, uint64_t ooo, uint64_t dup, uint64_t late)
{
	struct bp_udp_seq_counts c;

	bp_udp_seq_totals(s, &c);
	CHECK_INT(c.received, received);
	CHECK_INT(c.expected, expected);
	CHECK_INT(c.lost, lost);
	CHECK_INT(c.out_of_order, ooo);
	CHECK_INT(c.duplicates, dup);
	CHECK_INT(c.late, late);
	check_invariant(s);
}

static void test_in_order_and_gap(void)
{
	struct bp_udp_seq s;
	struct bp_udp_seq_counts c;

	bp_udp_seq_init(&s, 1);
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(c.expected, 0);
	add_range(&s, 1, 1000);
	check_counts(&s, 1000, 1000, 0, 0, 0, 0);
	bp_udp_seq_totals(&s, &c);
	CHECK_NEAR(c.jitter_ns, 0.0, 0.0);

	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 10);
	add_range(&s, 12, 20);
	check_counts(&s, 19, 20, 1, 0, 0, 0);

	/* iperf3 starts at 1: losing the first datagrams is loss too. */
	bp_udp_seq_init(&s, 1);
	CHECK_INT(add(&s, 3), BP_UDP_SEQ_NEW);
	add(&s, 4);
	check_counts(&s, 2, 4, 2, 0, 0, 0);
	CHECK_INT(add(&s, 0), BP_UDP_SEQ_LATE);	/* before the stream began */
	check_counts(&s, 3, 4, 2, 0, 0, 1);
}

static void test_reordering(void)
{
	struct bp_udp_seq s;
	uint64_t i;

	/* By one: 4 before 3. */
	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 2);
	CHECK_INT(add(&s, 4), BP_UDP_SEQ_NEW);
	check_counts(&s, 3, 4, 1, 0, 0, 0);
	CHECK_INT(add(&s, 3), BP_UDP_SEQ_OUT_OF_ORDER);
	add(&s, 5);
	check_counts(&s, 5, 5, 0, 1, 0, 0);

	/* By 100: datagram 50 arrives after 150. */
	bp_udp_seq_init(&s, 1);
	for (i = 1; i <= 200; i++) {
		if (i != 50)
			add(&s, i);
		if (i == 150) {
			check_counts(&s, 149, 150, 1, 0, 0, 0);
			CHECK_INT(add(&s, 50), BP_UDP_SEQ_OUT_OF_ORDER);
		}
	}
	check_counts(&s, 200, 200, 0, 1, 0, 0);

	/* Pairs swapped all along: every second datagram out of order, nothing lost. */
	bp_udp_seq_init(&s, 1);
	for (i = 1; i <= 1000; i += 2) {
		add(&s, i + 1);
		add(&s, i);
	}
	check_counts(&s, 1000, 1000, 0, 500, 0, 0);
}

static void test_duplicates(void)
{
	struct bp_udp_seq s;

	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 10);
	CHECK_INT(add(&s, 5), BP_UDP_SEQ_DUPLICATE);
	CHECK_INT(add(&s, 10), BP_UDP_SEQ_DUPLICATE);
	check_counts(&s, 12, 10, 0, 0, 2, 0);
	/* A duplicate of a datagram that came out of order is still a duplicate. */
	add(&s, 12);
	add(&s, 11);
	CHECK_INT(add(&s, 11), BP_UDP_SEQ_DUPLICATE);
	check_counts(&s, 15, 12, 0, 1, 3, 0);
}

/* A gap counted as loss in one interval and filled in the next: that interval's loss is -3. */
static void test_gap_fills_later(void)
{
	struct bp_udp_seq s;
	struct bp_udp_seq_counts d;

	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 5);
	add(&s, 9);
	bp_udp_seq_interval(&s, &d);
	CHECK_INT(d.received, 6);
	CHECK_INT(d.expected, 9);
	CHECK_INT(d.lost, 3);
	add(&s, 6);
	add(&s, 8);
	add(&s, 7);
	add(&s, 10);
	bp_udp_seq_interval(&s, &d);
	CHECK_INT(d.received, 4);
	CHECK_INT(d.expected, 1);
	CHECK_INT(d.lost, -3);
	CHECK_INT(d.out_of_order, 3);
	check_counts(&s, 10, 10, 0, 3, 0, 0);
	/* An empty interval is all zero. */
	bp_udp_seq_interval(&s, &d);
	CHECK_INT(d.received + d.expected + (uint64_t)d.lost + d.out_of_order, 0);
}

static void test_window(void)
{
	struct bp_udp_seq s;

	/* A jump past the window: the whole gap is lost, the bitmap forgotten. */
	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 10);
	CHECK_INT(add(&s, 5010), BP_UDP_SEQ_NEW);
	check_counts(&s, 11, 5010, 4999, 0, 0, 0);
	/* 11 is now more than 4096 below the highest: late, and still counted lost. */
	CHECK_INT(add(&s, 11), BP_UDP_SEQ_LATE);
	/* So is 10, though it came before: beyond the window nobody can tell. */
	CHECK_INT(add(&s, 10), BP_UDP_SEQ_LATE);
	check_counts(&s, 13, 5010, 4999, 0, 0, 2);
	/* A straggler inside the new window fills its gap; a repeat of it is a duplicate. */
	CHECK_INT(add(&s, 5000), BP_UDP_SEQ_OUT_OF_ORDER);
	CHECK_INT(add(&s, 5000), BP_UDP_SEQ_DUPLICATE);
	CHECK_INT(add(&s, 5010), BP_UDP_SEQ_DUPLICATE);
	check_counts(&s, 16, 5010, 4998, 1, 2, 2);

	/* The edges: with W+1 the highest, 2 is the oldest number in the window. */
	bp_udp_seq_init(&s, 1);
	add(&s, 1);
	add(&s, BP_UDP_SEQ_WINDOW + 1);
	CHECK_INT(add(&s, 2), BP_UDP_SEQ_OUT_OF_ORDER);
	CHECK_INT(add(&s, 1), BP_UDP_SEQ_LATE);
	/* A slide by less than the window forgets exactly the numbers it passes. */
	add(&s, BP_UDP_SEQ_WINDOW + 3);
	CHECK_INT(add(&s, 3), BP_UDP_SEQ_LATE);
	CHECK_INT(add(&s, 4), BP_UDP_SEQ_OUT_OF_ORDER);
	CHECK_INT(add(&s, BP_UDP_SEQ_WINDOW + 2), BP_UDP_SEQ_OUT_OF_ORDER);
	CHECK_INT(add(&s, BP_UDP_SEQ_WINDOW + 1), BP_UDP_SEQ_DUPLICATE);
	check_invariant(&s);
}

static void test_extend32(void)
{
	struct bp_udp_seq s;

	bp_udp_seq_init(&s, 1);
	CHECK_INT(bp_udp_seq_extend32(&s, 1), 1);
	CHECK_INT(bp_udp_seq_extend32(&s, 100), 100);
	bp_udp_seq_init(&s, 0xfffffff0u);
	add(&s, 0xfffffff0u);
	add(&s, 0xfffffffeu);
	CHECK_INT(bp_udp_seq_extend32(&s, 0xffffffffu), 0xffffffffULL);
	CHECK_INT(bp_udp_seq_extend32(&s, 3), 0x100000003ULL);
	add(&s, bp_udp_seq_extend32(&s, 3));
	/* A straggler from before the wrap maps below it, not 2^32 ahead. */
	CHECK_INT(bp_udp_seq_extend32(&s, 0xfffffffdu), 0xfffffffdULL);
	CHECK_INT(add(&s, bp_udp_seq_extend32(&s, 0xfffffffdu)), BP_UDP_SEQ_OUT_OF_ORDER);
	check_counts(&s, 4, 20, 16, 1, 0, 0);
}

/*
 * A hostile sender's 32-bit numbers, each half the wrap ahead of the last (the most
 * bp_udp_seq_extend32 widens forward), climb by 2^31 a datagram: without a cap the loss
 * count passed 2^63 after 2^32 such datagrams (72 minutes at 10^6/s), a signed overflow.
 * Past 2^62 they stop counting; the counts stay consistent.
 */
static void test_hostile_climb(void)
{
	struct bp_udp_seq s;
	struct bp_udp_seq_counts c;
	uint64_t n = 0, seq = 0;
	int late = 0;

	/*
	 * 2^31 + 10 datagrams of 2^31 - 1 each would take minutes: start near the cap (a jump
	 * there would be implausible, udp_seq.h), each climb 2 s after the last (1.43 s of a
	 * sender at 1.5 Gpps makes 2^31 plausible).
	 */
	bp_udp_seq_init(&s, BP_UDP_SEQ64_MAX - 3 * 0x7fffffffULL);
	bp_udp_seq_add(&s, s.first_seq, 0, 0, 0);
	n++;
	for (int i = 0; i < 8; i++) {
		seq = bp_udp_seq_extend32(&s, (uint32_t)(s.top - 1 + 0x7fffffffULL));
		if (bp_udp_seq_add(&s, seq, 0, 0, (uint64_t)(i + 1) * 2 * BP_NS_PER_SEC) ==
		    BP_UDP_SEQ_LATE)
			late++;
		n++;
	}
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(late, 5);             /* three more climbs fit below 2^62, the rest do not */
	CHECK(s.top <= BP_UDP_SEQ64_MAX + 1);
	CHECK(c.lost > 0 && (uint64_t)c.lost < BP_UDP_SEQ64_MAX);
	CHECK_INT(c.received, n);
	check_invariant(&s);
}

/* RFC 3550: J += (|D| - J) / 16, replayed here from the transit times the test made. */
static void test_jitter(void)
{
	struct bp_udp_seq s, t;
	struct bp_udp_seq_counts c;
	double want = 0.0;
	uint64_t i;

	/* Transit alternating 1 ms above and below the mean: |D| = 2 ms every time. */
	bp_udp_seq_init(&s, 1);
	for (i = 1; i <= 200; i++) {
		add_delayed(&s, i, i % 2 ? (int64_t)BP_NS_PER_MS : -(int64_t)BP_NS_PER_MS);
		if (i > 1)
			want += (2e6 - want) / 16.0;
		if (i == 2) {
			bp_udp_seq_totals(&s, &c);
			CHECK_NEAR(c.jitter_ns, 125000.0, 1e-9);	/* 2 ms / 16 */
		}
	}
	bp_udp_seq_totals(&s, &c);
	CHECK_NEAR(c.jitter_ns, want, 1e-6);
	/* It converges on |D|: 2 ms less 2 ms * (15/16)^199, about 5 ns. */
	CHECK_NEAR(c.jitter_ns, 2e6, 10.0);

	/* Only transit differences count: reordering changes nothing of a constant delay. */
	bp_udp_seq_init(&t, 1);
	for (i = 1; i <= 100; i += 2) {
		add(&t, i + 1);
		add(&t, i);
	}
	bp_udp_seq_totals(&t, &c);
	CHECK_NEAR(c.jitter_ns, 0.0, 0.0);
	/* ... and an offset between the clocks cancels: the same delays read 3 s later. */
	bp_udp_seq_init(&s, 1);
	bp_udp_seq_init(&t, 1);
	for (i = 1; i <= 50; i++) {
		int64_t extra = (int64_t)(i * i % 7) * (int64_t)BP_NS_PER_US;

		add_delayed(&s, i, extra);
		add_delayed(&t, i, extra + 3 * (int64_t)BP_NS_PER_SEC);
	}
	bp_udp_seq_totals(&s, &c);
	CHECK(c.jitter_ns > 0.0);
	want = c.jitter_ns;
	bp_udp_seq_interval(&t, &c);
	CHECK_NEAR(c.jitter_ns, want, 0.0);
}

/*
 * Issue 31: a client's 56 datagrams, then seq 0xffffffff 100 us later. Before, 4.3e9
 * counted as lost; no sender sends that many in 100 us, so it is implausible and changes
 * nothing. A real outage (a second of silence, then 1.4 M numbers on) still counts.
 */
static void test_forged_jump(void)
{
	struct bp_udp_seq s;
	struct bp_udp_seq_counts c;

	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 56);
	CHECK_INT(add_delayed(&s, 0xffffffffULL, -(int64_t)(0xffffffffULL - 57) * GAP_NS),
		  BP_UDP_SEQ_IMPLAUSIBLE);
	check_counts(&s, 57, 56, 0, 0, 0, 0);
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(c.implausible, 1);
	CHECK_INT(add(&s, 57), BP_UDP_SEQ_NEW);
	check_invariant(&s);
	/* 1 s after the first arrival: up to 4096 + 1.5e9 ahead is a sender's */
	bp_udp_seq_init(&s, 1);
	add(&s, 1);
	CHECK_INT(bp_udp_seq_add(&s, 1400000, (uint32_t)SEND_EPOCH_S + 1, 0,
				 RECV_EPOCH_NS + BP_NS_PER_SEC + DELAY_NS), BP_UDP_SEQ_NEW);
	check_counts(&s, 2, 1400000, 1399998, 0, 0, 0);
	CHECK_INT(bp_udp_seq_add(&s, 1400001 + 2 * 1500000000ULL, (uint32_t)SEND_EPOCH_S + 2, 0,
				 RECV_EPOCH_NS + 2 * BP_NS_PER_SEC + DELAY_NS),
		  BP_UDP_SEQ_IMPLAUSIBLE);
	check_invariant(&s);
}

/*
 * Forged timestamps (a sender's clock years off, then back): the transit changes by more
 * than BP_UDP_SEQ_MAX_D_NS and is kept out of the jitter, which stays the path's.
 */
static void test_forged_transit(void)
{
	struct bp_udp_seq s;
	struct bp_udp_seq_counts c;

	bp_udp_seq_init(&s, 1);
	add_range(&s, 1, 10);
	bp_udp_seq_add(&s, 11, 0xffffffffu, 999999, RECV_EPOCH_NS + 11 * GAP_NS + DELAY_NS);
	bp_udp_seq_add(&s, 12, 0, 0, RECV_EPOCH_NS + 12 * GAP_NS + DELAY_NS);
	add_range(&s, 13, 20);
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(c.jitter_excluded, 3);  /* to the forged stamp, to 0, back to the real ones */
	CHECK(c.jitter_ns < 1.0);         /* every real transit is DELAY_NS: no jitter */
	check_counts(&s, 20, 20, 0, 0, 0, 0);
	/* a change just inside the bound still counts */
	add_delayed(&s, 21, BP_UDP_SEQ_MAX_D_NS - 1000);
	bp_udp_seq_totals(&s, &c);
	CHECK_INT(c.jitter_excluded, 3);
	CHECK(c.jitter_ns > 0.5e9);
}

int main(void)
{
	test_in_order_and_gap();
	test_reordering();
	test_duplicates();
	test_gap_fills_later();
	test_window();
	test_extend32();
	test_hostile_climb();
	test_jitter();
	test_forged_jump();
	test_forged_transit();
	return tap_done();
}
