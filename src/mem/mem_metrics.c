/* What mem emits (mem_report.c): memcpy's and memset's bandwidth, latency per working set. */
#include "mem/mem_metrics.h"

#define H BP_BETTER_HIGHER
#define L BP_BETTER_LOWER
#define T BP_SCOPE_TOTAL

static const struct bp_metric_decl mem_metrics[] = {
	{ "memcpy.bandwidth", "B/s", H, 1, BP_COMBINE_SUM, T, false,
	  "bytes memcpy copies per second on one core" },
	{ "memcpy.bandwidth.all", "B/s", H, 2, BP_COMBINE_SUM, T, false,
	  "bytes memcpy copies per second on all cores" },
	{ "latency.64MiB", "ns", L, 3, BP_COMBINE_MAX, T, false,
	  "a dependent load's latency over 64 MiB (past the caches)" },
	{ "memcpy.bandwidth.scaling", "percent", H, 0, BP_COMBINE_MEAN, T, false,
	  "memcpy on all cores in percent of N times one core's" },
	{ "memset.bandwidth", "B/s", H, 0, BP_COMBINE_SUM, T, false,
	  "bytes memset writes per second on one core" },
	{ "memset.bandwidth.all", "B/s", H, 0, BP_COMBINE_SUM, T, false,
	  "bytes memset writes per second on all cores" },
	{ "memset.bandwidth.scaling", "percent", H, 0, BP_COMBINE_MEAN, T, false,
	  "memset on all cores in percent of N times one core's" },
	{ "latency.*", "ns", L, 0, BP_COMBINE_MAX, T, false,
	  "latency.<size>: a dependent load's latency over that working set" },
};

const struct bp_kind bp_kind_mem = {
	.name = "mem",
	.metrics = mem_metrics,
	.nmetrics = sizeof(mem_metrics) / sizeof(mem_metrics[0]),
	.repeatable = true,
};
