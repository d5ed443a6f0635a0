/*
 * crr --search: the highest connection rate a path sustains within the failure threshold,
 * RFC 9411's way (its §7.2 and §7.3 raise the offered rate step by step until the failure
 * ratio passes the threshold, then narrow it down). Here the first trial is at start; each
 * passing trial doubles the rate until one fails (or max passes), then the bracket between
 * the highest rate that passed and the lowest that failed is bisected until it is at most
 * resolution of the rate found. A first trial that fails halves instead, down to 1/s.
 * Pure arithmetic: the trials are the caller's (crr_search_run.c).
 */
#ifndef BP_RR_CRR_SEARCH_H
#define BP_RR_CRR_SEARCH_H

#include <stdbool.h>

/* Below this many connections/s nothing passed: the search gives up. */
#define BP_CRR_SEARCH_FLOOR 1.0

struct bp_crr_search {
	double start, max;
	double resolution;   /* relative: done once hi - lo <= resolution * lo */
	double lo;           /* highest rate that passed (0: none yet) */
	double hi;           /* lowest rate that failed (0: none yet) */
	int trials;
};

/* resolution_pct: percent of the rate found (1: within 1 %). start and max > 0. */
void bp_crr_search_init(struct bp_crr_search *s, double start, double max, double resolution_pct);
/* The rate of the next trial; 0 when the search is done. */
double bp_crr_search_next(const struct bp_crr_search *s);
void bp_crr_search_record(struct bp_crr_search *s, double rate, bool passed);
/* The highest rate that passed (0 if none did). */
double bp_crr_search_result(const struct bp_crr_search *s);
/* True when no trial failed: the answer is only max's bound, not the path's. */
bool bp_crr_search_at_ceiling(const struct bp_crr_search *s);

#endif
