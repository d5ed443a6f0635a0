/*
 * Inside an rr/crr flow, shared by its three files:
 *   rr_flow.c           a transaction on the wire: connect, request, answer, timeout, the
 *                       stream-pool callbacks;
 *   rr_flow_schedule.c  when the next transaction begins: closed loop, the open loop's due
 *                       times (io/pacer), --concurrent's hold and verify;
 *   rr_flow_slots.c     crr's open loop: each due connection on a socket of its own (a slot),
 *                       as many at once as the rate needs, up to the in-flight cap;
 *   rr_flow_inline.c    the two paths that bypass the event loop for speed (a flow alone
 *                       on its worker, crr --connect-only in a closed loop).
 * Everything runs on the flow's worker thread; only error is read from others.
 */
#ifndef BP_RR_RR_FLOW_INTERNAL_H
#define BP_RR_RR_FLOW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/loop.h"
#include "io/pacer.h"
#include "proto/iperf2_bounceback.h"
#include "rr/rr_flow.h"
#include "rr/rr_stats.h"

/* --concurrent's phases: open and hold connections, check each still answers, done. */
enum bp_rr_phase { BP_RR_PH_RUN, BP_RR_PH_HOLD, BP_RR_PH_VERIFY, BP_RR_PH_DONE };

struct bp_rr_flow {
	struct bp_rr_flow_cfg cfg;
	struct bp_loop *loop;
	struct bp_flow flow;          /* the current socket */
	bool registered;
	bool running;
	struct bp_timer due;          /* open loop: the next transaction; hold: its end */
	struct bp_flow watchdog;      /* a timerfd: the current transaction's deadline */
	bool watchdog_armed;
	uint64_t start_ns;
	struct bp_pacer sched;        /* open loop: every period_ns from start + phase, ramped */
	uint64_t k;                   /* open loop: transactions begun */
	bool busy;                    /* a transaction is under way */
	bool connecting;              /* crr: waiting for the handshake */
	bool in_inline;               /* inside bp_rr_flow_crr_inline, which polls the socket itself */
	bool again;                   /* bp_rr_flow_crr_inline: the next transaction is due now */
	bool late;
	uint64_t t0;                  /* the latency's start: due time (open) or send time */
	uint64_t t_begun;             /* when it really began, for the timeout */
	uint64_t connect_t0;
	size_t sent, got;             /* bytes of the request written, of the answer read */
	size_t out_len;               /* bytes to write for this request */
	uint64_t seq;                 /* UDP: the current request's number */
	int error;                    /* relaxed atomic */
	uint64_t done;                /* transactions answered (relaxed atomic, for the reporter) */
	char *buf;                    /* crr: cookie + request; rr: request */
	/*
	 * rr --iperf2: the answer's head (id, the server's times), this request's send time by
	 * the wall clock (written into it) and by bp_now_ns() (the answer's wall time is read
	 * from the round trip's own clock: see bb_answered)
	 */
	uint8_t bb_answer[BP_IPERF2_BB_TIMES_END];
	uint64_t bb_sent_wall_ns, bb_sent_ns;
	struct bp_welford owd_up, owd_down;  /* --trip-times: requests', answers' one-way delays */
	int *held;                    /* --concurrent: connections held open */
	size_t nheld, cap, verify_i;
	enum bp_rr_phase phase;
	/*
	 * crr's open loop (rr_flow_slots.c). The flow the pool runs is a dispatcher that makes
	 * no connection itself: each due transaction goes to a slot, a bp_rr_flow of its own
	 * (parent set) on the same loop. Busy slots form a list in the order they began, which
	 * is the order of their deadlines (one --timeout after the start): the dispatcher's
	 * watchdog times out the head, so slots need no timer of their own.
	 */
	bool dispatcher;
	struct bp_rr_flow *parent;             /* a slot: its dispatcher */
	struct bp_rr_flow *prev, *next;        /* a busy slot: the dispatcher's list */
	struct bp_rr_flow *head, *tail;        /* dispatcher: busy slots, oldest first */
	struct bp_rr_flow *free_slots;         /* dispatcher: idle slots (linked by next) */
	struct bp_rr_flow *all_next;           /* every slot, for the stop and the release */
	struct bp_rr_flow *all_slots;
	size_t busy_slots;                     /* dispatcher: slots in flight */
	bool cap_blocked;                      /* dispatcher: a due transaction waits for a slot */
	uint64_t blocked_k;                    /* the transaction counted as having waited */
};

/* rr_flow.c */
/* Wait for events on the socket (registering it with the loop, except inside crr_inline). */
void bp_rr_flow_set_events(struct bp_rr_flow *f, uint32_t events);
void bp_rr_flow_unregister(struct bp_rr_flow *f);
/* crr: the connection of this transaction is over. */
void bp_rr_flow_close_conn(struct bp_rr_flow *f);
/* Start a transaction due at intended (its latency's start) now; nothing after the end. */
void bp_rr_flow_begin(struct bp_rr_flow *f, uint64_t intended, uint64_t now);
/* The transaction succeeded at now: count it and schedule the next. */
void bp_rr_flow_finish_ok(struct bp_rr_flow *f, uint64_t now);
/* Write the rest of the request; false when the connection broke (failure recorded). */
bool bp_rr_flow_write_request(struct bp_rr_flow *f, uint64_t now);
/*
 * Read what came of the answer (flags for recv): rr --iperf2 keeps its head in bb_answer,
 * the rest is discarded. recv's return.
 */
ssize_t bp_rr_flow_recv_answer(struct bp_rr_flow *f, int flags);
/* The current transaction (begun at now) times out after the configured timeout. */
void bp_rr_flow_arm_timeout(struct bp_rr_flow *f, uint64_t now);
/* The socket's events, from the loop or from crr_inline's poll. */
void bp_rr_flow_on_event(struct bp_flow *fl, uint32_t events);

/* rr_flow_schedule.c */
/* The flow is idle: start the next transaction now or when it is due. */
void bp_rr_flow_schedule(struct bp_rr_flow *f, uint64_t now);
/* The due timer: the next open-loop transaction, or the end of a hold. */
void bp_rr_flow_due_fired(struct bp_timer *t, uint64_t now);
/* --concurrent: keep this transaction's connection open. */
void bp_rr_flow_hold_conn(struct bp_rr_flow *f);

/* rr_flow_slots.c */
/* The open loop's dispatcher: start every transaction due by now, each on a slot. */
void bp_rr_flow_dispatch(struct bp_rr_flow *f, uint64_t now);
/* A slot's transaction is over (its connection closed): back to its dispatcher. */
void bp_rr_flow_slot_idle(struct bp_rr_flow *s);
/* A slot begins its transaction at now: its deadline joins the dispatcher's list. */
void bp_rr_flow_slot_arm_timeout(struct bp_rr_flow *s, uint64_t now);
/* The dispatcher's watchdog fired: time out the slots whose deadline passed. */
void bp_rr_flow_slots_expire(struct bp_rr_flow *f, uint64_t now);
/* The dispatcher stops: every slot's connection is closed, nothing more is counted. */
void bp_rr_flow_slots_stop(struct bp_rr_flow *f);
void bp_rr_flow_slots_free(struct bp_rr_flow *f);
/* rr_flow.c: arm the flow's timerfd for an absolute time. */
void bp_rr_flow_set_watchdog(struct bp_rr_flow *f, uint64_t due_ns);
/* rr_flow.c: fail the current transaction of kind (enum bp_rr_fail) with errno err. */
void bp_rr_flow_fail(struct bp_rr_flow *f, unsigned kind, int err, uint64_t now);

/* rr_flow_inline.c */
/* A closed-loop flow alone on its worker waits for the answer in recv itself. */
void bp_rr_flow_wait_alone(struct bp_rr_flow *f);
/* crr --connect-only, closed loop: transactions one after another outside the loop. */
void bp_rr_flow_crr_inline(struct bp_rr_flow *f);

#endif
