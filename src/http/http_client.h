/*
 * The client of `boardperf http`: the request built once, one stream-pool worker per
 * thread with its slice of the connections, interval marks and the totals.
 */
#ifndef BP_HTTP_HTTP_CLIENT_H
#define BP_HTTP_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "http/http_request.h"
#include "http/http_stats.h"
#include "http/http_url.h"
#include "io/sock.h"
#include "result/live.h"

#define BP_HTTP_MAX_INTERVALS 4096

struct bp_http_client_opts {
	const struct bp_http_url *url;
	enum bp_family family;
	struct bp_http_request_cfg req;  /* target and host_header come from url */
	int connections;
	int threads;                     /* 0: one per core, at most one per connection */
	int depth;                       /* --pipeline */
	double rate;                     /* requests/s over all connections; 0 closed loop */
	bool new_conn;
	bool verify;
	bool verdict;                    /* --max-failure-ratio given: PASS or FAIL (exit 3) */
	double max_failure_pct;
	uint64_t time_ns, interval_ns, timeout_ns;
	/* --start-at: the first byte waits for this wall-clock instant (ns; 0: at once) */
	int64_t start_at_ns;
	struct bp_live *live;            /* each interval as it ends (NULL: none) */
	const struct bp_result *live_result;
};

struct bp_http_interval {
	double start_s, end_s;
	struct bp_http_counts c;
	struct bp_histo_summary latency;
};

struct bp_http_outcome {
	struct bp_http_counts total;
	uint64_t status[BP_HTTP_STATUS_MAX];
	struct bp_histo_summary latency, connect;
	/* the run's distributions themselves, which the result carries whole (for `merge`) */
	struct bp_conn_hists hists;
	struct bp_http_interval *iv;
	int niv;
	double duration_s;
	uint64_t offered;                 /* open loop: requests that fell due */
	double cpu_user_s, cpu_sys_s;     /* the whole process during the run */
	double busy_max;                  /* the busiest worker's share of its core, 0..1,
					   * its busy polling left out (io/busy_poll.h) */
	double poll_max_us;               /* how long a worker polled at most (0: never) */
	double polled_s;                  /* the workers' busy polling, in the CPU above */
	uint64_t polls, poll_hits;        /* waits that polled, and those the poll served */
	char first_error[BP_HTTP_NERR][160];
	char server_addr[64];
	bool this_host;                 /* the server is on this machine (bp_addr_is_this_host) */
	json_t *path;                   /* the path toward it at the start (board/net_path.h), or NULL */
	int64_t start_at_ns, started_ns; /* --start-at: the instant, the wall clock as the first
	                                  * byte left (board/start_at_result.h); 0: none */
	char tls[96];                     /* "TLSv1.3 TLS_AES_256_GCM_SHA384" or "" */
	size_t request_bytes;
	int threads;
	bool interrupted;
};

/*
 * Run the load. 0, or a negative errno with a one-line message: the host does not resolve,
 * nothing listens, TLS fails (checked with one connection before the load starts).
 * out->iv is allocated even on failure; free with bp_http_outcome_free.
 */
int bp_http_client_run(const struct bp_http_client_opts *o, struct bp_http_outcome *out,
		       char *err, size_t errlen);
void bp_http_outcome_free(struct bp_http_outcome *out);

#endif
