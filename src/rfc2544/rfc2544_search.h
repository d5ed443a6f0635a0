/*
 * The RFC 2544 §26.1 throughput search: the highest offered rate at which a trial loses
 * nothing (or no more than an accepted loss), found by binary search between 0 and the
 * medium's maximum, starting with a trial at the maximum as the RFC asks.
 *
 * The tester's own egress can be the narrowest point (a 100 Mbit/s board NIC in front of a
 * gigabit device, a shaped qdisc on the tester's interface): its send queue then refuses
 * what the link cannot take, so a trial offers less than its target and loses nothing. Such
 * a trial is not a failure of the device: the rate the path carried is a rate that passed,
 * and no target above what the egress carried can be offered, so the search's upper end
 * comes down to it and the next trial confirms it (bp_search_record_short).
 *
 * A trial that lost tells more than "too fast": what arrived is what the device forwarded
 * while overloaded, near its limit. The next trial goes just below that rate
 * (bp_search_note_delivered) instead of halfway down, and one that passes is followed by
 * one a resolution above it, which ends the search when it fails. The bracket (highest
 * pass, lowest failure) stays the bisection's, so the answer is the same rate, in 3-4
 * trials instead of 9-10 at 1 % (a device with a hard limit, a shaped link). A hint that
 * fails moves 4 times further below what arrived, at most 4 times, then bisection alone.
 */
#ifndef BP_RFC2544_RFC2544_SEARCH_H
#define BP_RFC2544_RFC2544_SEARCH_H

#include <stdbool.h>

/* A trial offered its target when it sent at least this share of it. */
#define BP_SEARCH_OFFERED_SHARE 0.99
/*
 * When nothing passes, the search gives up once its upper end is below this share of where
 * it started (the maximum, or what the path carried when the tester could not offer it):
 * 10 halvings, 10 Mbit/s of 10 Gbit/s, answering 0. A resolution relative to the rate found
 * has no end of its own when no rate is found.
 */
#define BP_SEARCH_FLOOR_SHARE (1.0 / 1024)

struct bp_search {
	double clean_lo;    /* highest target that passed, offered in full (0: none yet) */
	double short_lo;    /* the most a short trial without loss carried, above clean_lo
			     * (0: none, or a trial at or below it lost since) */
	bool short_tried;   /* a trial at short_lo's rate has been run */
	double hi;          /* lowest rate that failed or could not be offered (max until then) */
	double max;
	double top;         /* the upper end after the first trial: where bisection starts */
	double resolution;  /* stop once hi - lo is this share of lo (0.01: 1 %) */
	double egress;      /* the most a short trial carried without loss (0: none): no target
			     * above it (plus the resolution) is tried */
	int trials;
	bool max_passed;    /* the first trial (at max) passed, offered in full */
	double probe;       /* the next rate a hint asks for (0: bisect) */
	bool probe_above;   /* ... one resolution above a hint's trial that passed */
	int hints;          /* hints taken from failed trials so far */
};

/* resolution: a share of the rate found (0.01 for 1 %), > 0. */
void bp_search_init(struct bp_search *s, double max, double resolution);
/* The rate to try next; 0 when the search is done. */
double bp_search_next(const struct bp_search *s);
/* A trial that offered its target in full: it passed (loss within the accepted) or not. */
void bp_search_record(struct bp_search *s, double rate, bool passed);
/*
 * A trial the tester could not offer at its target (offered < BP_SEARCH_OFFERED_SHARE of
 * it), in which the path carried `carried` (the rate the receiver saw, or what was offered
 * if less). Without loss, `carried` passed and the egress can offer no more than about it:
 * the search's upper end falls to it and the next trial is at it. With loss, the path lost
 * at `carried`, and that rate failed.
 */
void bp_search_record_short(struct bp_search *s, double target, double carried,
			    bool lossless);
/*
 * After bp_search_record of a trial at `rate` that failed: `delivered` is the rate the
 * receiver got (frames received over sent, times the rate offered). Sets the next trial
 * below it; ignored when it is not between 0 and `rate`, or after BP_SEARCH_HINTS hints.
 */
#define BP_SEARCH_HINTS 4
void bp_search_note_delivered(struct bp_search *s, double rate, double delivered);
/* The answer: the highest rate that passed (0 if none did). */
double bp_search_result(const struct bp_search *s);
/* True when the answer is bounded by what the tester's own egress could offer. */
bool bp_search_egress_bound(const struct bp_search *s);

#endif
