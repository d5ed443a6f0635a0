#include "side/udp_seq.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/clock.h"
#include "io/udp_header.h"

#define WORDS (BP_UDP_SEQ_WINDOW / 64)
#define HALF_WRAP (1ULL << 31)
#define WRAP (1ULL << 32)

_Static_assert((BP_UDP_SEQ_WINDOW & (BP_UDP_SEQ_WINDOW - 1)) == 0,
	       "the window is indexed by seq modulo its size");

void bp_udp_seq_init(struct bp_udp_seq *s, uint64_t first_seq)
{
	memset(s, 0, sizeof(*s));
	s->first_seq = first_seq;
	s->top = first_seq;
}

static uint64_t slot_bit(uint64_t seq)
{
	return 1ULL << (seq % 64);
}

static uint64_t *slot_word(struct bp_udp_seq *s, uint64_t seq)
{
	return &s->seen[(seq % BP_UDP_SEQ_WINDOW) / 64];
}

/*
 * Slide the window up to seq (> highest seen): the slots of top..seq held numbers a window
 * below, which leave it now; they start out as "not arrived" for their new numbers.
 */
static void advance_to(struct bp_udp_seq *s, uint64_t seq)
{
	uint64_t x;

	s->c.lost += (int64_t)(seq - s->top);
	if (seq - s->top >= BP_UDP_SEQ_WINDOW)
		memset(s->seen, 0, sizeof(s->seen));
	else
		for (x = s->top; x < seq; x++)
			*slot_word(s, x) &= ~slot_bit(x);
	s->top = seq + 1;
}

/* The farthest jump ahead a sender could make by arrival_ns (see "Forged numbers"). */
static uint64_t max_jump(const struct bp_udp_seq *s, uint64_t arrival_ns)
{
	uint64_t us = arrival_ns > s->first_arrival_ns ?
		      (arrival_ns - s->first_arrival_ns) / BP_NS_PER_US : 0;

	/* 2^40 us is 12 days: far past any test, and the product stays below 2^51 */
	if (us > (1ULL << 40))
		us = 1ULL << 40;
	return BP_UDP_SEQ_WINDOW + us * BP_UDP_SEQ_MAX_PER_US;
}

static enum bp_udp_seq_class classify(struct bp_udp_seq *s, uint64_t seq, uint64_t arrival_ns)
{
	uint64_t *w = slot_word(s, seq);

	/*
	 * No real stream reaches 2^62 (97,000 years at a million datagrams a second), but a
	 * hostile sender's 32-bit numbers, widened by bp_udp_seq_extend32, can climb by 2^31 a
	 * datagram: past this cap they no longer count, so that lost (and expected) stay far
	 * from overflowing whatever the peer sends.
	 */
	if (seq > BP_UDP_SEQ64_MAX) {
		s->c.late++;
		return BP_UDP_SEQ_LATE;
	}
	if (seq >= s->top && seq - s->top > max_jump(s, arrival_ns)) {
		s->c.implausible++;
		return BP_UDP_SEQ_IMPLAUSIBLE;
	}
	if (seq >= s->top) {
		advance_to(s, seq);
		*w |= slot_bit(seq);
		return BP_UDP_SEQ_NEW;
	}
	/* Below first_seq, or so far below the highest that its slot now holds another number. */
	if (seq < s->first_seq || s->top - seq > BP_UDP_SEQ_WINDOW) {
		s->c.late++;
		return BP_UDP_SEQ_LATE;
	}
	if (*w & slot_bit(seq)) {
		s->c.duplicates++;
		return BP_UDP_SEQ_DUPLICATE;
	}
	*w |= slot_bit(seq);
	s->c.out_of_order++;
	s->c.lost--;
	return BP_UDP_SEQ_OUT_OF_ORDER;
}

/* RFC 3550 A.8, in ns; the first datagram only sets the reference transit time. */
static void update_jitter(struct bp_udp_seq *s, uint32_t sent_sec, uint32_t sent_usec,
			  uint64_t arrival_ns)
{
	uint64_t sent_ns = (uint64_t)sent_sec * BP_NS_PER_SEC + (uint64_t)sent_usec * BP_NS_PER_US;
	/* The clocks differ by an arbitrary offset: the transit may well be "negative". */
	int64_t transit = (int64_t)(arrival_ns - sent_ns);

	if (s->have_transit) {
		int64_t diff;
		/* forged stamps can put the difference past int64's range: excluded too */
		bool wild = __builtin_sub_overflow(transit, s->prev_transit_ns, &diff);
		double d = fabs((double)diff);

		if (wild || d > (double)BP_UDP_SEQ_MAX_D_NS)
			s->c.jitter_excluded++;
		else
			s->c.jitter_ns += (d - s->c.jitter_ns) / 16.0;
	} else {
		s->first_arrival_ns = arrival_ns;
	}
	s->prev_transit_ns = transit;
	s->have_transit = 1;
}

enum bp_udp_seq_class bp_udp_seq_add(struct bp_udp_seq *s, uint64_t seq, uint32_t sent_sec,
				     uint32_t sent_usec, uint64_t arrival_ns)
{
	s->c.received++;
	update_jitter(s, sent_sec, sent_usec, arrival_ns);
	return classify(s, seq, arrival_ns);
}

uint64_t bp_udp_seq_extend32(const struct bp_udp_seq *s, uint32_t wire_seq)
{
	uint64_t ref = s->top > s->first_seq ? s->top - 1 : s->first_seq;
	uint64_t cand = (ref & ~(WRAP - 1)) | wire_seq;

	if (cand + HALF_WRAP < ref)
		return cand + WRAP;
	if (cand > ref + HALF_WRAP && cand >= WRAP)
		return cand - WRAP;
	return cand;
}

void bp_udp_seq_totals(const struct bp_udp_seq *s, struct bp_udp_seq_counts *out)
{
	*out = s->c;
	out->expected = s->top - s->first_seq;
}

void bp_udp_seq_interval(struct bp_udp_seq *s, struct bp_udp_seq_counts *out)
{
	struct bp_udp_seq_counts now;

	bp_udp_seq_totals(s, &now);
	out->received = now.received - s->mark.received;
	out->expected = now.expected - s->mark.expected;
	out->lost = now.lost - s->mark.lost;
	out->out_of_order = now.out_of_order - s->mark.out_of_order;
	out->duplicates = now.duplicates - s->mark.duplicates;
	out->late = now.late - s->mark.late;
	out->implausible = now.implausible - s->mark.implausible;
	out->jitter_excluded = now.jitter_excluded - s->mark.jitter_excluded;
	out->jitter_ns = now.jitter_ns;
	s->mark = now;
}
