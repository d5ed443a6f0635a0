/*
 * What is http's own in its statistics: why a request failed and those kinds' names, and
 * responses by status code (txn_stats' classes). The counting (per worker, per interval)
 * is stats/txn_stats.h's.
 */
#ifndef BP_HTTP_HTTP_STATS_H
#define BP_HTTP_HTTP_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/conn_hists.h"
#include "stats/txn_stats.h"

/* Why a request (or a connection attempt) failed. */
enum bp_http_err {
	BP_HTTP_ERR_CONNECT,  /* a connection (TCP, TLS handshake) could not be opened */
	BP_HTTP_ERR_READ,     /* reset, or closed before the response was whole */
	BP_HTTP_ERR_WRITE,    /* the request could not be written */
	BP_HTTP_ERR_TIMEOUT,  /* no whole response within --timeout */
	BP_HTTP_ERR_PARSE,    /* the answer is not HTTP */
	BP_HTTP_ERR_STATUS,   /* a whole response, but not 2xx (also counted as a response) */
	BP_HTTP_NERR,
};

/* "connect", "read", "write", "timeout", "parse", "non_2xx" */
const char *bp_http_err_name(enum bp_http_err e);

/* Status codes kept one by one: 100..599 (anything else counts under 0). */
#define BP_HTTP_STATUS_MAX 600

/*
 * http's counts: the common ones (done: whole responses, any status; bytes: response bytes
 * read), fails indexed by enum bp_http_err.
 */
struct bp_http_counts {
	struct bp_txn_counts txn;
};

_Static_assert(BP_HTTP_NERR <= BP_TXN_MAX_KINDS, "http's error kinds fit txn_stats");

/* A worker's statistics, with a class per status code (BP_HTTP_STATUS_MAX). 0 or -ENOMEM. */
int bp_http_stats_init(struct bp_txn_stats *s);

/* A whole response of status after latency_ns; not 2xx also counts as BP_HTTP_ERR_STATUS. */
void bp_http_stats_response(struct bp_txn_stats *s, uint64_t now, unsigned status,
			    uint64_t latency_ns, bool late);

/*
 * Reporter side: add the running interval to counts, status (BP_HTTP_STATUS_MAX entries)
 * and hists, then start a new one.
 */
void bp_http_stats_take(struct bp_txn_stats *s, struct bp_http_counts *counts,
			uint64_t *status, struct bp_conn_hists *hists);

#endif
