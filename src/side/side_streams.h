/*
 * Per-stream figures of one side, recorded where its totals and intervals are made
 * (stream_side.c calls these three hooks): what each stream moved in each interval, and a
 * TCP sender's TCP_INFO at each interval's end and when the test ended. They land in
 * s->res (streams[i] and stream_ivs), travel in the results exchange (results_streams.h)
 * and become the result's "streams" (stream_streams.h).
 */
#ifndef BP_STREAM_SIDE_STREAMS_H
#define BP_STREAM_SIDE_STREAMS_H

#include "side/stream_side.h"

/* When the side starts: the counters every first interval is measured from. */
void bp_side_streams_start(struct bp_stream_side *s);
/* Right after the side closed an interval: each stream's share of it. */
void bp_side_streams_mark(struct bp_stream_side *s);
/* After the side filled its totals: each TCP sender's TCP_INFO as the test ended. */
void bp_side_streams_stop(struct bp_stream_side *s);

#endif
