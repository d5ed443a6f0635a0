/* Turning what both sides of a TCP test measured into a result (metrics, intervals, CPU). */
#ifndef BP_STREAM_STREAM_REPORT_H
#define BP_STREAM_STREAM_REPORT_H

#include "stream/stream_client.h"
#include "result/result.h"

/* One side's CPU use as the result's "cpu" tree shows it (null without streams). */
json_t *bp_net_side_cpu_json(const struct bp_net_results *res);
/* tester-cpu-bound for a side whose busiest data worker had most of its core. */
void bp_net_cpu_warnings(struct bp_result *r, const struct bp_net_results *local,
			 const struct bp_net_results *remote);

/*
 * What this side alone knows of its interval i the moment it ends, for the live line
 * (iperf3 prints the same while it runs: a sender its bytes, rate, retransmits and cwnd;
 * a receiver its bytes and rate, and for UDP jitter and lost of the datagrams it expected).
 * iv is zeroed by the caller and freed with bp_interval_clear.
 */
void bp_stream_local_interval(struct bp_interval *iv, const struct bp_net_params *np,
			      const struct bp_net_results *local, int i);

int bp_stream_report(struct bp_result *r, const struct bp_net_params *np,
		  const struct bp_stream_outcome *out);

/* Run a client test and report what both sides measured, also after a late failure. */
int bp_net_run_and_report(const struct bp_stream_client_opts *o, struct bp_result *r,
			  char *err, size_t errlen);

#endif
