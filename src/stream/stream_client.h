/* The client half of a TCP test against `boardperf serve` (or, later, a stock iperf3). */
#ifndef BP_STREAM_STREAM_CLIENT_H
#define BP_STREAM_STREAM_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/params.h"
#include "proto/results.h"
#include "io/sock.h"
#include "result/live.h"

struct bp_psk;

struct bp_stream_client_opts {
	const char *host;
	unsigned port;
	enum bp_family family;
	uint64_t connect_timeout_ns;
	/* --start-at: the first byte waits for this wall-clock instant (ns; 0: at once) */
	int64_t start_at_ns;
	uint64_t idle_timeout_ns;  /* data stopped this long ends the test; 0: 10 s */
	const struct bp_psk *psk;  /* the key to prove to a locked server (NULL: none) */
	struct bp_net_params np;   /* what the server is asked for */
	/* Each interval as it ends, what this side knows of it (NULL: none); result r's. */
	struct bp_live *live;
	const struct bp_result *live_result;
};

/* Everything both sides measured; the caller turns it into a result. */
struct bp_stream_outcome {
	struct bp_net_results *local;   /* this side (heap) */
	struct bp_net_results *remote;  /* the server's (heap) */
	char server_addr[64];
	bool this_host;                 /* the server is on this machine (bp_addr_is_this_host) */
	json_t *path;                   /* the path toward it at the start (board/net_path.h), or NULL */
	int64_t start_at_ns, started_ns; /* --start-at: the instant, the wall clock as the first
	                                  * byte left (board/start_at_result.h); 0: none */
	int pool_workers;
	bool interrupted;               /* SIGINT/SIGTERM ended the test early */
	bool data_stopped;              /* nothing moved for the idle timeout: ended early */
	bool count_reached;             /* -n/-k: ended by its count, not by the -t cut */
	double stopped_s;               /* then: when data last moved, from the start */
	double idle_s;                  /* the idle timeout that applied */
	double duration_s;
};

/*
 * Run the whole exchange. Returns 0, or a negative errno with a one-line message; on a
 * failure after the test ran, out still holds what this side measured.
 */
int bp_stream_client_run(const struct bp_stream_client_opts *o, struct bp_stream_outcome *out,
		      char *err, size_t errlen);
void bp_stream_outcome_free(struct bp_stream_outcome *out);

#endif
