/*
 * The server's half of the request/response tests: a connection (or a connected UDP
 * socket) that answers every request of req_len bytes with resp_len bytes. TCP responders
 * serve `boardperf rr` on the stream pool's workers and `boardperf crr` on the server's
 * own loop, where one answer ends the connection: the server closes first, so the TIME_WAIT
 * state stays on the server and the client's ephemeral ports come free at once.
 *
 * UDP requests carry an 8-byte sequence number first, which the answer echoes, so the
 * client can tell a late answer from the current one.
 */
#ifndef BP_RR_RR_RESPONDER_H
#define BP_RR_RR_RESPONDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/loop.h"
#include "io/stream_pool.h"

#define BP_RR_MAX_LEN (1 << 20)   /* request and response sizes, bytes */
#define BP_RR_SEQ_LEN 8           /* UDP: the sequence number that leads each datagram */

struct bp_rr_responder;

/* Called once when a crr connection is over (answered and closed, or broken). */
typedef void (*bp_rr_done_fn)(struct bp_rr_responder *r, void *arg);

struct bp_rr_responder_cfg {
	size_t req_len, resp_len;
	bool udp;
	bool sctp;              /* the connection is SCTP (no MSG_TRUNC discards) */
	/*
	 * crr: close after this many answers (the server closes first, so TIME_WAIT stays on
	 * its side): 1, or 2 with --concurrent (the open and the check after the hold); 0 never.
	 */
	unsigned close_after;
	bool owns_fd;           /* close the socket when the connection ends (crr) */
	bp_rr_done_fn done;     /* crr: the connection ended (may be NULL) */
	void *done_arg;
};

struct bp_rr_responder *bp_rr_responder_new(const struct bp_rr_responder_cfg *cfg);
void bp_rr_responder_free(struct bp_rr_responder *r);

/*
 * Serve fd on loop. 0 or a negative errno. The responder's calls on fd do not block
 * (MSG_DONTWAIT), except the bounded waits of an rr responder that has its worker to itself:
 * an rr socket is left blocking with a 1 ms SO_RCVTIMEO for them. A crr responder
 * (close_after, owns_fd) answers a request that is already there before it returns:
 * then the socket is closed and the done callback has run (r may be freed) by the time
 * attach returns 0.
 */
int bp_rr_responder_attach(struct bp_rr_responder *r, struct bp_loop *loop, int fd);
void bp_rr_responder_detach(struct bp_rr_responder *r);

/* The socket being served (-1 once a crr connection closed it). */
int bp_rr_responder_fd(const struct bp_rr_responder *r);

/* Requests answered so far, and request bytes read (readable from any thread). */
uint64_t bp_rr_responder_served(const struct bp_rr_responder *r);
uint64_t bp_rr_responder_bytes(const struct bp_rr_responder *r);

/* For the stream pool: the state is a bp_rr_responder. */
extern const struct bp_stream_ops bp_rr_responder_ops;

#endif
