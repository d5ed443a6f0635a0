/* What disk emits (disk_report.c): sysbench's file operations and throughput. */
#include "disk/disk_metrics.h"

#define H BP_BETTER_HIGHER
#define N BP_BETTER_NONE
#define T BP_SCOPE_TOTAL
#define BOTH BP_SCOPE_BOTH

static const struct bp_metric_decl disk_metrics[] = {
	{ "reads.rate", "op/s", H, 1, BP_COMBINE_SUM, BOTH, false, "reads per second" },
	{ "writes.rate", "op/s", H, 2, BP_COMBINE_SUM, BOTH, false, "writes per second" },
	{ "fsyncs.rate", "op/s", H, 3, BP_COMBINE_SUM, BOTH, false, "fsyncs per second" },
	{ "read.bandwidth", "B/s", H, 0, BP_COMBINE_SUM, BOTH, false, "bytes read per second" },
	{ "write.bandwidth", "B/s", H, 0, BP_COMBINE_SUM, BOTH, false,
	  "bytes written per second" },
	{ "reads.count", "count", N, 0, BP_COMBINE_SUM, T, false, "reads done" },
	{ "writes.count", "count", N, 0, BP_COMBINE_SUM, T, false, "writes done" },
	{ "fsyncs.count", "count", N, 0, BP_COMBINE_SUM, T, false, "fsyncs done" },
	{ "read.bytes", "B", N, 0, BP_COMBINE_SUM, T, false, "bytes read" },
	{ "write.bytes", "B", N, 0, BP_COMBINE_SUM, T, false, "bytes written" },
	{ "elapsed", "ns", N, 0, BP_COMBINE_MAX, T, false, "how long the workload ran" },
};

const struct bp_kind bp_kind_disk = {
	.name = "disk",
	.metrics = disk_metrics,
	.nmetrics = sizeof(disk_metrics) / sizeof(disk_metrics[0]),
	.repeatable = true,
};
