/*
 * A worker of `boardperf http`: a slice of the connections on one stream-pool thread, with
 * the open loop's schedule and the timeouts. The client adds one per pool worker.
 */
#ifndef BP_HTTP_HTTP_WORKER_H
#define BP_HTTP_HTTP_WORKER_H

#include "http/http_load.h"
#include "io/stream_pool.h"

/*
 * Connections first .. first+n-1 of cfg->total_conns, recording into stats. NULL when out
 * of memory. The pool runs it (bp_http_worker_ops) and frees it at release.
 */
struct bp_http_worker *bp_http_worker_new(const struct bp_http_load_cfg *cfg,
					  struct bp_txn_stats *stats, int first, int n);

extern const struct bp_stream_ops bp_http_worker_ops;

/* Open loop: requests released so far (readable from any thread). */
uint64_t bp_http_worker_released(const struct bp_http_worker *w);
/* With --rate, the requests that fell due before end_ns, by the schedule alone: any the pacer
 * had not reached when the test stopped count (on a busy machine it runs a few behind), any a
 * late stop let it release after end_ns do not, nor one due at end_ns itself; so that the
 * offered count is the schedule's, not the pacer's progress. Without --rate, those released.
 * Call it once the worker has stopped. */
uint64_t bp_http_worker_due_by(const struct bp_http_worker *w, uint64_t end_ns);

/* The first TLS session's "TLSv1.3 CIPHER", "" before one (read it after the stop). */
const char *bp_http_worker_tls(const struct bp_http_worker *w);

#endif
