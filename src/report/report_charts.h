/*
 * The charts of one test (internal to src/report), every run of it in each: the interval
 * series and latency percentile curves any test may have (report_series.c), and the figures
 * particular to rfc2544, cpu and mem (report_bench.c). Each writes its <figure>s; 0 or -EIO
 * / -ENOMEM.
 */
#ifndef BP_REPORT_REPORT_CHARTS_H
#define BP_REPORT_REPORT_CHARTS_H

#include <stdio.h>

#include "report/report_data.h"

/* "TEST.interval.METRIC": each interval's figure at the interval's end, per run. */
int bp_report_interval_charts(FILE *out, const struct bp_report_test *t);
/* "TEST.latency.WHAT": p50 .. p99.99 of each latency summary, per run. */
int bp_report_latency_charts(FILE *out, const struct bp_report_test *t);
/* rfc2544, cpu and mem; nothing for other tests. */
int bp_report_bench_charts(FILE *out, const struct bp_report_test *t);

#endif
