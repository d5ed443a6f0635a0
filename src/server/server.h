/*
 * `boardperf serve`: one port, many tests at once. The main thread runs an event loop over
 * the listening socket and every control connection (each a small state machine), while
 * the data streams of all tests share one pool of per-core workers. Nothing a client does
 * can block another: control steps never wait on a socket, a silent client is dropped
 * after the idle timeout, and limits refuse with a message instead of queueing.
 */
#ifndef BP_SERVER_SERVER_H
#define BP_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/om_text.h"
#include "io/loop.h"
#include "io/sock.h"

struct bp_iperf3_auth;
/*
 * A real client's connection goes without its cookie for about a round trip (it writes the
 * cookie as soon as it is connected), so even crr's thousands of connections a second from
 * one address have a handful pending at once; a flood of idle connections is held to these.
 */
#define BP_SERVER_MAX_PENDING 256
#define BP_SERVER_MAX_PENDING_PER_ADDR 32
/*
 * What a peer may make the server hold before it is parsed (docs/server.md, "Buffered
 * bytes"): a set-up message (the parameters, a key's answer) is far below 64 KiB (iperf3's
 * is under 1 KiB, its authtoken included); a client's results may carry 256 streams and
 * 4096 intervals, so they keep the protocol's own 1 MiB. All peers together hold at most
 * the budget: 256 half-sent set-up messages at their cap, the default bound on connections
 * in set-up, fit in it exactly.
 */
#define BP_SERVER_MAX_SETUP_MSG (64u << 10)
#define BP_SERVER_MAX_RESULTS_MSG BP_PROTO_MAX_JSON
#define BP_SERVER_PEER_BUDGET ((size_t)16 << 20)
struct bp_psk;
struct bp_peer_budget;

struct bp_server_opts {
	const char *bind;          /* NULL: every address, IPv4 and IPv6 */
	unsigned port;
	enum bp_family family;
	/* Admission limits (server_limits.h checks them; docs/server.md, "Limits and their
	 * defaults"). */
	int max_clients;           /* tests at once; 0: no limit */
	int max_per_client;        /* tests at once from one client address; 0: no limit */
	uint64_t max_duration_ns;  /* time plus omit; 0: no limit */
	int max_streams;           /* -P, streams per direction; 0: no limit */
	double max_rate;           /* bit/s per test and direction; 0: no limit */
	uint64_t idle_timeout_ns;  /* a control connection silent this long is dropped */
	int max_pending;           /* connections without their cookie yet; 0: the default */
	int max_pending_per_addr;  /* ... from one IPv4 address or IPv6 /64; 0: the default */
	int workers;               /* data workers; 0: one per core */
	int max_tests;             /* stop after this many tests; 0: run until signalled */
	/* iperf3's username/password (proto/iperf3_auth.h); NULL: not locked by it */
	struct bp_iperf3_auth *iperf3_auth;
	const struct bp_psk *psk;  /* only clients proving this key may test; NULL: anyone */
	/* what peers' unparsed bytes may hold, all together, shared with the HTTP responder
	 * (core/peer_budget.h); NULL: the server's own of BP_SERVER_PEER_BUDGET */
	struct bp_peer_budget *budget;
	/*
	 * --metrics: GET /metrics on metrics_bind:metrics_port (server_metrics.h) when metrics;
	 * metrics_extra (may be NULL) adds families after the server's own: the stored figures.
	 */
	bool metrics;
	const char *metrics_bind;  /* NULL: every address */
	unsigned metrics_port;     /* 0: the kernel picks one (the log line says which) */
	void (*metrics_extra)(void *arg, FILE *out, enum bp_om_format f);
	void *metrics_arg;
	/*
	 * Called once: listening (rc 0; port is the one bound, useful with port 0) or not (rc
	 * < 0, err says why). loop may be stopped from another thread with bp_loop_stop and
	 * bp_loop_wake to end the server. May be NULL.
	 */
	void (*ready)(void *arg, int rc, const char *err, unsigned port, struct bp_loop *loop);
	void *ready_arg;
};

/* Serve until SIGINT/SIGTERM (or max_tests). 0, or a negative errno with a message. */
int bp_server_run(const struct bp_server_opts *o, char *err, size_t errlen);

#endif
