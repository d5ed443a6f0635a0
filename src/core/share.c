#include "core/share.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int bp_share_parse(const char *s, struct bp_share *out, char *err, size_t errlen)
{
	char *end;
	long k, n;

	k = strtol(s, &end, 10);
	if (end != s && *end == '/' && end[1] >= '0' && end[1] <= '9') {
		n = strtol(end + 1, &end, 10);
		if (!*end && k >= 1 && n >= k && n <= BP_SHARE_MAX && s[0] >= '0' && s[0] <= '9') {
			*out = (struct bp_share){ (int)k, (int)n };
			return 0;
		}
	}
	snprintf(err, errlen, "--share '%s': expected K/N with 1 <= K <= N <= %d (this tester's "
		 "share of a rate N testers offer together)", s, BP_SHARE_MAX);
	return -EINVAL;
}

int bp_share_check(const struct bp_share *s, const char *share_text, double rate,
		   const char *option, char *err, size_t errlen)
{
	if (!s->n || floor(rate / s->n) >= 1)
		return 0;
	snprintf(err, errlen, "--share %s: %s %.0f in %d shares leaves some at 0; expected at "
		 "least %d", share_text, option, rate, s->n, s->n);
	return -EINVAL;
}

double bp_share_of(const struct bp_share *s, double rate)
{
	if (!s->n)
		return rate;
	/* the whole units up to share k less those up to share k - 1: they add up to the rate */
	return floor(rate * s->k / s->n) - floor(rate * (s->k - 1) / s->n);
}
