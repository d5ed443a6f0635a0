/* When an rr/crr flow's next transaction begins (see rr_flow_internal.h). */
#include "rr/rr_flow_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"

static void atomic_max(int64_t *p, int64_t v)
{
	int64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

void bp_rr_flow_hold_conn(struct bp_rr_flow *f)
{
	struct bp_rr_concurrent *cc = f->cfg.concurrent;

	bp_rr_flow_unregister(f);
	if (f->nheld == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		int *grown = realloc(f->held, cap * sizeof(*grown));

		if (!grown) {
			bp_rr_flow_close_conn(f);
			return;
		}
		f->held = grown;
		f->cap = cap;
	}
	f->held[f->nheld++] = f->flow.fd;
	f->flow.fd = -1;
	atomic_max(&cc->peak, __atomic_add_fetch(&cc->open_now, 1, __ATOMIC_RELAXED));
}

/* --concurrent: verify the next held connection still answers, or end the flow. */
static void verify_next(struct bp_rr_flow *f, uint64_t now)
{
	struct bp_rr_concurrent *cc = f->cfg.concurrent;

	if (f->verify_i == f->nheld) {
		f->phase = BP_RR_PH_DONE;
		__atomic_add_fetch(&cc->flows_done, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_sub_fetch(&cc->open_now, 1, __ATOMIC_RELAXED);
	f->flow.fd = f->held[f->verify_i];
	f->held[f->verify_i++] = -1;
	f->busy = true;
	f->got = 0;
	f->sent = 0;
	f->out_len = f->cfg.req_len;
	bp_rr_flow_arm_timeout(f, now);
	bp_rr_flow_write_request(f, now);
}

/* The flow is idle: start the next transaction now or when it is due. */
void bp_rr_flow_schedule(struct bp_rr_flow *f, uint64_t now)
{
	struct bp_rr_concurrent *cc = f->cfg.concurrent;
	uint64_t due;

	if (f->parent) {  /* a slot's transaction is over: the dispatcher starts the next */
		bp_rr_flow_slot_idle(f);
		return;
	}
	if (!f->running || bp_rr_flow_error(f))
		return;
	if (f->phase == BP_RR_PH_VERIFY) {
		verify_next(f, now);
		return;
	}
	if (f->phase != BP_RR_PH_RUN)
		return;
	if (cc && __atomic_sub_fetch(&cc->to_open, 1, __ATOMIC_RELAXED) < 0) {
		__atomic_add_fetch(&cc->to_open, 1, __ATOMIC_RELAXED);
		f->phase = BP_RR_PH_HOLD;
		bp_timer_arm(f->loop, &f->due, now + cc->hold_ns);
		return;
	}
	if (!f->cfg.period_ns) {
		/*
		 * Closed loop: the latency starts at the send. `now` was read before the last
		 * answer was received, counted and (crr) its connection closed; starting from it
		 * would add that work to this transaction's latency.
		 */
		if (f->cfg.connect_only) {  /* closed loop here; never with --concurrent */
			if (f->in_inline)
				f->again = true;  /* bp_rr_flow_crr_inline's loop starts it: no recursion */
			else
				bp_rr_flow_crr_inline(f);
			return;
		}
		now = bp_now_ns();
		bp_rr_flow_begin(f, now, now);
		return;
	}
	if (f->dispatcher) {
		bp_rr_flow_dispatch(f, now);
		return;
	}
	/* The ramp: the count due by t is r t^2 / 2R until R, then r R / 2 + r (t - R). */
	due = bp_pacer_ramp_slot_ns(&f->sched, f->cfg.ramp_ns, f->k);
	if (due <= now) {
		f->k++;
		bp_rr_flow_begin(f, due, now);
	} else {
		if (cc)  /* the quota was taken for a transaction that waits for its time */
			__atomic_add_fetch(&cc->to_open, 1, __ATOMIC_RELAXED);
		bp_timer_arm(f->loop, &f->due, due);
	}
}

void bp_rr_flow_due_fired(struct bp_timer *t, uint64_t now)
{
	struct bp_rr_flow *f = t->data;

	if (f->phase == BP_RR_PH_HOLD) {
		f->phase = BP_RR_PH_VERIFY;
		f->verify_i = 0;
	}
	if (!f->busy)
		bp_rr_flow_schedule(f, now);
}
