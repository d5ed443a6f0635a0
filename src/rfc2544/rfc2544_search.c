#include "rfc2544/rfc2544_search.h"

void bp_search_init(struct bp_search *s, double max, double resolution)
{
	*s = (struct bp_search){ .lo = 0, .hi = max, .max = max, .resolution = resolution };
}

double bp_search_next(const struct bp_search *s)
{
	if (s->trials == 0)
		return s->max;
	/* Passed at the maximum: nothing above it to find. */
	if (!s->max_failed)
		return 0;
	if (s->hi - s->lo <= s->resolution)
		return 0;
	return (s->lo + s->hi) / 2;
}

void bp_search_record(struct bp_search *s, double rate, bool passed)
{
	if (s->trials++ == 0)
		s->max_failed = !passed;
	if (passed && rate > s->lo)
		s->lo = rate;
	if (!passed && rate < s->hi)
		s->hi = rate;
}

double bp_search_result(const struct bp_search *s)
{
	return s->lo;
}
