/*
 * crr's open loop (see rr_flow_internal.h): every due connection starts on time.
 *
 * Why slots. With one connection at a time per flow, a flow whose SYN a firewall dropped
 * waits up to --timeout (TCP retransmits the SYN after 1 s) and starts nothing meanwhile:
 * through a limit of N new connections/s, `--rate 2N -P 8` measured about N/2 with no
 * failure at all, every flow stuck behind its own dropped SYN. An open loop must offer its
 * rate whatever the path does, so the flow the pool runs becomes a dispatcher: at each due
 * time it hands the transaction to an idle slot (a bp_rr_flow with its own socket on the
 * same loop) or makes a new one, and starts it. A dropped SYN then occupies one socket for
 * --timeout while the next ones go out on time; in flight at once are about rate x the
 * time a connection takes (rate x --timeout when every SYN is dropped).
 *
 * The cap. Each slot holds a socket, so max_inflight bounds them (the client derives it
 * from rate x --timeout and RLIMIT_NOFILE, or --max-inflight). A transaction due while
 * every slot is busy waits for the first one to come free: it starts late, its latency
 * still counts from its due time (no coordinated omission), and it is counted once in
 * waits, so the report can say the cap, not the path, held the rate back.
 *
 * Timeouts. Slots begin in due order and all have the same --timeout, so their deadlines
 * come in the order they began: busy slots form a list, oldest first, and the dispatcher's
 * one timerfd is armed for the head's deadline (a timer per slot would cost a descriptor
 * or a sorted insert each).
 */
#include "rr/rr_flow_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "core/clock.h"

/* Transactions one dispatch starts at most before it lets the loop run (a catch-up burst). */
#define DISPATCH_BATCH 64

static void atomic_max(int64_t *p, int64_t v)
{
	int64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

/* An idle slot, a new one while under the cap, or NULL (cap reached, out of memory). */
static struct bp_rr_flow *take_slot(struct bp_rr_flow *f)
{
	struct bp_rr_flow *s = f->free_slots;

	if (s) {
		f->free_slots = s->next;
	} else {
		if (f->busy_slots >= f->cfg.max_inflight)
			return NULL;
		s = bp_rr_flow_new(&f->cfg);
		if (!s)
			return NULL;
		s->parent = f;
		s->loop = f->loop;
		s->flow = (struct bp_flow){ .fd = -1, .handler = bp_rr_flow_on_event, .data = s };
		s->running = true;
		s->all_next = f->all_slots;
		f->all_slots = s;
	}
	s->next = s->prev = NULL;
	f->busy_slots++;
	atomic_max(&f->cfg.inflight->peak,
		   __atomic_add_fetch(&f->cfg.inflight->now, 1, __ATOMIC_RELAXED));
	return s;
}

static void unlink_busy(struct bp_rr_flow *f, struct bp_rr_flow *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else if (f->head == s)
		f->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else if (f->tail == s)
		f->tail = s->prev;
	s->prev = s->next = NULL;
}

void bp_rr_flow_slot_arm_timeout(struct bp_rr_flow *s, uint64_t now)
{
	struct bp_rr_flow *f = s->parent;

	s->t_begun = now;
	s->prev = f->tail;
	s->next = NULL;
	if (f->tail)
		f->tail->next = s;
	else
		f->head = s;
	f->tail = s;
	if (!f->watchdog_armed)
		bp_rr_flow_set_watchdog(f, now + f->cfg.timeout_ns);
}

void bp_rr_flow_slot_idle(struct bp_rr_flow *s)
{
	struct bp_rr_flow *f = s->parent;

	unlink_busy(f, s);
	s->next = f->free_slots;
	f->free_slots = s;
	f->busy_slots--;
	__atomic_sub_fetch(&f->cfg.inflight->now, 1, __ATOMIC_RELAXED);
	/* From the loop, not from here: this may be inside a dispatch (a connect refused at once). */
	if (f->cap_blocked && f->running) {
		f->cap_blocked = false;
		bp_timer_arm(f->loop, &f->due, bp_now_ns());
	}
}

void bp_rr_flow_dispatch(struct bp_rr_flow *f, uint64_t now)
{
	for (int n = 0; f->running; n++) {
		uint64_t due = bp_pacer_ramp_slot_ns(&f->sched, f->cfg.ramp_ns, f->k);
		struct bp_rr_flow *s;

		if (due > now) {
			bp_timer_arm(f->loop, &f->due, due);
			return;
		}
		if (bp_txn_stats_ended(f->cfg.stats, now))
			return;  /* the run is over: nothing more begins */
		if (n == DISPATCH_BATCH) {
			bp_timer_arm(f->loop, &f->due, now);
			return;
		}
		s = take_slot(f);
		if (!s && f->busy_slots) {  /* the cap: the first slot that comes free re-arms */
			if (f->blocked_k != f->k + 1) {  /* count each transaction once */
				f->blocked_k = f->k + 1;
				__atomic_add_fetch(&f->cfg.inflight->waits, 1, __ATOMIC_RELAXED);
			}
			f->cap_blocked = true;
			return;
		}
		if (!s) {  /* out of memory with nothing in flight: this one fails */
			bp_txn_stats_fail(f->cfg.stats, now, BP_RR_FAIL_OTHER, 1, "out of memory");
			f->k++;
			continue;
		}
		f->k++;
		bp_rr_flow_begin(s, due, now);  /* may end at once, and the slot is idle again */
	}
}

void bp_rr_flow_slots_expire(struct bp_rr_flow *f, uint64_t now)
{
	while (f->head && now >= f->head->t_begun + f->cfg.timeout_ns)
		bp_rr_flow_fail(f->head, BP_RR_FAIL_TIMEOUT, ETIMEDOUT, now);  /* unlinks it */
	if (f->head)
		bp_rr_flow_set_watchdog(f, f->head->t_begun + f->cfg.timeout_ns);
}

void bp_rr_flow_slots_stop(struct bp_rr_flow *f)
{
	for (struct bp_rr_flow *s = f->all_slots; s; s = s->all_next) {
		s->running = false;
		s->busy = false;
		bp_rr_flow_close_conn(s);  /* cut short by the end: not counted */
	}
	if (f->busy_slots)
		__atomic_sub_fetch(&f->cfg.inflight->now, (int64_t)f->busy_slots, __ATOMIC_RELAXED);
	f->busy_slots = 0;
	f->head = f->tail = NULL;
}

void bp_rr_flow_slots_free(struct bp_rr_flow *f)
{
	struct bp_rr_flow *s = f->all_slots, *next;

	for (; s; s = next) {
		next = s->all_next;
		bp_rr_flow_close_conn(s);
		free(s->buf);
		free(s);
	}
	f->all_slots = f->free_slots = NULL;
}
