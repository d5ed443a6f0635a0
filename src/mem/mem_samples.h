/*
 * A series of timed samples (the latency chase's time per load) and its median. The
 * machines we run on are shared and noisy: a sample that a timer tick or another process
 * cut into lands in the tail, and the median leaves it there. Latency is a property of a
 * load, not a throughput, so the samples a preemption spoiled are rightly left out.
 */
#ifndef BP_MEM_MEM_SAMPLES_H
#define BP_MEM_MEM_SAMPLES_H

#include <stddef.h>

struct bp_mem_samples {
	double *v;
	size_t n, cap;
};

/* 0 or -ENOMEM (the series keeps what it had). */
int bp_mem_samples_push(struct bp_mem_samples *s, double v);

/* The median (mean of the middle two for an even count); NAN when empty. Sorts s->v. */
double bp_mem_samples_median(struct bp_mem_samples *s);

void bp_mem_samples_free(struct bp_mem_samples *s);

#endif
