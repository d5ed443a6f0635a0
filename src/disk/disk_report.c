#include "disk/disk_report.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "result/result.h"
#include "stats/histogram.h"

static double per_second(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : NAN;
}

double bp_disk_read_rate(const struct bp_disk_run_result *res)
{
	return per_second(res->count[BP_DISK_N_READ_BYTES], res->elapsed_ns);
}

double bp_disk_write_rate(const struct bp_disk_run_result *res)
{
	return per_second(res->count[BP_DISK_N_WRITE_BYTES], res->elapsed_ns);
}

struct figure {
	const char *name;
	enum bp_disk_count count;
	const char *unit;
};

/* Per-second figures, as sysbench's "File operations" and "Throughput" blocks. */
static const struct figure rates[] = {
	{ "reads.rate", BP_DISK_N_READS, "op/s" },
	{ "writes.rate", BP_DISK_N_WRITES, "op/s" },
	{ "fsyncs.rate", BP_DISK_N_SYNCS, "op/s" },
	{ "read.bandwidth", BP_DISK_N_READ_BYTES, "B/s" },
	{ "write.bandwidth", BP_DISK_N_WRITE_BYTES, "B/s" },
};

static const struct figure totals[] = {
	{ "reads.count", BP_DISK_N_READS, "count" },
	{ "writes.count", BP_DISK_N_WRITES, "count" },
	{ "fsyncs.count", BP_DISK_N_SYNCS, "count" },
	{ "read.bytes", BP_DISK_N_READ_BYTES, "B" },
	{ "write.bytes", BP_DISK_N_WRITE_BYTES, "B" },
};

#define NFIGURES (sizeof(rates) / sizeof(rates[0]))

static int report_totals(struct bp_result *r, const struct bp_disk_run_result *res)
{
	int rc = 0;

	for (size_t i = 0; i < NFIGURES && !rc; i++) {
		double v = per_second(res->count[rates[i].count], res->elapsed_ns);

		if (isfinite(v))
			rc = bp_result_add_metric(r, rates[i].name, v, rates[i].unit,
						  BP_BETTER_HIGHER);
	}
	for (size_t i = 0; i < NFIGURES && !rc; i++)
		rc = bp_result_add_metric(r, totals[i].name, (double)res->count[totals[i].count],
					  totals[i].unit, BP_BETTER_NONE);
	if (!rc)
		rc = bp_result_add_metric(r, "elapsed", (double)res->elapsed_ns, "ns",
					  BP_BETTER_NONE);
	return rc;
}

static int report_latency(struct bp_result *r, const char *what, const struct bp_histo *h)
{
	struct bp_latency l = { .what = what, .unit = "ns" };

	l.count = bp_histo_count(h);
	if (!l.count)
		return 0;
	l.min = (double)bp_histo_min(h);
	l.mean = bp_histo_mean(h);
	l.p50 = (double)bp_histo_percentile(h, 50);
	l.p90 = (double)bp_histo_percentile(h, 90);
	l.p99 = (double)bp_histo_percentile(h, 99);
	l.p999 = (double)bp_histo_percentile(h, 99.9);
	l.p9999 = (double)bp_histo_percentile(h, 99.99);
	l.max = (double)bp_histo_max(h);
	return bp_result_add_latency(r, &l);
}

/* Whether an interval column belongs to what the mode does. */
static bool column_wanted(enum bp_disk_count c, bool reads, bool writes)
{
	if (c == BP_DISK_N_READS || c == BP_DISK_N_READ_BYTES)
		return reads;
	return writes; /* writes and fsyncs: only modes that write sync */
}

int bp_disk_interval_metrics(struct bp_interval *iv, const struct bp_disk_interval *d,
			     bool reads, bool writes)
{
	uint64_t ns = d->end_ns - d->start_ns;

	iv->start = (double)d->start_ns / 1e9;
	iv->end = (double)d->end_ns / 1e9;
	for (size_t f = 0; f < NFIGURES; f++) {
		double v = per_second(d->count[rates[f].count], ns);

		if (column_wanted(rates[f].count, reads, writes) && isfinite(v) &&
		    bp_interval_add_metric(iv, rates[f].name, v, rates[f].unit, BP_BETTER_HIGHER))
			return -ENOMEM;
	}
	return 0;
}

static int report_intervals(struct bp_result *r, const struct bp_disk_run_result *res,
			    bool reads, bool writes)
{
	for (size_t i = 0; i < res->nintervals; i++) {
		struct bp_interval *iv = bp_result_add_interval(r, 0, 0);

		if (!iv || bp_disk_interval_metrics(iv, &res->intervals[i], reads, writes))
			return -ENOMEM;
	}
	return 0;
}

int bp_disk_report_run(struct bp_result *r, const struct bp_disk_run_result *res,
		       bool reads, bool writes)
{
	static const char *const what[] = { "read", "write", "fsync" };
	int rc = report_totals(r, res);

	for (int op = 0; op < 3 && !rc; op++)
		rc = report_latency(r, what[op], res->lat[op]);
	if (!rc && report_intervals(r, res, reads, writes))
		rc = -ENOMEM;
	return rc;
}
