/*
 * A disk run's figures into the result: the metric names and units are the contract
 * (docs/board.md, "boardperf disk"), as sysbench prints them and in base units:
 *   reads.rate, writes.rate, fsyncs.rate            op/s   (sysbench's reads/s, ...)
 *   read.bandwidth, write.bandwidth                 B/s    (sysbench's read, MiB/s, ...)
 *   reads.count, writes.count, fsyncs.count          count
 *   read.bytes, write.bytes                          B
 *   elapsed                                          ns     (start to the last worker's end)
 * latency "read", "write" and "fsync" (each request on its own, in ns), and interval lines
 * with the rates of the operations the mode does.
 */
#ifndef BP_DISK_DISK_REPORT_H
#define BP_DISK_DISK_REPORT_H

#include <stdbool.h>

#include "disk/disk_run.h"

struct bp_interval;
struct bp_result;

/* reads/writes: whether the mode does them (interval columns). 0 or -ENOMEM. */
int bp_disk_report_run(struct bp_result *r, const struct bp_disk_run_result *res,
		       bool reads, bool writes);

/*
 * One interval line's figures into iv (its start and end too): the result's, and the live
 * line's as the interval ends. 0 or -ENOMEM.
 */
int bp_disk_interval_metrics(struct bp_interval *iv, const struct bp_disk_interval *d,
			     bool reads, bool writes);

/* Bytes per second of a run's reads or writes; NaN before anything ran. */
double bp_disk_read_rate(const struct bp_disk_run_result *res);
double bp_disk_write_rate(const struct bp_disk_run_result *res);

#endif
