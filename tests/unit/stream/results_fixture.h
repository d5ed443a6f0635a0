/*
 * Crafted side results for the stream report's unit tests: one stream's totals, as a side
 * would have sent them in its results. Include after proto/results.h.
 */
#ifndef BP_TESTS_STREAM_RESULTS_FIXTURE_H
#define BP_TESTS_STREAM_RESULTS_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "proto/results.h"

/* A stream of side r: bytes it sent (sender) or received over [start, end). */
static void add_stream(struct bp_net_results *r, int id, bool sender, uint64_t bytes,
		       double start, double end)
{
	struct bp_net_stream_result *s = &r->streams[r->nstreams++];

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->sender = sender;
	s->bytes = bytes;
	s->retransmits = sender ? 0 : -1;
	s->start_s = start;
	s->end_s = end;
}

#endif
