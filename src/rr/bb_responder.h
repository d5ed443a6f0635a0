/*
 * The server's side of iperf 2's bounceback test (proto/iperf2_bounceback.h) on one TCP
 * connection: each request of the client's size is read whole, stamped with this host's
 * wall-clock time as it was read whole and as it is answered, and sent back as it came;
 * the client's STOP request (its last) or its close ends the answering. One request at a
 * time: the client sends the next only once the answer came. Runs on the stream pool, as
 * the rr responder does (rr/rr_half.c chooses it for an iperf 2 bounceback session).
 */
#ifndef BP_RR_BB_RESPONDER_H
#define BP_RR_BB_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

#include "io/stream_pool.h"

struct bp_bb_responder;

/*
 * A responder for requests of size bytes, the first first_len of the first one already
 * read (first; the server's door read them to tell the test). NULL when out of memory.
 */
struct bp_bb_responder *bp_bb_responder_new(size_t size, const uint8_t *first,
					     size_t first_len);
void bp_bb_responder_free(struct bp_bb_responder *b);

/* Requests answered so far, and request bytes read (readable from any thread). */
uint64_t bp_bb_responder_served(const struct bp_bb_responder *b);
uint64_t bp_bb_responder_bytes(const struct bp_bb_responder *b);

/* For the stream pool: the state is a bp_bb_responder. */
extern const struct bp_stream_ops bp_bb_responder_ops;

#endif
