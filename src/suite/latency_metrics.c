/*
 * What latency emits (latency_report.c): per probe protocol (tcp, udp) what the load added
 * to its round trip, the load's own figures, and round trips per minute. Its headline: the
 * responsiveness (round trips per minute) and what the load added to the first probe's median.
 */
#include "suite/latency_metrics.h"

static const struct bp_metric_decl latency_metrics[] = {
	BP_METRIC("*.loaded.failures", "count", LOWER, SUM, TOTAL,
	  "<proto>: probe transactions that failed under load"),
	BP_METRIC("*.added.p50", "ns", LOWER, HISTOGRAM, TOTAL,
	  "<proto>: median round trip under load less idle", .headline = 2),
	BP_METRIC("*.added.p90", "ns", LOWER, HISTOGRAM, TOTAL,
	  "<proto>: 90th percentile round trip under load less idle"),
	BP_METRIC("*.added.p99", "ns", LOWER, HISTOGRAM, TOTAL,
	  "<proto>: 99th percentile round trip under load less idle"),
	BP_METRIC("*.rpm", "rpm", HIGHER, MEAN, TOTAL,
	  "<proto>: round trips per minute under load"),
	BP_METRIC("load.bitrate", "bit/s", HIGHER, SUM, TOTAL,
	  "what the load carried, bits per second"),
	BP_METRIC("load.retransmits", "count", NONE, SUM, TOTAL,
	  "segments the load's senders sent again"),
	BP_METRIC("rpm", "rpm", HIGHER, MEAN, TOTAL,
	  "round trips per minute under load, the responsiveness figure", .headline = 1),
};

const struct bp_kind bp_kind_latency = {
	.name = "latency",
	BP_KIND_CATALOGUE(latency_metrics),
	.repeatable = true,
};
