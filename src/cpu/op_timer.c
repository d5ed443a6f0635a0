#include "cpu/op_timer.h"

#include "core/clock.h"
#include "core/signals.h"

uint64_t bp_op_next_batch(uint64_t batch, uint64_t batch_ns, uint64_t target_ns,
			  uint64_t remaining_ns)
{
	double per_op, want;

	if (batch_ns == 0)
		return batch * 2;
	per_op = (double)batch_ns / (double)batch;
	want = (double)target_ns / per_op;
	if (want > 2.0 * (double)batch)
		want = 2.0 * (double)batch;
	if (want > (double)remaining_ns / per_op)
		want = (double)remaining_ns / per_op;
	return want < 1 ? 1 : (uint64_t)want;
}

int bp_op_warmup(bp_op_fn fn, void *ctx, uint64_t warmup_ns, uint64_t *batch)
{
	uint64_t start = bp_now_ns(), now = start;

	*batch = 1;
	while (now - start < warmup_ns && !bp_stop_requested()) {
		uint64_t t0 = now;
		int rc = fn(ctx, *batch);

		if (rc)
			return rc;
		now = bp_now_ns();
		*batch = bp_op_next_batch(*batch, now - t0, BP_OP_BATCH_NS, UINT64_MAX);
	}
	return 0;
}

int bp_op_time(bp_op_fn fn, void *ctx, uint64_t duration_ns, uint64_t batch,
	       struct bp_timed_run *out)
{
	struct bp_cpu_times c0, c1;
	uint64_t start, now, ops = 0;
	int rc = 0;

	if (!batch)
		batch = 1;
	bp_cpu_thread_times(&c0);
	start = now = bp_now_ns();
	while (now - start < duration_ns) {
		uint64_t t0 = now;

		if (bp_stop_requested()) {
			out->interrupted = true;
			break;
		}
		rc = fn(ctx, batch);
		if (rc)
			break;
		ops += batch;
		now = bp_now_ns();
		if (now - start < duration_ns)
			batch = bp_op_next_batch(batch, now - t0, BP_OP_BATCH_NS,
						 duration_ns - (now - start));
	}
	bp_cpu_thread_times(&c1);
	out->ops = ops;
	out->elapsed_ns = now - start;
	bp_cpu_usage_between(&c0, &c1, &out->cpu);
	return rc;
}
