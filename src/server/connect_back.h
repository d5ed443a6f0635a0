/*
 * A TCP connection this server opens back to a client: iperf 2's -d and -r, whose server
 * sends on a connection of its own to the client's listening port. Only ever to the address
 * of the client's own connection (its handshake proved it, so nobody can aim the server at
 * a third party), from the address the client reached; non-blocking, in the server's loop.
 */
#ifndef BP_SERVER_CONNECT_BACK_H
#define BP_SERVER_CONNECT_BACK_H

#include <stdint.h>

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
};

/* cb zeroed, then: */
void srv_connect_back_init(struct srv_connect_back *cb, srv_connect_back_fn done, void *data);
/*
 * Start connecting from local (its port ignored) to peer's address at port (1-65535).
 * 0: connecting, and done is called from the loop with the outcome; or a negative errno
 * at once (done is not called).
 */
int srv_connect_back_start(struct srv_connect_back *cb, struct bp_loop *loop,
			   const struct bp_addr *local, const struct bp_addr *peer, uint16_t port);
/* Drop a connect still in progress (nothing when idle); done is not called. */
void srv_connect_back_cancel(struct srv_connect_back *cb);

#endif
