/*
 * Fuzz target for the request of a /metrics scrape (src/server/metrics_request.c): the
 * input whole, then as it would arrive a byte at a time. Besides crashes, it aborts when the
 * answer depends on how the bytes came: the first prefix that is whole must get the answer
 * the whole input gets, and no status outside the five the listener writes may come out.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "server/metrics_request.h"

static bool known(int status)
{
	return status == 200 || status == 400 || status == 404 || status == 405 || status == 431;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct bp_metrics_request whole, part;
	bool done = bp_metrics_request_parse(buf, size, &whole);

	if (done && !known(whole.status))
		abort();
	for (size_t k = 0; k <= size && k <= BP_METRICS_REQUEST_MAX; k++) {
		if (!bp_metrics_request_parse(buf, k, &part))
			continue;
		if (!done || part.status != whole.status ||
		    (part.status == 200 && part.format != whole.format))
			abort();
		break;
	}
	return 0;
}
