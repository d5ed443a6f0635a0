/*
 * The RFC 2544 §26.1 throughput search: the highest offered rate at which a trial loses
 * nothing (or no more than an accepted loss), found by binary search between 0 and the
 * medium's maximum, starting with a trial at the maximum as the RFC asks.
 */
#ifndef BP_RFC2544_RFC2544_SEARCH_H
#define BP_RFC2544_RFC2544_SEARCH_H

#include <stdbool.h>

struct bp_search {
	double lo;          /* highest rate that passed (0: none yet) */
	double hi;          /* lowest rate that failed (the maximum until one fails) */
	double max;
	double resolution;  /* stop once hi - lo is this small */
	int trials;
	bool max_failed;    /* the first trial (at max) failed */
};

void bp_search_init(struct bp_search *s, double max, double resolution);
/* The rate to try next; 0 when the search is done. */
double bp_search_next(const struct bp_search *s);
void bp_search_record(struct bp_search *s, double rate, bool passed);
/* The answer: the highest rate that passed (0 if none did). */
double bp_search_result(const struct bp_search *s);

#endif
