#include "cpu/cpu_summary.h"

#include <math.h>

double bp_measure_rate(const struct bp_worker_measure *m, double unit_per_op)
{
	if (!m->elapsed_ns)
		return 0;
	return (double)m->ops * unit_per_op * 1e9 / (double)m->elapsed_ns;
}

void bp_item_summarise(const struct bp_worker_measure *ws, size_t n, double unit_per_op,
		       double one_core_rate, struct bp_item_summary *out)
{
	out->sum_rate = 0;
	out->min_busy_share = n ? INFINITY : NAN;
	for (size_t i = 0; i < n; i++) {
		out->sum_rate += bp_measure_rate(&ws[i], unit_per_op);
		if (ws[i].busy_share < out->min_busy_share)
			out->min_busy_share = ws[i].busy_share;
	}
	out->scaling_percent = one_core_rate > 0 && n ?
			       out->sum_rate / ((double)n * one_core_rate) * 100.0 : NAN;
}
