/*
 * `boardperf latency`'s figures, read off its children (latency_run.c): the idle and
 * loaded round trips per probe protocol, the delay the load added at each percentile, the
 * round trips per minute under load, the throughput the load reached meanwhile and its
 * congestion control. Reads results only; it measures nothing.
 */
#ifndef BP_SUITE_LATENCY_REPORT_H
#define BP_SUITE_LATENCY_REPORT_H

#include "result/result.h"

/* The method params.rpm_method names (docs/latency.md, "Latency under load"). */
#define BP_LATENCY_RPM_METHOD \
	"60 / TM95 of the loaded round trips, in seconds: TM95 is the mean of the best 95 % " \
	"(draft-ietf-ippm-responsiveness's single-sided trimmed mean, TMP 95 %), over probes " \
	"on connections of their own (the draft's foreign probes; a boardperf rr transaction, " \
	"no handshake, no probes on the load's connections)"

/*
 * Adds to r, from its children: latency "idle.tcp", "loaded.tcp" (and udp), metrics
 * "tcp.added.p50|p90|p99" (loaded minus idle, ns), "tcp.rpm", "tcp.loaded.failures" (and
 * udp), "rpm" (tcp's, else udp's), "load.bitrate" (the receivers' sum, bit/s),
 * "load.retransmits", params.congestion_used (the load's senders'). 0 or -ENOMEM.
 */
int bp_latency_report(struct bp_result *r);

#endif
