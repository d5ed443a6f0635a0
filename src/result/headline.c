#include "result/headline.h"

#include <stddef.h>
#include <string.h>

#include "result/kind.h"

const struct bp_headline *bp_headline_of(const char *test, struct bp_headline *buf)
{
	const struct bp_kind *k = bp_kind_find(test);
	size_t n = 0;

	memset(buf, 0, sizeof(*buf));
	if (!k)
		return NULL;
	/* places are 1..n without a gap (tests/unit/result/test_catalogue.c) */
	for (unsigned place = 1; place <= BP_HEADLINE_METRICS; place++)
		for (size_t i = 0; i < k->nmetrics && n < BP_HEADLINE_METRICS; i++)
			if (k->metrics[i].headline == place)
				buf->metrics[n++] = k->metrics[i].name;
	buf->latency = k->headline_latency;
	return n || buf->latency ? buf : NULL;
}
