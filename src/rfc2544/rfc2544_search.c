#include "rfc2544/rfc2544_search.h"

/*
 * A bound on trials whatever the measurements do: a bisection to 1 % of the rate found from
 * a 1024:1 bracket takes 17, and each confirmation of an egress figure adds one.
 */
#define MAX_TRIALS 40

void bp_search_init(struct bp_search *s, double max, double resolution)
{
	*s = (struct bp_search){ .hi = max, .max = max, .resolution = resolution };
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static double lower_bound(const struct bp_search *s)
{
	return max2(s->clean_lo, s->short_lo);
}

/* The search's upper end: the lowest rate that failed or could not be offered, and no more
 * than the egress was seen to carry (no target above it can be offered). */
static double upper_bound(const struct bp_search *s)
{
	double e = s->egress * (1 + s->resolution);

	return s->egress > 0 && e < s->hi ? e : s->hi;
}

double bp_search_next(const struct bp_search *s)
{
	double lo = lower_bound(s), hi = upper_bound(s);

	if (s->trials == 0)
		return s->max;
	/* Passed at the maximum: nothing above it to find. */
	if (s->max_passed || s->trials >= MAX_TRIALS)
		return 0;
	/*
	 * What the egress carried passed, but no trial has asked for that rate yet: ask, so
	 * that the answer is a rate a trial offered in full (RFC 2544 §26.1's definition).
	 */
	if (s->short_lo > s->clean_lo && !s->short_tried && s->short_lo < hi)
		return s->short_lo;
	if (lo > 0 ? hi <= lo * (1 + s->resolution) : hi <= s->top * BP_SEARCH_FLOOR_SHARE)
		return 0;
	if (s->probe > lo && s->probe < hi)
		return s->probe;
	return (lo + hi) / 2;
}

static void lower_hi(struct bp_search *s, double rate)
{
	if (rate < s->hi)
		s->hi = rate;
	/* A trial at or below the unconfirmed figure lost: the figure was luck. */
	if (s->short_lo >= rate)
		s->short_lo = 0;
}

/* The first trial sets the range the bisection works in: the maximum, or what the path
 * carried when the tester could not offer the maximum. */
static void note_first(struct bp_search *s)
{
	if (s->trials == 1)
		s->top = upper_bound(s);
}

void bp_search_record(struct bp_search *s, double rate, bool passed)
{
	/* A hint's trial that passed: next, one a resolution above it, which decides (and
	 * when that passes too, bisection goes on above it). */
	bool hinted = s->probe > 0 && rate == s->probe && !s->probe_above;

	s->probe = 0;
	s->probe_above = false;
	if (s->trials++ == 0)
		s->max_passed = passed;
	if (!passed) {
		lower_hi(s, rate);
	} else {
		s->clean_lo = max2(s->clean_lo, rate);
		if (s->short_lo <= s->clean_lo)
			s->short_lo = 0;
		if (hinted && rate >= lower_bound(s)) {
			s->probe = rate * (1 + s->resolution);
			s->probe_above = true;
		}
	}
	note_first(s);
}

void bp_search_note_delivered(struct bp_search *s, double rate, double delivered)
{
	/* Half a resolution below what arrived, then 2, 8 and 32 times that. */
	double margin = s->resolution / 2;

	if (!(delivered > 0 && delivered < rate) || s->hints >= BP_SEARCH_HINTS)
		return;
	for (int i = 0; i < s->hints; i++)
		margin *= 4;
	s->hints++;
	if (margin < 1) {
		s->probe = delivered * (1 - margin);
		s->probe_above = false;
	}
}

void bp_search_record_short(struct bp_search *s, double target, double carried,
			    bool lossless)
{
	/* A trial at the unconfirmed figure that again fell short: it needs no other. */
	bool confirming = s->short_lo > 0 && target == s->short_lo;

	s->trials++;
	s->probe = 0;
	s->probe_above = false;
	if (target < s->hi)
		s->hi = target;
	if (!lossless || carried <= 0) {
		lower_hi(s, carried > 0 ? carried : target);
		note_first(s);
		return;
	}
	/*
	 * The most a short trial carried: what the egress manages when the tester keeps it
	 * busy. A trial in which the tester's CPU fell behind carries less, so it neither
	 * lowers this figure nor, being a rate that passed too, the answer.
	 */
	if (carried > s->egress)
		s->egress = carried;
	if (confirming)
		s->short_tried = true;
	if (carried > s->short_lo && carried > s->clean_lo) {
		s->short_lo = carried;
		s->short_tried = false;
	}
	note_first(s);
}

double bp_search_result(const struct bp_search *s)
{
	return lower_bound(s);
}

bool bp_search_egress_bound(const struct bp_search *s)
{
	double r = lower_bound(s);

	return s->egress > 0 && r > 0 && r * (1 + s->resolution) >= s->egress;
}
