/* What disk emits (disk_report.c): sysbench's file operations and throughput. */
#include "disk/disk_metrics.h"

#include "disk/disk_text.h"

static const struct bp_metric_decl disk_metrics[] = {
	BP_METRIC("reads.rate", "op/s", HIGHER, SUM, BOTH, "reads per second", .headline = 1),
	BP_METRIC("writes.rate", "op/s", HIGHER, SUM, BOTH, "writes per second", .headline = 2),
	BP_METRIC("fsyncs.rate", "op/s", HIGHER, SUM, BOTH, "fsyncs per second", .headline = 3),
	BP_METRIC("read.bandwidth", "B/s", HIGHER, SUM, BOTH, "bytes read per second"),
	BP_METRIC("write.bandwidth", "B/s", HIGHER, SUM, BOTH,
	  "bytes written per second"),
	BP_METRIC("reads.count", "count", NONE, SUM, TOTAL, "reads done"),
	BP_METRIC("writes.count", "count", NONE, SUM, TOTAL, "writes done"),
	BP_METRIC("fsyncs.count", "count", NONE, SUM, TOTAL, "fsyncs done"),
	BP_METRIC("read.bytes", "B", NONE, SUM, TOTAL, "bytes read"),
	BP_METRIC("write.bytes", "B", NONE, SUM, TOTAL, "bytes written"),
	BP_METRIC("elapsed", "ns", NONE, MAX, TOTAL, "how long the workload ran"),
};

const struct bp_kind bp_kind_disk = {
	.name = "disk",
	BP_KIND_CATALOGUE(disk_metrics),
	.repeatable = true,
	/* sysbench fileio's layout, in place of the metric table (-v adds it back) */
	.figures = { bp_disk_text_has, bp_disk_text_print },
};
