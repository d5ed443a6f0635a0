#include "result/result_latency.h"

#include <errno.h>

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
