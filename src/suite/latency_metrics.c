/*
 * What latency emits (latency_report.c): per probe protocol (tcp, udp) what the load added
 * to its round trip, the load's own figures, and round trips per minute. No headline yet:
 * its summary shows the first two figures it emitted.
 */
#include "suite/latency_metrics.h"

#define H BP_BETTER_HIGHER
#define L BP_BETTER_LOWER
#define N BP_BETTER_NONE
#define T BP_SCOPE_TOTAL

static const struct bp_metric_decl latency_metrics[] = {
	{ "*.loaded.failures", "count", L, 0, BP_COMBINE_SUM, T, false,
	  "<proto>: probe transactions that failed under load" },
	{ "*.added.p50", "ns", L, 0, BP_COMBINE_HISTOGRAM, T, false,
	  "<proto>: median round trip under load less idle" },
	{ "*.added.p90", "ns", L, 0, BP_COMBINE_HISTOGRAM, T, false,
	  "<proto>: 90th percentile round trip under load less idle" },
	{ "*.added.p99", "ns", L, 0, BP_COMBINE_HISTOGRAM, T, false,
	  "<proto>: 99th percentile round trip under load less idle" },
	{ "*.rpm", "rpm", H, 0, BP_COMBINE_MEAN, T, false,
	  "<proto>: round trips per minute under load" },
	{ "load.bitrate", "bit/s", H, 0, BP_COMBINE_SUM, T, false,
	  "what the load carried, bits per second" },
	{ "load.retransmits", "count", N, 0, BP_COMBINE_SUM, T, false,
	  "segments the load's senders sent again" },
	{ "rpm", "rpm", H, 0, BP_COMBINE_MEAN, T, false,
	  "round trips per minute under load, the responsiveness figure" },
};

const struct bp_kind bp_kind_latency = {
	.name = "latency",
	.metrics = latency_metrics,
	.nmetrics = sizeof(latency_metrics) / sizeof(latency_metrics[0]),
	.repeatable = true,
};
