/*
 * The client's side of the control connection, shared by every network test (tcp, udp,
 * rr, crr): connect and name the test with a cookie, exchange the parameters, follow the
 * server's states, and exchange results at the end. A refusal in either dialect (a
 * boardperf server's line, a stock iperf3's error numbers) becomes one line in err.
 */
#ifndef BP_PROTO_CTL_CLIENT_H
#define BP_PROTO_CTL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/params.h"
#include "proto/control.h"
#include "io/sock.h"

/*
 * How long the server may take to answer a control step before the client gives up, when
 * the caller names no idle timeout: the server's own default (`serve --idle-timeout`).
 */
#define BP_CTL_STEP_TIMEOUT_NS (10 * BP_NS_PER_SEC)

struct bp_psk;

/* Where the server is and how long each part of the conversation may take. */
struct bp_ctl_target {
	const char *host;
	unsigned port;
	enum bp_family family;
	uint64_t connect_timeout_ns;   /* connect, cookie and the server's first state byte */
	uint64_t idle_timeout_ns;      /* every later control step; 0: BP_CTL_STEP_TIMEOUT_NS */
	const struct bp_psk *psk;      /* prove this key and insist the server does (--psk) */
};

struct bp_ctl {
	struct bp_addr addr;           /* the server's, as resolved */
	int fd;                        /* the control connection, -1 when closed */
	char cookie[BP_COOKIE_LEN];    /* names the test on every data connection */
	uint64_t step_ns;              /* the longest wait for one control step */
	bool test_ended;               /* TEST_END went out (bp_ctl_end_test) */
	bool exchange_awaited;         /* bp_ctl_await_exchange ran: exchange_rc is its outcome */
	int exchange_rc;
	bool ending;                   /* the test is over: stops_at_end is set */
	unsigned stops_at_end;         /* bp_stop_requests() then: those stopped the test */
	bool stream_proof;             /* the key was proved: each data stream proves it too */
	unsigned char stream_key[32];  /* for those proofs (proto/auth_psk.h) */
	char *err;
	size_t errlen;
};

/* A deadline BP_CTL_STEP_TIMEOUT_NS from now. */
uint64_t bp_ctl_deadline(void);

/*
 * Connect to t->host:t->port, send the cookie, wait for PARAM_EXCHANGE and send np, all of
 * that up to the first state byte within t->connect_timeout_ns. A listener that is not a
 * boardperf or iperf3 server (silent, closing, or sending something else) is named as such
 * in err. With t->psk, the key's challenge follows the parameters (proto/auth_psk.h). 0 or a negative errno with the message in err (c->fd is then -1 or open;
 * bp_ctl_close it).
 */
int bp_ctl_open(struct bp_ctl *c, const struct bp_ctl_target *t,
		const struct bp_net_params *np, char *err, size_t errlen);

/*
 * The whole set-up: bp_ctl_open, CREATE_STREAMS, open_streams(arg) (the test's own data
 * connections), then TEST_START and TEST_RUNNING: the test runs when this returns 0.
 */
int bp_ctl_start(struct bp_ctl *c, const struct bp_ctl_target *t,
		 const struct bp_net_params *np, int (*open_streams)(void *arg), void *arg,
		 char *err, size_t errlen);

/*
 * The server said no with state (SERVER_ERROR or ACCESS_DENIED): its reason, in either
 * dialect, into err. Returns -EREMOTEIO.
 */
int bp_ctl_refusal(struct bp_ctl *c, int state);

/* Wait for the next state and insist that it is want (refusals become err). */
int bp_ctl_expect(struct bp_ctl *c, int want);

/* A state byte arriving mid-test: the server ends the test (error, its own limits). */
int bp_ctl_event(struct bp_ctl *c);

/*
 * TEST_END now, ahead of bp_ctl_finish: the peer ends its span when this arrives, so a
 * client sends it the moment its own counts are taken, before it winds its streams down.
 * From here on, the stop requests that ended the test do not cut the conversation; one
 * more does (-EINTR).
 */
int bp_ctl_end_test(struct bp_ctl *c);

/*
 * TEST_END (unless sent) and the server's EXCHANGE_RESULTS, ahead of bp_ctl_finish: a
 * server sends that state once its senders stopped, so a side that receives UDP reads on
 * until it arrives and counts every datagram the server sent (a server whose TEST_END came
 * late sends on until then). bp_ctl_finish then goes on from there, or reports its failure.
 */
int bp_ctl_await_exchange(struct bp_ctl *c);

/*
 * The end: TEST_END (unless bp_ctl_end_test sent it), then the results both ways (mine sent, *theirs received, a new
 * reference), DISPLAY_RESULTS and IPERF_DONE; each step waits at most c->step_ns. A Ctrl-C
 * that stopped the test lets this finish (the server's figures, its log line); another
 * one cuts it short with -EINTR.
 */
int bp_ctl_finish(struct bp_ctl *c, const json_t *mine, json_t **theirs);

/*
 * What a TCP or SCTP data connection sends first: the cookie, and after a key was proved the
 * stream's proof for index (the streams' order of opening, from 0), in one write. 0 or a
 * negative errno (no message: the caller names the stream).
 */
int bp_ctl_stream_hello(const struct bp_ctl *c, int fd, uint32_t index, uint64_t deadline);

void bp_ctl_close(struct bp_ctl *c);

#endif
