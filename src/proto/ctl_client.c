#include "proto/ctl_client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "proto/iperf3_error.h"

uint64_t bp_ctl_deadline(void)
{
	return bp_now_ns() + BP_CTL_STEP_TIMEOUT_NS;
}

/*
 * A refusal from the server: SERVER_ERROR then boardperf's {"error": "..."} or a stock
 * iperf3's error numbers; ACCESS_DENIED is iperf3's "busy". -EREMOTEIO, not
 * -ECONNREFUSED: the result's error code tells a server that said no ("server-refused")
 * from a port nobody listens on ("connect-refused").
 */
static int refused(struct bp_ctl *c, int state)
{
	char why[256] = "";

	if (state == BP_SERVER_ERROR &&
	    bp_iperf3_recv_refusal(c->fd, why, sizeof(why), bp_now_ns() + BP_NS_PER_SEC))
		why[0] = '\0';
	snprintf(c->err, c->errlen, "server %s: %s", bp_addr_str(&c->addr, (char[64]){ 0 }, 64),
		 why[0] ? why : state == BP_ACCESS_DENIED ?
		 "busy running a test (access denied); try again later" : "server error");
	return -EREMOTEIO;
}

int bp_ctl_expect(struct bp_ctl *c, int want)
{
	int state, rc = bp_proto_recv_state(c->fd, &state, bp_ctl_deadline());

	if (rc) {
		snprintf(c->err, c->errlen, "waiting for %s from the server: %s",
			 bp_proto_state_name(want), strerror(-rc));
		return rc;
	}
	if (state == BP_SERVER_ERROR || state == BP_ACCESS_DENIED)
		return refused(c, state);
	if (state != want) {
		snprintf(c->err, c->errlen, "server sent %s where %s was due",
			 bp_proto_state_name(state), bp_proto_state_name(want));
		return -EPROTO;
	}
	return 0;
}

int bp_ctl_event(struct bp_ctl *c)
{
	int state, rc = bp_proto_recv_state(c->fd, &state, bp_ctl_deadline());

	if (rc) {
		snprintf(c->err, c->errlen, "control connection to the server lost: %s",
			 strerror(-rc));
		return rc;
	}
	return refused(c, state);
}

int bp_ctl_open(struct bp_ctl *c, const char *host, unsigned port, enum bp_family family,
		uint64_t connect_timeout_ns, const struct bp_net_params *np, char *err,
		size_t errlen)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->err = err;
	c->errlen = errlen;
	err[0] = '\0';
	rc = bp_resolve(host, port, family, false, &c->addr, err, errlen);
	if (!rc)
		rc = bp_tcp_connect(&c->addr, bp_now_ns() + connect_timeout_ns, NULL, NULL, &c->fd,
				    err, errlen);
	/*
	 * Control messages are single bytes: with Nagle, the second of two back-to-back states
	 * waits for the peer's delayed ACK (40 ms) and shifts one side's clock by that much.
	 */
	if (!rc)
		rc = bp_sock_set_nodelay(c->fd, err, errlen);
	if (!rc)
		rc = bp_cookie_make(c->cookie);
	if (!rc)
		rc = bp_proto_write_all(c->fd, c->cookie, BP_COOKIE_LEN, bp_ctl_deadline());
	if (!rc)
		rc = bp_ctl_expect(c, BP_PARAM_EXCHANGE);
	if (!rc) {
		json_t *params = bp_net_params_to_json(np);

		rc = params ? bp_proto_send_json(c->fd, params, bp_ctl_deadline()) : -ENOMEM;
		json_decref(params);
	}
	if (rc && !err[0])
		snprintf(err, errlen, "control exchange with %s: %s",
			 bp_addr_str(&c->addr, (char[64]){ 0 }, 64), strerror(-rc));
	return rc;
}

int bp_ctl_start(struct bp_ctl *c, const char *host, unsigned port, enum bp_family family,
		 uint64_t connect_timeout_ns, const struct bp_net_params *np,
		 int (*open_streams)(void *arg), void *arg, char *err, size_t errlen)
{
	int rc = bp_ctl_open(c, host, port, family, connect_timeout_ns, np, err, errlen);

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

int bp_ctl_finish(struct bp_ctl *c, const json_t *mine, json_t **theirs)
{
	int rc = bp_proto_send_state(c->fd, BP_TEST_END, bp_ctl_deadline());

	*theirs = NULL;
	if (!rc)
		rc = bp_ctl_expect(c, BP_EXCHANGE_RESULTS);
	if (!rc)
		rc = mine ? bp_proto_send_json(c->fd, mine, bp_ctl_deadline()) : -ENOMEM;
	if (!rc)
		rc = bp_proto_recv_json(c->fd, theirs, bp_ctl_deadline());
	if (!rc)
		rc = bp_ctl_expect(c, BP_DISPLAY_RESULTS);
	if (!rc)
		rc = bp_proto_send_state(c->fd, BP_IPERF_DONE, bp_ctl_deadline());
	if (rc && !c->err[0])
		snprintf(c->err, c->errlen, "exchanging results with the server: %s", strerror(-rc));
	return rc;
}

void bp_ctl_close(struct bp_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
