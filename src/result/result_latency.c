#include "result/result_latency.h"

#include <errno.h>
#include <inttypes.h>

#include "result/latency_histogram.h"

int bp_result_add_latency_histo(struct bp_result *r, const char *what, const struct bp_histo *h)
{
	struct bp_histo_summary s;
	struct bp_latency l;
	int rc;

	if (!h || !bp_histo_count(h))
		return 0;
	bp_histo_summarize(h, &s);
	l = (struct bp_latency){
		.what = what, .unit = "ns", .count = s.count, .min = s.min, .mean = s.mean,
		.p50 = s.p50, .p90 = s.p90, .p99 = s.p99, .p999 = s.p999, .p9999 = s.p9999,
		.max = s.max, .histogram = bp_latency_histogram_json(h),
	};
	rc = l.histogram ? bp_result_add_latency(r, &l) : -ENOMEM;
	json_decref(l.histogram);
	return rc;
}

void bp_interval_add_latency(struct bp_interval *iv, const struct bp_histo_summary *s)
{
	if (!s->count)
		return;
	bp_interval_add_metric(iv, "latency.p50", s->p50, "ns", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "latency.p99", s->p99, "ns", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "latency.max", s->max, "ns", BP_BETTER_LOWER);
}

int bp_result_warn_late_starts(struct bp_result *r, uint64_t late, uint64_t done,
			       const char *noun, const char *causes)
{
	double share = done ? 100.0 * (double)late / (double)done : 0;

	/* The share reaches every percentile above 100 - share: the lowest printed one. */
	if (!late || share < 1.0)
		return 0;
	return bp_result_add_warning(r, "late-starts", "%.1f %% of %s started over 1 ms after "
				     "their due time, so p%s and up may show the tester's wait, not "
				     "the path's (%" PRIu64 " of %" PRIu64 "; %s; latency counts from "
				     "each due time)", share > 100 ? 100 : share, noun,
				     share >= 50 ? "50" : share >= 10 ? "90" : "99", late, done,
				     causes);
}
