/*
 * The responder of `boardperf serve --http PORT`, also usable inside any process (the
 * suite's loopback test, unit tests): fixed-size bodies chosen by path (see http_route.h),
 * keep-alive, pipelining, Connection: close honoured, so a peer board needs no web server.
 *
 * Its own worker threads, one per core, each with its own event loop and its own listening
 * socket on the same port (SO_REUSEPORT): the kernel spreads new connections over the
 * listeners, and each connection is accepted, read and answered on one thread, with no
 * hand-over between threads, which a connection per request (--new-conn) would pay every
 * time. The threads sleep in epoll while nobody asks.
 *
 * Left on a network, it must not be a cannon: each connection has a byte budget, and a
 * client gets large answers only as fast as it reads them (http_serve_conn.h). Nor a
 * sink: a request's head must come whole within the idle timeout, and the connections stay
 * within their share of the process's descriptors (io/fd_share.h), so that slow clients
 * cannot leave the tests of `serve` without one.
 */
#ifndef BP_HTTP_HTTP_SERVER_H
#define BP_HTTP_HTTP_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "io/sock.h"

struct bp_http_server_opts {
	const char *bind;          /* NULL: every address, IPv4 and IPv6 */
	unsigned port;             /* 0: the kernel picks (read it with bp_http_server_port) */
	enum bp_family family;
	int workers;               /* 0: one per core */
	uint64_t idle_timeout_ns;  /* a connection silent this long, or without a request's
				    * whole head this long, is closed; one that does not read
				    * its answers this long is reset; 0: 10 s */
	uint64_t max_bytes;        /* bytes one connection may be sent (http_serve_limit.h);
				    * 0: 4 GiB, UINT64_MAX: no limit */
	/* requests read but not parsed yet (a full queue) count here, shared with the test
	 * server (core/peer_budget.h); NULL: not counted */
	struct bp_peer_budget *budget;
};

struct bp_http_server;
struct bp_peer_budget;

/* Listening when it returns; NULL with a one-line message ("bind [::]:80: ..."). */
struct bp_http_server *bp_http_server_start(const struct bp_http_server_opts *o, char *err,
					    size_t errlen);
unsigned bp_http_server_port(const struct bp_http_server *s);
/* Requests answered and connections accepted so far (any thread). */
void bp_http_server_counts(const struct bp_http_server *s, uint64_t *requests,
			   uint64_t *connections);
/* Stop the workers, close every connection, free. NULL is allowed. */
void bp_http_server_stop(struct bp_http_server *s);

#endif
