/*
 * The control protocol (docs/ARCHITECTURE.md, "The control protocol"): iperf3's framing,
 * so that a stock iperf3 peer and a boardperf peer share one port and one state machine.
 *
 *   client -> server   cookie: 36 printable characters + NUL (37 bytes), once per
 *                      connection (control and every data stream)
 *   either way         state: one signed byte (enum bp_proto_state)
 *   either way         JSON message: 4-byte big-endian length, then that many bytes of JSON
 *
 * boardperf's own parameters ride in the same parameter object as iperf3's, under keys
 * iperf3 ignores: "bp_version" (BP_PROTO_VERSION) marks a boardperf peer, "bp_test" names
 * the test kind ("tcp", "udp", "rr", ...). A boardperf server refusing a boardperf client
 * sends SERVER_ERROR followed by a JSON message {"error": "one line"}; a peer speaking an
 * unknown bp_version gets that error too, never a hang.
 */
#ifndef BP_PROTO_CONTROL_H
#define BP_PROTO_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/peer_budget.h"

/*
 * The newest boardperf protocol this build speaks. 2 adds one step to 1: on a test that
 * proved a pre-shared key, every TCP/SCTP data stream proves it too (proto/auth_psk.h). A
 * client sends 2 only when it offers a key, so that a server of an older release (which
 * refuses a version it does not know) still takes its other tests; a locked server refuses
 * a client that offers a key in protocol 1 (its streams would carry no proof).
 */
#define BP_PROTO_VERSION 2
#define BP_PROTO_VERSION_BASE 1
#define BP_PROTO_VERSION_STREAM_PROOF 2
#define BP_PROTO_DEFAULT_PORT 5201
#define BP_COOKIE_LEN 37          /* 36 characters + NUL, as iperf3 */
/* Larger control messages are refused: iperf3's own results stay far below this. */
#define BP_PROTO_MAX_JSON (1u << 20)

enum bp_proto_state {
	BP_TEST_START = 1,
	BP_TEST_RUNNING = 2,
	BP_TEST_END = 4,
	BP_PARAM_EXCHANGE = 9,
	BP_CREATE_STREAMS = 10,
	BP_SERVER_TERMINATE = 11,
	BP_CLIENT_TERMINATE = 12,
	BP_EXCHANGE_RESULTS = 13,
	BP_DISPLAY_RESULTS = 14,
	BP_IPERF_START = 15,
	BP_IPERF_DONE = 16,
	/* boardperf's own, only to a client that offered a key (proto/auth_psk.h); far from
	 * iperf3's numbers so that a future iperf3 state is not mistaken for one of them */
	BP_AUTH_CHALLENGE = 40,
	BP_AUTH_OK = 41,
	BP_ACCESS_DENIED = -1,
	BP_SERVER_ERROR = -2,
};

/* "PARAM_EXCHANGE", ... or "UNKNOWN" for log lines and errors. */
const char *bp_proto_state_name(int state);

/* A fresh random cookie (36 characters from iperf3's alphabet a-z2-7, NUL-terminated). */
int bp_cookie_make(char cookie[BP_COOKIE_LEN]);
/* True when buf (BP_COOKIE_LEN bytes) is a well-formed cookie. */
int bp_cookie_valid(const char *buf);

/*
 * Blocking I/O on a control socket with an absolute deadline (bp_now_ns() based): each
 * returns 0, -ETIMEDOUT when the deadline passed, -ECONNRESET when the peer closed, or
 * another negative errno. They work on blocking and non-blocking sockets alike (poll).
 * A stop request (core/signals.h) ends them with -EINTR, unless it is among those this
 * thread was told to tolerate.
 */
int bp_proto_write_all(int fd, const void *buf, size_t len, uint64_t deadline_ns);
int bp_proto_read_all(int fd, void *buf, size_t len, uint64_t deadline_ns);

/*
 * The control I/O of the calling thread ends only on stop requests beyond the first n
 * (bp_stop_requests); 0, the start, ends it on any.
 */
void bp_proto_tolerate_stops(unsigned n);

int bp_proto_send_state(int fd, int state, uint64_t deadline_ns);
int bp_proto_recv_state(int fd, int *state, uint64_t deadline_ns);

/* Encode msg compactly and send it with its length. */
int bp_proto_send_json(int fd, const json_t *msg, uint64_t deadline_ns);
/*
 * Receive one JSON message: -EMSGSIZE over BP_PROTO_MAX_JSON (nothing more is read),
 * -EBADMSG when it is not a JSON object. *msg is a new reference on success.
 */
int bp_proto_recv_json(int fd, json_t **msg, uint64_t deadline_ns);

/*
 * A complete message body as the control protocol reads it: only a JSON object is a valid
 * message, and one whose numbers overflow jansson's integers (stock iperf3 prints -1 as an
 * unsigned 64-bit number) is read again with every number as a double. 0 or -EBADMSG.
 */
int bp_proto_parse_json(const char *text, size_t len, json_t **msg);

/*
 * Incremental decoding for a non-blocking server: feed bytes as they arrive.
 * A decoder is set to expect a cookie, a state byte or a JSON message; bp_proto_feed
 * consumes what it can from buf and returns the bytes consumed (>= 0) or a negative
 * errno (-EMSGSIZE, -EBADMSG, -ENOBUFS). When dec->done is set, the item is in dec->cookie,
 * dec->state or dec->json (the caller takes the JSON reference and resets).
 *
 * A server bounds what a peer makes it hold (bp_proto_decoder_limit): a JSON message
 * announced longer than max is -EMSGSIZE at its length, before a byte of it is kept, and
 * the body's buffer, which grows only with what has arrived, takes each growth from the
 * budget; when the budget has no room, -ENOBUFS and nothing of buf consumed, the decoder
 * unchanged: the caller may make room (close another peer) and feed the same bytes again.
 */
enum bp_proto_expect { BP_EXPECT_COOKIE, BP_EXPECT_STATE, BP_EXPECT_JSON };

struct bp_proto_decoder {
	enum bp_proto_expect expect;
	int done;
	char cookie[BP_COOKIE_LEN];
	int state;
	json_t *json;
	/* private */
	unsigned char lenbuf[4];
	size_t have;      /* bytes of the current item read so far */
	size_t need;      /* JSON body length once the length is known */
	char *body;
	size_t max;                    /* the longest JSON body taken; 0: BP_PROTO_MAX_JSON */
	struct bp_peer_budget *budget; /* body bytes are counted here; NULL: not counted */
	size_t charged;                /* what this decoder's body holds of the budget */
};

void bp_proto_decoder_init(struct bp_proto_decoder *d, enum bp_proto_expect expect);
/* Frees what the decoder holds (given back to its budget) and resets it, keeping its limits. */
void bp_proto_decoder_free(struct bp_proto_decoder *d);
/* Set after init: a JSON body's cap (0: BP_PROTO_MAX_JSON) and the budget (NULL: none). */
void bp_proto_decoder_limit(struct bp_proto_decoder *d, size_t max,
			    struct bp_peer_budget *budget);
long bp_proto_feed(struct bp_proto_decoder *d, const void *buf, size_t len);

#endif
