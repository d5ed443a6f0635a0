/* What mem emits (mem_report.c): memcpy's and memset's bandwidth, latency per working set. */
#include "mem/mem_metrics.h"

static const struct bp_metric_decl mem_metrics[] = {
	BP_METRIC("memcpy.bandwidth", "B/s", HIGHER, SUM, TOTAL,
	  "bytes memcpy copies per second on one core", .headline = 1),
	BP_METRIC("memcpy.bandwidth.all", "B/s", HIGHER, SUM, TOTAL,
	  "bytes memcpy copies per second on all cores", .headline = 2),
	BP_METRIC("latency.64MiB", "ns", LOWER, MAX, TOTAL,
	  "a dependent load's latency over 64 MiB (past the caches)", .headline = 3),
	BP_METRIC("memcpy.bandwidth.scaling", "percent", HIGHER, MEAN, TOTAL,
	  "memcpy on all cores in percent of N times one core's"),
	BP_METRIC("memset.bandwidth", "B/s", HIGHER, SUM, TOTAL,
	  "bytes memset writes per second on one core"),
	BP_METRIC("memset.bandwidth.all", "B/s", HIGHER, SUM, TOTAL,
	  "bytes memset writes per second on all cores"),
	BP_METRIC("memset.bandwidth.scaling", "percent", HIGHER, MEAN, TOTAL,
	  "memset on all cores in percent of N times one core's"),
	BP_METRIC("latency.*", "ns", LOWER, MAX, TOTAL,
	  "latency.<size>: a dependent load's latency over that working set"),
};

/* "latency.16KiB": the working set's size */
static const struct bp_label_part mem_label_parts[] = {
	{ "", "size", true },
};

const struct bp_kind bp_kind_mem = {
	.name = "mem",
	BP_KIND_CATALOGUE(mem_metrics),
	.repeatable = true,
	BP_KIND_LABEL_PARTS(mem_label_parts),
	.charts = BP_CHARTS_MEM,
};
