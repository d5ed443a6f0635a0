/*
 * One connection of the responder: requests parsed with http_parser as they arrive,
 * answers queued in order (pipelining) and written together in one sendmsg, closed when the
 * client or a request asks. Shared between http_server.c (threads, listeners) and
 * http_serve_conn.c.
 *
 * The client must read what it asked for: a request is parsed only while the answers
 * before it hold less than BP_HTTP_SERVE_BACKLOG unwritten bytes and fewer than
 * BP_HTTP_SERVE_QUEUE answers (the rest waits in the kernel, whose window then stops the
 * client), bytes are written only when the socket takes them, and a connection whose
 * answers have not moved for the idle timeout is reset. Every answer is promised against
 * the connection's byte budget (http_serve_limit.h) before it is queued.
 *
 * Nor may a client hold a connection by trickling: a connection waiting for a request (at
 * its accept, or once its answers are all written) must have the request's whole head
 * within the idle timeout, however the bytes come (a byte every few seconds gains nothing:
 * slowloris); a request's body must keep coming (each byte is activity). And the responder
 * keeps to its share of the descriptors (io/fd_share.h): a connection accepted as one of
 * the tests' reserve is refused with a 503, and at the responder's cap a new connection
 * closes the one of its thread that has waited longest for a request (a real client sends
 * its next request within a round trip), or, when every one is busy answering, is refused.
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
/*
 * Unwritten bytes queued per connection before the next request is parsed: 32 pipelined
 * 16 KiB answers, or one large body at a time (a /1g behind a /1g waits its turn unparsed).
 */
#define BP_HTTP_SERVE_BACKLOG (1u << 20)

struct bp_peer_budget;

struct bp_http_serve_worker {
	struct bp_loop *loop;
	struct bp_flow listener;
	struct bp_timer sweep, resume;     /* idle connections; the listener after EMFILE */
	struct bp_http_serve_conn *conns;  /* doubly linked */
	int nconns;
	int max_conns;                     /* this thread's part of the responder's cap */
	int fd_floor;                      /* accepted as this descriptor or above: refused */
	uint64_t idle_timeout_ns;
	uint64_t max_bytes;                /* a connection's budget (UINT64_MAX: none) */
	struct bp_peer_budget *budget;     /* what left holds (NULL: not counted) */
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
	bool in_head;                      /* a request's first bytes came, not its whole head */
	bool in_body;                      /* its head is whole, its body is coming */
	uint64_t committed;                /* bytes of the answers promised so far (bounds) */
	uint64_t written;                  /* of those, written (or, for a header shorter
					    * than its bound, never to be) */
	uint64_t last_active;              /* the last byte read or written */
	uint64_t last_moved;               /* answers last written to, or queued from empty */
	uint64_t head_since;               /* began waiting for a request (nothing queued) */
};

/* What the sweep does with a connection, once a second. */
enum bp_http_serve_verdict {
	BP_HTTP_KEEP,
	BP_HTTP_UNREAD,    /* answers the client has not read for the idle timeout: reset */
	BP_HTTP_NO_HEAD,   /* a request's head begun, not whole within the idle timeout: close */
	BP_HTTP_IDLE,      /* silent for the idle timeout (2 s once closed): close */
};

/* The verdict on c at now (its worker's idle timeout). */
enum bp_http_serve_verdict bp_http_serve_conn_verdict(const struct bp_http_serve_conn *c,
						      uint64_t now);
/* Act on every connection's verdict (logged when cut short). */
void bp_http_serve_sweep(struct bp_http_serve_worker *w, uint64_t now);

/*
 * An accepted socket (owned from now on): refused with a 503 when it is one of the tests'
 * descriptors (w->fd_floor), or at the cap with no connection to close for it; else taken.
 */
void bp_http_serve_accept(struct bp_http_serve_worker *w, int fd);
/* Take an accepted socket (owned from now on, closed on failure). */
void bp_http_serve_conn_new(struct bp_http_serve_worker *w, int fd);
/* Close and free. */
void bp_http_serve_conn_free(struct bp_http_serve_conn *c);
/* Reset (RST: the kernel drops what the client never read at once), close and free. */
void bp_http_serve_conn_abort(struct bp_http_serve_conn *c);

#endif
