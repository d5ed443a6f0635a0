/*
 * Time a repeated operation on the monotonic clock. Operations run in batches whose size
 * adapts so that each batch takes about BP_OP_BATCH_NS: long enough that reading the clock
 * costs nothing measurable (a clock read is ~25 ns on x86, ~170 ns under qemu-user), short
 * enough to stop close to the deadline. The rate is ops / (time at the end of the last
 * batch - start), so a slow operation (RSA-4096 on a Cortex-A7: a few per second) needs no
 * minimum count to be exact.
 */
#ifndef BP_CPU_OP_TIMER_H
#define BP_CPU_OP_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpuacct.h"

#define BP_OP_BATCH_NS 1000000ULL /* 1 ms */

/* Performs n operations; returns 0 or a negative errno. */
typedef int (*bp_op_fn)(void *ctx, uint64_t n);

struct bp_timed_run {
	uint64_t ops;
	uint64_t elapsed_ns;
	struct bp_cpu_usage cpu;  /* this thread's CPU over the timed part */
	bool interrupted;         /* stopped early by SIGINT/SIGTERM */
};

/*
 * The next batch size: scale the last one toward target_ns, at most doubling (a batch that
 * ran fast because of a cache effect must not make the next one overshoot), at least 1,
 * and no more than fits in remaining_ns at the observed speed.
 */
uint64_t bp_op_next_batch(uint64_t batch, uint64_t batch_ns, uint64_t target_ns,
			  uint64_t remaining_ns);

/* Run fn for warmup_ns untimed, then for duration_ns timed. Returns 0 or fn's error. */
int bp_op_warmup(bp_op_fn fn, void *ctx, uint64_t warmup_ns, uint64_t *batch);
int bp_op_time(bp_op_fn fn, void *ctx, uint64_t duration_ns, uint64_t batch,
	       struct bp_timed_run *out);

#endif
