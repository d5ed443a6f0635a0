/*
 * The load side of `boardperf http`, shared by its worker (http_worker.c: connections,
 * pacing, timeouts) and its connections (http_conn.c: each a small state machine).
 *
 * A worker thread of the stream pool owns a slice of the -c connections and runs them on
 * its own event loop. Closed loop: each connection keeps --pipeline requests in flight and
 * sends the next as soon as an answer completes. Open loop (--rate): requests are due on a
 * fixed schedule whatever happens, the worker releases each to one of its connections as
 * it falls due, and latency counts from the due time (no coordinated omission: a slow
 * answer delays the requests behind it, and their latency shows it).
 */
#ifndef BP_HTTP_HTTP_LOAD_H
#define BP_HTTP_HTTP_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "io/loop.h"
#include "io/pacer.h"
#include "http/http_io.h"
#include "http/http_response.h"
#include "http/http_stats.h"
#include "io/sock.h"

/* The longest a worker polls before it sleeps, toward a server on this machine: a few of
 * nginx's small answers (~20 us each on a 2-core VM), not a network round trip. */
#define BP_HTTP_BUSY_POLL_NS (100 * 1000u)

/* What every worker reads and nobody writes during the run. */
struct bp_http_load_cfg {
	struct bp_addr addr;
	char addr_str[64];        /* "127.0.0.1:8080", for messages */
	const char *host;         /* SNI and --verify's name check */
	bool tls, verify;
	bool head;                /* HEAD requests: answers carry no body */
	bool new_conn;            /* one request per connection (RFC 9411 transactions) */
	const char *req;          /* the request, depth copies back to back */
	size_t req_len;           /* one copy */
	int depth;                /* --pipeline: requests in flight per connection */
	double rate;              /* requests/s over all connections; 0 closed loop */
	uint64_t timeout_ns;
	int total_conns;
	uint64_t start_ns;        /* the open loop's time zero, the same for every worker */
	uint64_t busy_poll_ns;    /* workers poll this long at most before sleeping (0: never) */
};

enum bp_http_conn_state {
	BP_HTTP_IDLE,        /* no socket: waiting for a due request (open loop, --new-conn) */
	BP_HTTP_CONNECTING,  /* TCP handshake */
	BP_HTTP_HANDSHAKE,   /* TLS handshake */
	BP_HTTP_OPEN,        /* requests and answers */
	BP_HTTP_DRAIN,       /* --new-conn: answered; waiting for the server to close first */
	BP_HTTP_BACKOFF,     /* a connect failed: retry at retry_at */
};

/* A request in flight: when its latency started (its due or send time) and when it left. */
struct bp_http_flight {
	uint64_t t0, sent;
	bool late;
};

struct bp_http_worker;

struct bp_http_conn {
	struct bp_http_worker *w;
	int j;                        /* index among the worker's connections */
	enum bp_http_conn_state st;
	struct bp_flow flow;
	bool registered;
	struct bp_http_io io;
	struct bp_http_resp resp;
	uint64_t connect_t0;          /* the connect's start */
	uint64_t state_t0;            /* when the current state began */
	uint64_t retry_at;
	struct bp_http_flight *ring;  /* depth entries, oldest at head */
	int head, inflight;
	size_t wpos, wlen;            /* the write under way: bytes done, bytes in all */
	uint64_t next, due;           /* open loop: next request's number, requests released */
	bool dead;                    /* an answer to no request: failed after the feed */
	struct bp_http_conn *next_ready;  /* in the worker's list of connections to pump */
	bool ready;                   /* on that list */
	unsigned gen;                 /* bumped per closed socket: stale events are ignored */
};

struct bp_http_worker {
	const struct bp_http_load_cfg *cfg;
	struct bp_txn_stats *stats;
	int first, n;                 /* connections first .. first+n-1 of all */
	struct bp_http_conn *conns;
	struct bp_loop *loop;
	SSL_CTX *ctx;
	char *buf;                    /* read buffer shared by the worker's connections */
	size_t buflen;
	struct bp_timer pacer;
	struct bp_timer flush;        /* due at once: sends after the current batch of events */
	struct bp_http_conn *ready;   /* connections that may send, oldest last */
	struct bp_flow sweep;         /* a periodic timerfd: timeouts, connect retries */
	struct bp_pacer schedule;     /* open loop: the whole test's, cfg->rate from cfg->start_ns */
	uint64_t released;            /* open loop: requests due so far (relaxed atomic) */
	bool running;
	uint64_t now;                 /* the clock as of the current event */
	char tls_desc[96];            /* the first TLS session's version and cipher */
	/* Busy polling (io/busy_poll.h), written at the stop: waits that polled, their time,
	 * and those the poll served. */
	uint64_t polls, polled_ns, poll_hits;
};

/* http_conn.c */
void bp_http_conn_init(struct bp_http_conn *c, struct bp_http_worker *w, int j);
/* Open a connection now (and, for --new-conn, its one request). */
void bp_http_conn_open(struct bp_http_conn *c);
/* Send what is allowed: closed loop tops up to depth, open loop sends what is due. */
void bp_http_conn_pump(struct bp_http_conn *c);
/* The periodic check: timeouts, a connect's retry. */
void bp_http_conn_sweep(struct bp_http_conn *c, uint64_t now);
/* Close without counting anything (the end of the run). */
void bp_http_conn_close(struct bp_http_conn *c);
void bp_http_conn_free(struct bp_http_conn *c);

/*
 * The open-loop schedule over all connections: request number k of the test is due at
 * k / rate and goes to connection k mod total, so each connection sends every
 * total / rate seconds, the connections evenly staggered. Connection j of a worker whose
 * slice starts at first sends its m-th request as request m * total + first + j: its
 * sub-schedule of the worker's pacer (io/pacer.h), exact in integer ns.
 */
static inline uint64_t bp_http_conn_due_ns(const struct bp_http_conn *c, uint64_t m)
{
	return bp_pacer_sub_slot_ns(&c->w->schedule, (uint64_t)(c->w->first + c->j),
				    (uint64_t)c->w->cfg->total_conns, m);
}

#endif
