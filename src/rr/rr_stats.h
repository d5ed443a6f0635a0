/*
 * What the request/response flows of one worker thread measured: transactions, latency
 * histograms, connections and failures by kind, for the running interval and since the
 * counted start. The worker records under a mutex that only the reporter (once per
 * interval) contends for; histograms are merged, never shared, so percentiles are exact to
 * the histogram's bound over any set of workers.
 */
#ifndef BP_RR_RR_STATS_H
#define BP_RR_RR_STATS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats/conn_hists.h"

/* Why a transaction failed (crr: also why a connection failed). */
enum bp_rr_fail {
	BP_RR_FAIL_REFUSED,   /* ECONNREFUSED: RST to the SYN (closed port, a firewall's reject) */
	BP_RR_FAIL_RESET,     /* ECONNRESET/EPIPE after the connection stood */
	BP_RR_FAIL_TIMEOUT,   /* no answer within --timeout (a dropped SYN, a lost datagram) */
	BP_RR_FAIL_NO_PORT,   /* EADDRNOTAVAIL: the client ran out of ephemeral ports */
	BP_RR_FAIL_OTHER,
	BP_RR_NFAIL,
};

/* "refused", "reset", "timeout", "no_port", "other" */
const char *bp_rr_fail_name(enum bp_rr_fail f);
/* The kind of a connect() or I/O errno (a positive errno). */
enum bp_rr_fail bp_rr_fail_of(int err);

struct bp_rr_counts {
	uint64_t transactions;
	uint64_t connects;            /* crr: connections established */
	uint64_t fails[BP_RR_NFAIL];
	uint64_t late;                /* open loop: sends that left after their due time */
};

struct bp_rr_stats {
	pthread_mutex_t lock;
	struct bp_rr_counts iv;
	struct bp_conn_hists iv_h;
	uint64_t end_ns;              /* 0, or when the run ends: later events do not count (atomic) */
};

void bp_rr_counts_add(struct bp_rr_counts *dst, const struct bp_rr_counts *src);
uint64_t bp_rr_counts_failures(const struct bp_rr_counts *c);

/* 0 or -ENOMEM. */
int bp_rr_stats_init(struct bp_rr_stats *s);
void bp_rr_stats_free(struct bp_rr_stats *s);

/* Worker side, one call per event; now is when it happened (bp_now_ns). */
void bp_rr_stats_transaction(struct bp_rr_stats *s, uint64_t now, uint64_t latency_ns,
			     bool late);
void bp_rr_stats_connect(struct bp_rr_stats *s, uint64_t now, uint64_t latency_ns);
void bp_rr_stats_fail(struct bp_rr_stats *s, uint64_t now, enum bp_rr_fail kind);

/*
 * The run ends at end_ns (set before it starts when the end is known, again when it ends
 * early): events after it are not recorded, and flows begin no transaction after it. The
 * workers are stopped only after the end, and what their flows finish meanwhile lies
 * outside the counted span; a transaction begun before the end and answered after it is
 * not counted either (the server's count may exceed the client's by those in flight).
 */
void bp_rr_stats_end_at(struct bp_rr_stats *s, uint64_t end_ns);
/* True when now is after the end (from any thread). */
bool bp_rr_stats_ended(const struct bp_rr_stats *s, uint64_t now);

/* Reporter side: move the running interval into counts and hists (added), then reset it. */
void bp_rr_stats_take(struct bp_rr_stats *s, struct bp_rr_counts *counts,
		      struct bp_conn_hists *hists);

#endif
