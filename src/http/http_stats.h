/*
 * What the connections of one worker thread measured: responses by status, bytes read,
 * connections, errors by kind, latency histograms. The worker records under a mutex that
 * only the reporter contends for, once per interval; histograms are per worker and merged,
 * never shared, so percentiles over all workers stay within the histogram's bound.
 */
#ifndef BP_HTTP_HTTP_STATS_H
#define BP_HTTP_HTTP_STATS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "stats/conn_hists.h"

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

struct bp_http_counts {
	uint64_t requests;       /* whole responses, any status */
	uint64_t bytes;          /* response bytes read (headers and bodies) */
	uint64_t connects;       /* connections opened */
	uint64_t late;           /* --rate: requests sent more than 1 ms after their due time */
	uint64_t errors[BP_HTTP_NERR];
};

struct bp_http_stats {
	pthread_mutex_t lock;
	struct bp_http_counts iv;
	uint64_t status[BP_HTTP_STATUS_MAX];   /* since the last take */
	struct bp_conn_hists h;
	char first_error[BP_HTTP_NERR][160];   /* the first message of each kind, kept */
};

void bp_http_counts_add(struct bp_http_counts *dst, const struct bp_http_counts *src);
/* Every kind, non-2xx included. */
uint64_t bp_http_counts_errors(const struct bp_http_counts *c);

int bp_http_stats_init(struct bp_http_stats *s);   /* 0 or -ENOMEM */
void bp_http_stats_free(struct bp_http_stats *s);

/* Worker side. */
void bp_http_stats_response(struct bp_http_stats *s, unsigned status, uint64_t latency_ns,
			    bool late);
void bp_http_stats_bytes(struct bp_http_stats *s, uint64_t n);
void bp_http_stats_connect(struct bp_http_stats *s, uint64_t latency_ns);
/* count requests failed with kind e (count 0 still keeps the message); msg may be NULL. */
void bp_http_stats_error(struct bp_http_stats *s, enum bp_http_err e, uint64_t count,
			 const char *msg);

/*
 * Reporter side: add the running interval to counts, status (BP_HTTP_STATUS_MAX entries)
 * and hists, then start a new one.
 */
void bp_http_stats_take(struct bp_http_stats *s, struct bp_http_counts *counts,
			uint64_t *status, struct bp_conn_hists *hists);

/* Percentiles of a histogram, ns (count 0: none recorded). */

#endif
