/*
 * A TCP connection this server opens back to a client: iperf 2's -d and -r, whose server
 * sends on a connection of its own to the client's listening port. Only ever to the address
 * of the client's own connection (its handshake proved it, so nobody can aim the server at
 * a third party), from the address the client reached; non-blocking, in the server's loop.
 */
#ifndef BP_SERVER_CONNECT_BACK_H
#define BP_SERVER_CONNECT_BACK_H

#include <stdint.h>

#include "core/clock.h"
#include "io/loop.h"
#include "io/sock.h"

struct srv_connect_back;
/* The connection's end: fd connected (owned by the callee from now on), or fd -1 and err
 * the negative errno. Called once, from the loop. */
typedef void (*srv_connect_back_fn)(struct srv_connect_back *cb, int fd, int err);

struct srv_connect_back {
	struct bp_flow flow;           /* fd -1 when idle */
	srv_connect_back_fn done;
	void *data;                    /* the owner's */
	/* a refused connect is tried again until retry_until_ns: the client's listener may
	 * come up a moment after its header (iperf -c -d starts both at once) */
	struct bp_timer retry;
	struct bp_loop *loop;
	struct bp_addr from, to;
	uint64_t retry_until_ns;
};

/* cb zeroed, then: */
void srv_connect_back_init(struct srv_connect_back *cb, srv_connect_back_fn done, void *data);
/*
 * Start connecting from local (its port ignored) to peer's address at port (1-65535),
 * again every SRV_CONNECT_BACK_RETRY_NS while it is refused, for SRV_CONNECT_BACK_TRY_NS.
 * 0: connecting, and done is called from the loop with the outcome; or a negative errno
 * at once (done is not called).
 */
#define SRV_CONNECT_BACK_RETRY_NS (20 * BP_NS_PER_MS)
#define SRV_CONNECT_BACK_TRY_NS (2 * BP_NS_PER_SEC)
int srv_connect_back_start(struct srv_connect_back *cb, struct bp_loop *loop,
			   const struct bp_addr *local, const struct bp_addr *peer, uint16_t port);
/* Drop a connect still in progress (nothing when idle); done is not called. */
void srv_connect_back_cancel(struct srv_connect_back *cb);

#endif
