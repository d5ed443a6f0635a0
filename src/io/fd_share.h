/*
 * The process's descriptors (RLIMIT_NOFILE), shared between the tests and the listeners any
 * stranger reaches (`serve --http`, `serve --metrics`). A slow stranger costs a descriptor
 * for as long as it is let stay, so without a share of their own a thousand of them took
 * every one and the tests were turned away.
 *
 * Descriptors are handed out lowest first, so a connection accepted as descriptor N has N
 * in use below it. A listener for strangers that keeps only connections numbered below the
 * floor therefore never holds one of the top quarter: those stay free for the tests (their
 * control and data connections, sockets, pipes), whatever strangers do, with no count to
 * keep between threads. The HTTP responder is held besides to half of the limit in
 * connections, so that its own clients compete with each other, not with the tests.
 */
#ifndef BP_IO_FD_SHARE_H
#define BP_IO_FD_SHARE_H

#include <stdbool.h>

/* The tests' reserve: the top 1/4 of the descriptor numbers. */
#define BP_FD_RESERVE_DIVISOR 4
/* The HTTP responder's connections at once: 1/2 of the limit. */
#define BP_FD_HTTP_DIVISOR 2

struct bp_fd_share {
	int limit;      /* RLIMIT_NOFILE's soft limit, at most 1 << 30 */
	int floor;      /* from this descriptor number up: the tests' reserve */
	int http_cap;   /* connections of the HTTP responder at once, over all its threads */
};

/* The shares of a limit of limit descriptors (a pure function, for the tests). */
void bp_fd_share_of(int limit, struct bp_fd_share *s);
/* The shares of this process's limit now. */
void bp_fd_share_now(struct bp_fd_share *s);

/* Whether a descriptor just handed out is one of the tests' reserve. */
static inline bool bp_fd_reserved(const struct bp_fd_share *s, int fd)
{
	return fd >= s->floor;
}

#endif
