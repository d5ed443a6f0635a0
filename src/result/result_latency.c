#include "result/result_latency.h"

int bp_result_add_latency_summary(struct bp_result *r, const char *what,
				  const struct bp_histo_summary *s)
{
	struct bp_latency l = {
		.what = what, .unit = "ns", .count = s->count, .min = s->min,
		.mean = s->mean, .p50 = s->p50, .p90 = s->p90, .p99 = s->p99, .p999 = s->p999,
		.p9999 = s->p9999, .max = s->max,
	};

	return s->count ? bp_result_add_latency(r, &l) : 0;
}

void bp_interval_add_latency(struct bp_interval *iv, const struct bp_histo_summary *s)
{
	if (!s->count)
		return;
	bp_interval_add_metric(iv, "latency.p50", s->p50, "ns", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "latency.p99", s->p99, "ns", BP_BETTER_LOWER);
	bp_interval_add_metric(iv, "latency.max", s->max, "ns", BP_BETTER_LOWER);
}
