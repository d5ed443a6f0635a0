/*
 * The server's door: the accept loop (server_accept.c) and the connections that have not yet
 * said which test they belong to (server_pending.c). A flood of connections that never send
 * a cookie must cost the server neither its descriptors nor its CPU nor its log:
 *
 * - pending connections are bounded in total and per client address (an IPv4 address, an
 *   IPv6 /64), and the oldest is shed to make room for a new one: a real client sends its
 *   cookie as soon as it is connected, so the oldest pending one is almost surely idle;
 * - a cookie must arrive whole within the idle timeout of the accept, however slowly it
 *   trickles in (a byte now and then does not extend it: slowloris);
 * - near the descriptor limit a pending connection is shed for each new one, so that tests
 *   (their streams, UDP sockets, the HTTP responder) keep descriptors to open; at the limit
 *   (EMFILE/ENFILE) with none to shed, a reserve descriptor is given up to accept the newest
 *   connection, tell it the server is busy and close it at once, and failing that the
 *   listener pauses for a moment instead of spinning on a queue it cannot take from;
 * - what a flood makes the server say goes through rate-limited log lines (core/log.h).
 */
#ifndef BP_SERVER_SERVER_ACCEPT_H
#define BP_SERVER_SERVER_ACCEPT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/log.h"
#include "io/loop.h"
#include "io/sock.h"

struct srv;
struct srv_pending;

struct srv_door {
	struct srv_pending *oldest, *newest; /* pending connections, in the order accepted */
	int npending;
	int fd_limit;                        /* RLIMIT_NOFILE (soft) at the start */
	int pressure_cap;                    /* near fd_limit: pending held to this; 0: not */
	int reserve_fd;                      /* given up at the fd limit; -1 when not held */
	bool paused;                         /* the listener is out of the loop for a moment */
	struct bp_timer resume;
	uint64_t shed, refused;              /* totals, for the log and --metrics */
	uint64_t junk, no_cookie;            /* not a client; no cookie in time (--metrics) */
};

/* server_accept.c */
/* Reads the fd limit and takes the reserve descriptor; 0 or -errno. */
int srv_door_init(struct srv *s);
/* Closes every pending connection and the reserve. */
void srv_door_free(struct srv *s);
/* The listening socket's handler. */
void srv_door_listener_readable(struct bp_flow *f, uint32_t events);
/* Another part of the server ran out of descriptors (op names it in the log). */
void srv_door_out_of_fds(struct srv *s, const char *op, int err);

/* server_pending.c */
/* A connection just accepted: routed at once when its cookie came with it, else pending. */
void srv_pending_accept(struct srv *s, int fd, const struct bp_addr *peer);
/* When the oldest pending connection was accepted; UINT64_MAX: none pending. */
uint64_t srv_pending_oldest_ns(const struct srv *s);
/* Free the oldest pending connection's descriptor: routed if its cookie has come by now,
 * else closed (server_pending.c, shed). False when none is pending. */
bool srv_pending_shed_oldest(struct srv *s, const char *why);
void srv_pending_close_all(struct srv *s);

#endif
