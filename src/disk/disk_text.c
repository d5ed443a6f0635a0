#include "disk/disk_text.h"

#include <errno.h>
#include <math.h>

/* The value column's end: sysbench's is further out; this keeps 80 columns with room. */
#define LABEL_WIDTH 28

static double value_of(const struct bp_result *r, const char *name)
{
	const struct bp_metric *m = bp_result_find_metric(r, name);

	return m ? m->value : NAN;
}

bool bp_disk_text_has(const struct bp_result *r)
{
	return isfinite(value_of(r, "reads.rate")) || isfinite(value_of(r, "writes.rate"));
}

/* "    reads/s:                  5460.00", a missing figure as sysbench's 0.00 */
static void row(FILE *out, const char *label, double v, const char *suffix)
{
	fprintf(out, "    %-*s %12.2f%s\n", LABEL_WIDTH, label, isfinite(v) ? v : 0, suffix);
}

int bp_disk_text_print(FILE *out, const struct bp_result *r)
{
	static const double mib = 1024.0 * 1024.0;
	double events = 0, elapsed = value_of(r, "elapsed");
	static const char *const counts[] = { "reads.count", "writes.count", "fsyncs.count" };

	fputs("File operations:\n", out);
	row(out, "reads/s:", value_of(r, "reads.rate"), "");
	row(out, "writes/s:", value_of(r, "writes.rate"), "");
	row(out, "fsyncs/s:", value_of(r, "fsyncs.rate"), "");
	fputs("\nThroughput:\n", out);
	row(out, "read, MiB/s:", value_of(r, "read.bandwidth") / mib, "");
	row(out, "written, MiB/s:", value_of(r, "write.bandwidth") / mib, "");
	/* sysbench counts an fsync as an event, as it counts a read or a write */
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		double v = value_of(r, counts[i]);

		events += isfinite(v) ? v : 0;
	}
	fputs("\nGeneral statistics:\n", out);
	if (isfinite(elapsed))
		fprintf(out, "    %-*s %11.4fs\n", LABEL_WIDTH, "total time:", elapsed / 1e9);
	fprintf(out, "    %-*s %12.0f\n", LABEL_WIDTH, "total number of events:", events);
	return ferror(out) ? -EIO : 0;
}
