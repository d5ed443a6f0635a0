/*
 * What the flows or connections of one worker thread of a transaction test measured (rr,
 * crr, http): operations done, connections made, late sends, bytes read, failures by the
 * test's kinds, the first message of each kind, completed operations by the test's classes
 * (http: status codes), and latency/connect histograms, for the running interval. The
 * worker records under a mutex that only the reporter (once per interval) contends for;
 * histograms are merged, never shared, so percentiles are exact to the histogram's bound
 * over any set of workers. What a kind or a class means, and their names, is the test's
 * (rr/rr_stats.h, http/http_stats.h); this module only counts them.
 */
#ifndef BP_STATS_TXN_STATS_H
#define BP_STATS_TXN_STATS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/conn_hists.h"

/* Failure kinds a test may have (rr: 5, http: 6). */
#define BP_TXN_MAX_KINDS 8
#define BP_TXN_MSG_LEN 160

struct bp_txn_counts {
	uint64_t done;                /* transactions (rr, crr) or whole responses (http) */
	uint64_t connects;            /* connections established */
	uint64_t late;                /* open loop: sends that left after their due time */
	uint64_t started;             /* open loop: operations begun (at or after their due time) */
	uint64_t drained;             /* done after the end, within the drain (not in done) */
	uint64_t retransmits;         /* connection-setup retransmissions (crr: SYNs, TCP_INFO) */
	uint64_t bytes;               /* answer bytes read, where the test counts them (http) */
	uint64_t fails[BP_TXN_MAX_KINDS];
};

struct bp_txn_stats {
	pthread_mutex_t lock;
	struct bp_txn_counts iv;
	struct bp_conn_hists h;
	uint64_t *classes;            /* nclasses counters of done operations, or NULL */
	size_t nclasses;
	uint64_t end_ns;              /* 0, or when the run ends: later events do not count (atomic) */
	uint64_t drain_ns;            /* 0, or until when outcomes after the end count (atomic) */
	char first_msg[BP_TXN_MAX_KINDS][BP_TXN_MSG_LEN];  /* the first of each kind, kept */
};

void bp_txn_counts_add(struct bp_txn_counts *dst, const struct bp_txn_counts *src);
/* Every kind. */
uint64_t bp_txn_counts_failures(const struct bp_txn_counts *c);

/* nclasses counters of done operations by class (0: none). 0 or -ENOMEM. */
int bp_txn_stats_init(struct bp_txn_stats *s, size_t nclasses);
void bp_txn_stats_free(struct bp_txn_stats *s);

/*
 * Worker side, one call per event; now is when it happened (bp_now_ns). An operation done
 * at now after latency_ns, late or not, of class cls (ignored unless cls < nclasses).
 */
void bp_txn_stats_done(struct bp_txn_stats *s, uint64_t now, uint64_t latency_ns, bool late,
		       size_t cls);
void bp_txn_stats_connect(struct bp_txn_stats *s, uint64_t now, uint64_t latency_ns);
void bp_txn_stats_bytes(struct bp_txn_stats *s, uint64_t now, uint64_t n);
/* An open-loop operation began at now. */
void bp_txn_stats_started(struct bp_txn_stats *s, uint64_t now);
/* n connection-setup retransmissions seen at now (a connection made or given up). */
void bp_txn_stats_retransmits(struct bp_txn_stats *s, uint64_t now, uint64_t n);
/*
 * count operations failed with kind (>= BP_TXN_MAX_KINDS: ignored); count 0 still keeps
 * the message, which may be NULL.
 */
void bp_txn_stats_fail(struct bp_txn_stats *s, uint64_t now, unsigned kind, uint64_t count,
		       const char *msg);

/*
 * The run ends at end_ns (set before it starts when the end is known, again when it ends
 * early): events after it are not recorded, and flows begin no transaction after it. The
 * workers are stopped only after the end, and what their flows finish meanwhile lies
 * outside the counted span; a transaction begun before the end and answered after it is
 * not counted either (the server's count may exceed the client's by those in flight).
 * Never set (http): everything counts until the workers stop.
 */
void bp_txn_stats_end_at(struct bp_txn_stats *s, uint64_t end_ns);
/* True when now is after the end (from any thread). */
bool bp_txn_stats_ended(const struct bp_txn_stats *s, uint64_t now);
/*
 * An open loop's drain (crr --rate): operations begun before the end keep their outcome
 * until drain_ns (their --timeout after the end), so that every attempt is counted once,
 * as a success or a failure, and the failure ratio is over all of them. What completes
 * after the end counts as drained, not done: a rate over the run's span counts what
 * completed in it (a firewall admits new connections at N/s whenever they come, and the
 * retransmitted SYNs it admits in the drain would add about N x the drain to done).
 * Connects, failures and retransmissions count until drain_ns like the outcomes.
 */
void bp_txn_stats_drain_until(struct bp_txn_stats *s, uint64_t drain_ns);

/*
 * Reporter side: add the running interval to counts, classes (nclasses entries; NULL when
 * there are none) and hists, then start a new one.
 */
void bp_txn_stats_take(struct bp_txn_stats *s, struct bp_txn_counts *counts,
		       uint64_t *classes, struct bp_conn_hists *hists);

#endif
