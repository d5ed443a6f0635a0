/*
 * Per-stream figures in the results each side sends (EXCHANGE_RESULTS), beyond iperf3's
 * own per-stream keys: a TCP sender's TCP_INFO at the end ("bp_snd_cwnd" in bytes,
 * "bp_rtt_us", "bp_rttvar_us", "bp_pmtu") and what the stream moved per interval
 * ("bp_intervals": one array per interval, [bytes, retransmits, cwnd, rtt_us, rttvar_us,
 * pmtu, packets, lost, jitter_ns], integers). A stock iperf3 ignores keys it does not know
 * and sends none of them: its streams then read as unknown (0, no intervals).
 */
#ifndef BP_PROTO_RESULTS_STREAMS_H
#define BP_PROTO_RESULTS_STREAMS_H

#include <jansson.h>

#include "proto/results.h"

/* Add boardperf's keys for r->streams[i] to its object o; returns o (NULL stays NULL). */
json_t *bp_net_stream_extras_to_json(json_t *o, const struct bp_net_results *r, int i);
/* Read the TCP_INFO keys of one stream's object; values out of range read as unknown. */
void bp_net_stream_tcp_info_from_json(const json_t *o, struct bp_net_stream_result *s);
/*
 * Read every stream's "bp_intervals" into r->stream_ivs once r->streams is filled. A peer
 * whose arrays are malformed, of unequal length or too long for the series gets none.
 */
void bp_net_stream_series_from_json(const json_t *streams, struct bp_net_results *r);

/* Record k of stream i, or NULL when the series has none. */
const struct bp_net_stream_interval *bp_net_stream_interval_at(const struct bp_net_results *r,
							       int k, int i);

#endif
