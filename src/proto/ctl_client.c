#include "proto/ctl_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "core/clock.h"
#include "core/signals.h"
#include "core/text_escape.h"
#include "proto/iperf3_auth.h"
#include "proto/auth_psk.h"
#include "proto/iperf3_error.h"

/* The most of a foreign listener's first bytes that the message quotes. */
#define QUOTE_MAX 40

uint64_t bp_ctl_deadline(void)
{
	return bp_now_ns() + BP_CTL_STEP_TIMEOUT_NS;
}

static uint64_t step_deadline(const struct bp_ctl *c)
{
	return bp_now_ns() + c->step_ns;
}

static const char *peer(const struct bp_ctl *c, char buf[64])
{
	return bp_addr_str(&c->addr, buf, 64);
}

/*
 * A refusal from the server: SERVER_ERROR then boardperf's {"error": "..."} or a stock
 * iperf3's error numbers; ACCESS_DENIED is iperf3's "busy", which a boardperf server out of
 * descriptors follows with its reason (proto/iperf3_error.h). -EREMOTEIO, not
 * -ECONNREFUSED: the result's error code tells a server that said no ("server-refused")
 * from a port nobody listens on ("connect-refused").
 */
int bp_ctl_refusal(struct bp_ctl *c, int state)
{
	char why[256] = "";

	if (state == BP_SERVER_ERROR &&
	    bp_iperf3_recv_refusal(c->fd, why, sizeof(why), bp_now_ns() + BP_NS_PER_SEC))
		why[0] = '\0';
	if (state == BP_ACCESS_DENIED &&
	    bp_iperf3_recv_denied_reason(c->fd, why, sizeof(why), bp_now_ns() + BP_NS_PER_SEC))
		why[0] = '\0';
	snprintf(c->err, c->errlen, "server %s: %s", peer(c, (char[64]){ 0 }),
		 why[0] ? why : state == BP_ACCESS_DENIED ?
		 "busy running a test (access denied); try again later" : "server error");
	return -EREMOTEIO;
}

int bp_ctl_expect(struct bp_ctl *c, int want)
{
	int state, rc = bp_proto_recv_state(c->fd, &state, step_deadline(c));

	if (rc == -ETIMEDOUT) {
		snprintf(c->err, c->errlen, "server %s sent nothing for %g s (--idle-timeout) "
			 "where %s was due", peer(c, (char[64]){ 0 }), (double)c->step_ns / 1e9,
			 bp_proto_state_name(want));
		return rc;
	}
	if (rc) {
		snprintf(c->err, c->errlen, "waiting for %s from the server: %s",
			 bp_proto_state_name(want), strerror(-rc));
		return rc;
	}
	if (state == BP_SERVER_ERROR || state == BP_ACCESS_DENIED)
		return bp_ctl_refusal(c, state);
	if (state != want) {
		snprintf(c->err, c->errlen, "server sent %s where %s was due",
			 bp_proto_state_name(state), bp_proto_state_name(want));
		return -EPROTO;
	}
	return 0;
}

int bp_ctl_event(struct bp_ctl *c)
{
	int state, rc = bp_proto_recv_state(c->fd, &state, step_deadline(c));

	if (rc) {
		snprintf(c->err, c->errlen, "control connection to the server lost: %s",
			 strerror(-rc));
		return rc;
	}
	return bp_ctl_refusal(c, state);
}

/*
 * What a foreign listener sent, as the user can read it: its first line (a web server's
 * status line, sshd's banner says which program it is), at most QUOTE_MAX bytes, escaped
 * as every peer's text is (core/text_escape.h).
 */
static void quote(const unsigned char *p, size_t n, char *out, size_t outlen)
{
	size_t len = 1;

	while (len < n && len < QUOTE_MAX && p[len] != '\r' && p[len] != '\n')
		len++;
	bp_text_escape(out, outlen, (const char *)p, n ? len : 0, 0);
}

/* Wait until fd is readable (or closed) or deadline_ns passes: 0, -ETIMEDOUT, -EINTR. */
static int wait_readable(int fd, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = bp_now_ns();
		int n;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)((deadline_ns - now + BP_NS_PER_MS - 1) / BP_NS_PER_MS));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (bp_stop_requested())
			return -EINTR;
	}
}

/*
 * The server's first byte, by the set-up's deadline. A boardperf or iperf3 server answers
 * the cookie with PARAM_EXCHANGE or a refusal at once; a listener that stays silent, hangs
 * up or sends anything else is some other program, and "waiting for PARAM_EXCHANGE" would
 * tell the user nothing. The byte is only peeked: bp_ctl_expect reads it as usual.
 */
static int first_state(struct bp_ctl *c, uint64_t deadline_ns, uint64_t timeout_ns)
{
	unsigned char buf[QUOTE_MAX];
	char where[64], what[4 * QUOTE_MAX + 1];
	int rc = wait_readable(c->fd, deadline_ns);
	ssize_t n = rc ? -1 : recv(c->fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);

	peer(c, where);
	if (rc == -ETIMEDOUT) {
		snprintf(c->err, c->errlen, "%s accepted the connection but sent nothing within "
			 "%g s: not a boardperf or iperf3 server?", where, (double)timeout_ns / 1e9);
		return rc;
	}
	if (rc)
		return rc;
	if (n == 0 || (n < 0 && errno == ECONNRESET)) {
		snprintf(c->err, c->errlen, "%s accepted the connection but closed it without "
			 "answering: not a boardperf or iperf3 server?", where);
		return -ECONNRESET;
	}
	if (n < 0)
		return -errno;
	if ((signed char)buf[0] == BP_PARAM_EXCHANGE || (signed char)buf[0] == BP_ACCESS_DENIED ||
	    (signed char)buf[0] == BP_SERVER_ERROR)
		return 0;
	quote(buf, (size_t)n, what, sizeof(what));
	snprintf(c->err, c->errlen, "%s answered, but not as a boardperf or iperf3 server "
		 "(it sent \"%s\")", where, what);
	return -EPROTO;
}

int bp_ctl_open(struct bp_ctl *c, const struct bp_ctl_target *t,
		const struct bp_net_params *np, char *err, size_t errlen)
{
	/* One deadline for the whole set-up, so that --connect-timeout is what it costs. */
	uint64_t deadline = bp_now_ns() + t->connect_timeout_ns;
	unsigned char nonce[BP_PSK_NONCE_LEN];
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->step_ns = t->idle_timeout_ns ? t->idle_timeout_ns : BP_CTL_STEP_TIMEOUT_NS;
	c->err = err;
	c->errlen = errlen;
	err[0] = '\0';
	rc = bp_resolve(t->host, t->port, t->family, false, &c->addr, err, errlen);
	if (!rc)
		rc = bp_tcp_connect(&c->addr, deadline, NULL, NULL, &c->fd, err, errlen);
	/*
	 * Control messages are single bytes: with Nagle, the second of two back-to-back states
	 * waits for the peer's delayed ACK (40 ms) and shifts one side's clock by that much.
	 */
	if (!rc)
		rc = bp_sock_set_nodelay(c->fd, err, errlen);
	if (!rc)
		rc = bp_cookie_make(c->cookie);
	if (!rc)
		rc = bp_proto_write_all(c->fd, c->cookie, BP_COOKIE_LEN, deadline);
	if (!rc)
		rc = first_state(c, deadline, t->connect_timeout_ns);
	if (!rc)
		rc = bp_ctl_expect(c, BP_PARAM_EXCHANGE);
	if (!rc) {
		json_t *params = bp_net_params_to_json(np);

		rc = !params ? -ENOMEM : t->psk ? bp_psk_offer(params, nonce) : 0;
		if (!rc && np->auth)  /* iperf3's --username: a token made for this connection */
			rc = bp_iperf3_client_add_token(np->auth, params, err, errlen);
		if (!rc)
			rc = bp_proto_send_json(c->fd, params, step_deadline(c));
		json_decref(params);
	}
	if (!rc && t->psk)
		rc = bp_psk_client_step(c, t->psk, nonce);
	if (rc && !err[0])
		snprintf(err, errlen, "control exchange with %s: %s", peer(c, (char[64]){ 0 }),
			 strerror(-rc));
	return rc;
}

int bp_ctl_start(struct bp_ctl *c, const struct bp_ctl_target *t,
		 const struct bp_net_params *np, int (*open_streams)(void *arg), void *arg,
		 char *err, size_t errlen)
{
	int rc = bp_ctl_open(c, t, np, err, errlen);

	if (!rc)
		rc = bp_ctl_expect(c, BP_CREATE_STREAMS);
	if (!rc)
		rc = open_streams(arg);
	if (!rc)
		rc = bp_ctl_expect(c, BP_TEST_START);
	if (!rc)
		rc = bp_ctl_expect(c, BP_TEST_RUNNING);
	return rc;
}

/*
 * The test is over. The stop requests so far ended it; they do not also cut the goodbye,
 * or the server's figures would be lost and its log would call the test abandoned (one
 * Ctrl-C through `timeout` arrives twice). A further request does: the user insists.
 */
static void tolerate_the_stop(struct bp_ctl *c)
{
	if (!c->ending) {
		c->ending = true;
		c->stops_at_end = bp_stop_requests();
	}
	bp_proto_tolerate_stops(c->stops_at_end);
}

static int send_test_end(struct bp_ctl *c)
{
	int rc = c->test_ended ? 0 : bp_proto_send_state(c->fd, BP_TEST_END, step_deadline(c));

	c->test_ended = !rc;
	return rc;
}

int bp_ctl_end_test(struct bp_ctl *c)
{
	int rc;

	tolerate_the_stop(c);
	rc = send_test_end(c);
	bp_proto_tolerate_stops(0);
	return rc;
}

int bp_ctl_await_exchange(struct bp_ctl *c)
{
	int rc;

	tolerate_the_stop(c);
	rc = send_test_end(c);
	if (!rc)
		rc = bp_ctl_expect(c, BP_EXCHANGE_RESULTS);
	bp_proto_tolerate_stops(0);
	c->exchange_awaited = true;
	c->exchange_rc = rc;
	return rc;
}

int bp_ctl_finish(struct bp_ctl *c, const json_t *mine, json_t **theirs)
{
	int rc;

	tolerate_the_stop(c);
	rc = c->exchange_awaited ? c->exchange_rc : send_test_end(c);
	*theirs = NULL;
	if (!rc && !c->exchange_awaited)
		rc = bp_ctl_expect(c, BP_EXCHANGE_RESULTS);
	if (!rc)
		rc = mine ? bp_proto_send_json(c->fd, mine, step_deadline(c)) : -ENOMEM;
	if (!rc)
		rc = bp_proto_recv_json(c->fd, theirs, step_deadline(c));
	if (!rc)
		rc = bp_ctl_expect(c, BP_DISPLAY_RESULTS);
	if (!rc)
		rc = bp_proto_send_state(c->fd, BP_IPERF_DONE, step_deadline(c));
	bp_proto_tolerate_stops(0);
	if (rc == -EINTR)
		snprintf(c->err, c->errlen, "stopped again while exchanging results with the "
			 "server %s: its figures are missing", peer(c, (char[64]){ 0 }));
	if (rc == -ETIMEDOUT && !c->err[0])
		snprintf(c->err, c->errlen, "server %s sent no results within %g s (--idle-timeout)",
			 peer(c, (char[64]){ 0 }), (double)c->step_ns / 1e9);
	if (rc && !c->err[0])
		snprintf(c->err, c->errlen, "exchanging results with the server: %s", strerror(-rc));
	return rc;
}

int bp_ctl_stream_hello(const struct bp_ctl *c, int fd, uint32_t index, uint64_t deadline)
{
	unsigned char hello[BP_COOKIE_LEN + BP_PSK_STREAM_PROOF_LEN];
	size_t len = BP_COOKIE_LEN;

	memcpy(hello, c->cookie, BP_COOKIE_LEN);
	if (c->stream_proof) {
		if (bp_psk_stream_proof(c->stream_key, index, hello + BP_COOKIE_LEN))
			return -EIO;
		len += BP_PSK_STREAM_PROOF_LEN;
	}
	/* One segment: the server reads the proof with the cookie, without waiting for it. */
	return bp_proto_write_all(fd, hello, len, deadline);
}

void bp_ctl_close(struct bp_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	OPENSSL_cleanse(c->stream_key, sizeof(c->stream_key));
}
