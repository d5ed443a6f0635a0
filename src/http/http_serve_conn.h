/*
 * One connection of the responder: requests parsed with http_parser as they arrive,
 * answers queued in order (pipelining) and written together in one sendmsg, closed when the
 * client or a request asks. Shared between http_server.c (threads, listeners) and
 * http_serve_conn.c.
 */
#ifndef BP_HTTP_HTTP_SERVE_CONN_H
#define BP_HTTP_HTTP_SERVE_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include <http_parser.h>

#include "io/loop.h"
#include "http/http_reply.h"

/* Answers queued per connection; a client pipelining deeper waits (its bytes are kept). */
#define BP_HTTP_SERVE_QUEUE 32

struct bp_http_serve_worker {
	struct bp_loop *loop;
	struct bp_flow listener;
	struct bp_timer sweep, resume;     /* idle connections; the listener after EMFILE */
	struct bp_http_serve_conn *conns;  /* doubly linked */
	uint64_t idle_timeout_ns;
	char *buf;                         /* read buffer shared by the connections */
	size_t buflen;
	uint64_t requests, connections;    /* relaxed atomics, read by other threads */
};

struct bp_http_serve_conn {
	struct bp_http_serve_worker *w;
	struct bp_http_serve_conn *prev, *next;
	struct bp_flow flow;
	http_parser p;
	char url[256];
	size_t url_len;
	bool url_long;
	struct bp_http_reply q[BP_HTTP_SERVE_QUEUE];
	int qhead, qlen;
	char *left;                        /* read but not parsed while the queue was full */
	size_t left_len;
	bool no_more;                      /* a closing answer is queued: read nothing more */
	bool peer_done;                    /* the client closed its side */
	bool lingering;                    /* all sent and shut down: waiting for the client */
	uint64_t last_active;
};

/* Take an accepted socket (owned from now on, closed on failure). */
void bp_http_serve_conn_new(struct bp_http_serve_worker *w, int fd);
/* Close and free. */
void bp_http_serve_conn_free(struct bp_http_serve_conn *c);

#endif
