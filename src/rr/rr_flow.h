/*
 * The client's request/response flows, each run on a stream-pool worker:
 *   rr   one connection (TCP) or connected UDP socket: request, wait for the answer, repeat;
 *   crr  a new TCP connection per transaction: connect, send the cookie and the request,
 *        read the answer and the server's FIN, close (the server closes first, so no
 *        TIME_WAIT piles up here); with hold (--concurrent) the connections stay open.
 *        connect_only: connect and close at once (this side first, as iperf2 does).
 * Closed loop: the next transaction starts when the last one ends. Open loop (period_ns):
 * transactions are due every period_ns whatever happens, and latency counts from the due
 * time, so a slow answer delays the next one without hiding it (no coordinated omission).
 * crr's open loop starts each due connection on time on a socket of its own while earlier
 * ones still wait (a dropped SYN waits for --timeout), up to max_inflight at once; rr's
 * open loop has one request in flight per flow (its connection carries one at a time).
 */
#ifndef BP_RR_RR_FLOW_H
#define BP_RR_RR_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/control.h"
#include "rr/rr_stats.h"
#include "stats/welford.h"
#include "io/sock.h"
#include "io/stream_pool.h"

/* Shared by the flows of a --concurrent crr test. */
struct bp_rr_concurrent {
	int64_t to_open;              /* connections still to open (atomic) */
	int64_t open_now, peak;       /* held right now, the most at any time (atomic) */
	int64_t alive, dropped;       /* answered again after the hold, or not (atomic) */
	int64_t flows_done;           /* flows finished with their connections (atomic) */
	uint64_t hold_ns;             /* how long each connection is held */
};

/*
 * crr's open loop, shared by its flows: each due connection starts on time on a socket of
 * its own, up to max_inflight per flow at once (the client's cap divided over the flows).
 */
struct bp_rr_inflight {
	int64_t now, peak;            /* connections in flight, the most at any time (atomic) */
	uint64_t waits;               /* due transactions that found every slot busy (atomic) */
};

struct bp_rr_flow_cfg {
	size_t req_len, resp_len;
	bool udp;                     /* rr over UDP */
	bool crr;                     /* a new connection per transaction */
	bool connect_only;            /* crr: connect and close, nothing sent */
	bool alone;                   /* closed loop, not --concurrent, alone on its worker */
	uint64_t period_ns;           /* open loop: ns between this flow's transactions; 0 closed */
	uint64_t phase_ns;            /* open loop: the first one's offset from the start */
	uint64_t ramp_ns;             /* open loop: the rate rises linearly from 0 over this */
	uint64_t timeout_ns;          /* a transaction not done by then fails (timeout) */
	struct bp_txn_stats *stats;    /* the worker's; set before the flow starts */
	/* crr */
	struct bp_addr addr;
	bool sctp;                    /* each connection an SCTP association (crr --sctp) */
	char cookie[BP_COOKIE_LEN];
	struct bp_rr_concurrent *concurrent;  /* NULL unless --concurrent */
	/* crr open loop (period_ns, not --concurrent): this flow's connections in flight at most */
	size_t max_inflight;
	struct bp_rr_inflight *inflight;      /* required with max_inflight */
	/*
	 * rr --iperf2: each request is iperf 2's bounceback request (its head written before
	 * it goes, proto/iperf2_bounceback.h), each answer must carry its id back; with
	 * trip_times the server's times in it give the two one-way delays.
	 */
	bool iperf2_bb, trip_times;
};

struct bp_rr_flow;

/* NULL when out of memory. */
struct bp_rr_flow *bp_rr_flow_new(const struct bp_rr_flow_cfg *cfg);
/* The stream pool runs the flow; rr flows get their connected socket, crr flows fd -1. */
extern const struct bp_stream_ops bp_rr_flow_ops;
/* Set the stats once the pool has chosen the flow's worker (before it starts). */
void bp_rr_flow_set_stats(struct bp_rr_flow *f, struct bp_txn_stats *stats);
/* 0, or the negative errno that ended an rr flow (its connection broke). */
int bp_rr_flow_error(const struct bp_rr_flow *f);
/* Transactions this flow completed so far (any thread may ask: it shows data moving). */
uint64_t bp_rr_flow_done(const struct bp_rr_flow *f);
/*
 * rr --iperf2 --trip-times, once the flow stopped: its one-way delays (ns), the requests'
 * (the server's read time less this host's send time) and the answers' (this host's read
 * time less the server's send time), merged into up and down.
 */
void bp_rr_flow_owd(const struct bp_rr_flow *f, struct bp_welford *up, struct bp_welford *down);

#endif
