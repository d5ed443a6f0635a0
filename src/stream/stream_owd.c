#include "stream/stream_owd.h"

#include <stdio.h>

#include "board/clock_sync.h"
#include "stats/welford.h"

static int add(struct bp_result *r, const char *prefix, const char *name, double v)
{
	char full[96];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	return bp_result_add_metric(r, full, v, "ns", BP_BETTER_LOWER);
}

/* The clock facts behind the figure: what this host's kernel says of its clock. */
static void clock_warning(struct bp_result *r, const char *prefix, const struct bp_welford *w)
{
	struct bp_clock_sync c;
	int synced;

	bp_clock_sync_read("/", &c);
	synced = bp_clock_sync_synchronized(&c);
	if (synced == 0)
		bp_result_add_warning(r, "clock-unsynced", "%sthis host's clock is not "
				      "synchronised (the kernel's STA_UNSYNC%s%s): the one-way "
				      "delay holds the two clocks' offset too", prefix,
				      c.n_daemons ? "; running: " : ", no time daemon running",
				      c.n_daemons ? c.daemons[0] : "");
	else if (synced > 0 && (double)c.maxerror_us * 1e3 > BP_OWD_CLOCK_ERROR_SHARE * w->mean)
		bp_result_add_warning(r, "clock-unsynced", "%sthis host's clock may be off by up "
				      "to %.3f ms (the kernel's maxerror), more than %.0f %% of the "
				      "%.3f ms one-way delay", prefix, (double)c.maxerror_us / 1e3,
				      BP_OWD_CLOCK_ERROR_SHARE * 100, w->mean / 1e6);
}

int bp_report_owd(struct bp_result *r, const char *prefix, const struct bp_welford *w,
		  bool same_clock, bool server_reads)
{
	int rc;

	if (!w->n)
		return 0;
	rc = add(r, prefix, "owd.mean", w->mean);
	if (!rc)
		rc = add(r, prefix, "owd.min", w->min);
	if (!rc)
		rc = add(r, prefix, "owd.max", w->max);
	if (!rc)
		rc = add(r, prefix, "owd.stdev", bp_welford_stddev(w));
	if (w->min < 0)
		bp_result_add_warning(r, "clock-unsynced", "%sa one-way delay reads negative "
				      "(least %.3f ms): the server's clock is %s this host's by at "
				      "least that much, and every figure holds the offset", prefix,
				      w->min / 1e6, server_reads ? "behind" : "ahead of");
	else if (!same_clock)
		clock_warning(r, prefix, w);
	return rc;
}
