/*
 * The result's per-stream figures (bp_result.streams) from what both sides of a tcp or udp
 * test measured: for each stream its sender's and its receiver's bytes and bit rate over
 * that side's own span, a TCP sender's retransmits and TCP_INFO (cwnd, rtt, rttvar, pmtu),
 * a UDP receiver's loss and jitter; at the end and per interval. The shape is docs/network.md's
 * "Per-stream figures".
 */
#ifndef BP_STREAM_STREAM_STREAMS_H
#define BP_STREAM_STREAM_STREAMS_H

#include <jansson.h>

#include "proto/params.h"
#include "proto/results.h"
#include "result/result.h"

/*
 * {"end": [...], "intervals": [...]} for local (this side, the client) and remote (the
 * server; nstreams 0 when its results never arrived). The intervals are the local side's,
 * as the result's own intervals are; the last one takes in what the remote side moved
 * after it. NULL when out of memory.
 */
json_t *bp_stream_streams_json(const struct bp_net_params *np, const struct bp_net_results *local,
			       const struct bp_net_results *remote);

/* Set r's per-stream figures and say when some intervals have none; 0 or -ENOMEM. */
int bp_stream_report_streams(struct bp_result *r, const struct bp_net_params *np,
			     const struct bp_net_results *local,
			     const struct bp_net_results *remote);

#endif
