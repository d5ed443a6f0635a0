#include "rr/crr_search.h"

void bp_crr_search_init(struct bp_crr_search *s, double start, double max, double resolution_pct)
{
	*s = (struct bp_crr_search){ .start = start < max ? start : max, .max = max,
				     .resolution = resolution_pct / 100 };
}

double bp_crr_search_next(const struct bp_crr_search *s)
{
	if (!s->trials)
		return s->start;
	if (!s->hi) {  /* raising: everything so far passed */
		if (s->lo >= s->max)
			return 0;
		return s->lo * 2 < s->max ? s->lo * 2 : s->max;
	}
	if (!s->lo)  /* nothing passed yet: halve */
		return s->hi / 2 >= BP_CRR_SEARCH_FLOOR ? s->hi / 2 : 0;
	if (s->hi - s->lo <= s->resolution * s->lo)
		return 0;
	return (s->lo + s->hi) / 2;
}

void bp_crr_search_record(struct bp_crr_search *s, double rate, bool passed)
{
	s->trials++;
	if (passed && rate > s->lo)
		s->lo = rate;
	else if (!passed && (!s->hi || rate < s->hi))
		s->hi = rate;
}

double bp_crr_search_result(const struct bp_crr_search *s)
{
	return s->lo;
}

bool bp_crr_search_at_ceiling(const struct bp_crr_search *s)
{
	return s->trials && !s->hi;
}
