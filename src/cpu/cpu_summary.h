/*
 * Summing what the workers of one item measured: per-worker rates, their sum (as
 * `openssl speed -multi` sums its processes) and the scaling efficiency against one core.
 */
#ifndef BP_CPU_CPU_SUMMARY_H
#define BP_CPU_CPU_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

struct bp_worker_measure {
	uint64_t ops;
	uint64_t elapsed_ns;
	double busy_share;  /* CPU time / wall time of that worker */
};

/* ops × unit_per_op per second; 0 when nothing was timed. */
double bp_measure_rate(const struct bp_worker_measure *m, double unit_per_op);

struct bp_item_summary {
	double sum_rate;         /* Σ per-worker rates */
	double min_busy_share;   /* the most starved worker */
	double scaling_percent;  /* sum ÷ (n × one-core rate) × 100; NAN without a one-core rate */
};

void bp_item_summarise(const struct bp_worker_measure *ws, size_t n, double unit_per_op,
		       double one_core_rate, struct bp_item_summary *out);

#endif
