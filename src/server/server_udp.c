/*
 * UDP hellos (server_udp.h). A hello's source address is whatever its sender wrote: a
 * server that answers it unchecked can be told, by anyone holding a control connection, to
 * send a udp -R test's stream (or rr --udp's responses) to a third host — a reflection
 * attack, measured at 3,654 datagrams to the forged address for one 2 s test at 10 Mbit/s
 * before this check (tests/integration/test_attack_reflect.sh). So a hello is answered only
 * when it comes from the address of its test's control connection (the port differs: the
 * client's data socket has its own), and from a boardperf client only with its test's
 * cookie; a stock iperf3 hello carries no cookie and goes to the oldest waiting test of that
 * address. Whatever is dropped gets no answer at all and is counted for the log.
 */
#include "server/server_udp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "io/addr_host.h"
#include "proto/udp_connect.h"
#include "server/server_internal.h"
#include "server/server_iperf2.h"

/* The socket buffer of a UDP data stream: room for bursts at high rates. */
#define UDP_STREAM_BUFFER (4 << 20)
/* Hellos read per wake-up: a flood of them must not starve the control connections. */
#define HELLOS_PER_WAKE 64
/* Dropped hellos are summed over this period: one log line for a flood, not one per datagram. */
#define DROP_PERIOD_NS (10 * BP_NS_PER_SEC)

enum drop_reason { DROP_WRONG_ADDR, DROP_NO_TEST };

/* The period's line (when: "in the last 10 s", or "since the last line" at the stop). */
static void drops_summary(struct srv_udp_drops *d, const char *when)
{
	if (!d->wrong_addr && !d->no_test)
		return;
	bp_warn_peer(NULL, "UDP greetings dropped unanswered %s: %llu from another address "
		"than their test's client, %llu for no waiting test (%llu since start; last: %s)",
		when, (unsigned long long)d->wrong_addr, (unsigned long long)d->no_test,
		(unsigned long long)d->total, d->last);
	d->wrong_addr = d->no_test = 0;
}

static void drops_flush(struct bp_timer *t, uint64_t now_ns)
{
	struct srv *s = t->data;
	struct srv_udp_drops *d = &s->udp_drops;
	char when[32];

	snprintf(when, sizeof(when), "in the last %u s",
		 (unsigned)(DROP_PERIOD_NS / BP_NS_PER_SEC));
	/* A period that dropped something starts another; a quiet one ends the summing. */
	d->open = d->wrong_addr || d->no_test;
	drops_summary(d, when);
	if (d->open)
		bp_timer_arm(s->loop, &d->flush, now_ns + DROP_PERIOD_NS);
}

/*
 * Count a dropped hello (from: its sender; reason: why); the first of a quiet spell is
 * logged at once, the others on the period's one line.
 */
static void drop(struct srv *s, enum drop_reason why, const char *from, const char *reason)
{
	struct srv_udp_drops *d = &s->udp_drops;

	d->total++;
	snprintf(d->last, sizeof(d->last), "%s: %s", from, reason);
	if (!d->open) {
		bp_warn_peer(from, "%s: UDP greeting dropped unanswered: %s%s; further drops "
			"are summed every %u s", from, reason,
			why == DROP_WRONG_ADDR ? " (UDP data goes only to the address of the "
						 "test's control connection)" : "",
			(unsigned)(DROP_PERIOD_NS / BP_NS_PER_SEC));
		d->open = true;
		d->flush = (struct bp_timer){ .fn = drops_flush, .data = s };
		bp_timer_arm(s->loop, &d->flush, bp_now_ns() + DROP_PERIOD_NS);
		return;
	}
	if (why == DROP_WRONG_ADDR)
		d->wrong_addr++;
	else
		d->no_test++;
}

/* The session this hello may open a stream of, or NULL (counted and logged as dropped). */
static struct srv_session *hello_session(struct srv *s, const char *cookie,
					 const struct bp_addr *from)
{
	struct srv_session *ss;
	char who[64], why[128];

	bp_addr_str(from, who, sizeof(who));
	if (!cookie[0]) {
		ss = srv_session_waiting_udp(s, from);
		if (!ss && srv_session_any_waiting_udp(s))
			drop(s, DROP_WRONG_ADDR, who,
			     "no test from this address waits for UDP streams");
		else if (!ss)
			drop(s, DROP_NO_TEST, who, "no test waits for UDP streams");
		return ss;
	}
	ss = srv_session_find(s, cookie);
	if (!ss || !bp_net_params_datagram(&ss->np)) {
		drop(s, DROP_NO_TEST, who, "its cookie names no UDP test");
		return NULL;
	}
	if (!bp_addr_same_host(&ss->ctl_addr, from)) {
		snprintf(why, sizeof(why), "its test's control connection is from %s", ss->peer);
		drop(s, DROP_WRONG_ADDR, who, why);
		return NULL;
	}
	return ss;
}

static bool same_endpoint(const struct bp_addr *a, const struct bp_addr *b)
{
	return a->len == b->len && !memcmp(&a->ss, &b->ss, a->len);
}

static void take_strays(struct srv *s, int listen_fd, int fd, const struct bp_addr *peer,
			int *budget);

/*
 * One datagram off fd (the listener, or a new stream's socket holding strays) taken as the
 * listener takes it: a hello answered from a socket connected to its client, that socket's
 * strays taken in turn before the session gets it (it may close it), or a stock iperf 2
 * client's datagram passed on (server_iperf2_udp.c). -EAGAIN when fd holds none.
 */
static int take_datagram(struct srv *s, int listen_fd, int fd, int *budget)
{
	char cookie[BP_COOKIE_LEN];
	struct bp_udp_datagram raw;
	struct srv_session *ss;
	struct bp_addr from;
	int rc = bp_udp_read_hello(fd, cookie, &from, &raw), answered;

	if (rc == -EBADMSG)
		srv_iperf2_udp_datagram(s, listen_fd, &from, &raw);
	if (rc)
		return rc == -EAGAIN ? rc : 0;
	ss = hello_session(s, cookie, &from);
	if (ss && !bp_udp_answer_hello(listen_fd, &from, UDP_STREAM_BUFFER, &answered)) {
		take_strays(s, listen_fd, answered, &from, budget);
		srv_session_take_udp(ss, answered, bp_addr_str(&from, (char[64]){ 0 }, 64), NULL,
				     0);
	}
	return 0;
}

/*
 * A new stream's socket is bound to the listener's port before it is connected to its
 * client, and in that moment the kernel gives it, the newest socket on the port, any
 * peer's datagrams: another client's hello, sent at the same instant (testers started
 * together with --start-at), waited 250 ms for its resend. Such strays are taken off its
 * queue and answered as the listener would, up to the first datagram of its own client.
 */
static void take_strays(struct srv *s, int listen_fd, int fd, const struct bp_addr *peer,
			int *budget)
{
	while (*budget > 0) {
		struct bp_addr from = { .len = sizeof(from.ss) };
		char byte;

		if (recvfrom(fd, &byte, 1, MSG_DONTWAIT | MSG_PEEK, (struct sockaddr *)&from.ss,
			     &from.len) < 0 || same_endpoint(&from, peer))
			return;
		(*budget)--;
		if (take_datagram(s, listen_fd, fd, budget) == -EAGAIN)
			return;
	}
}

static void udp_readable(struct bp_flow *f, uint32_t events)
{
	struct srv *s = f->data;
	int budget = HELLOS_PER_WAKE;

	(void)events;
	while (budget-- > 0)
		if (take_datagram(s, f->fd, f->fd, &budget) == -EAGAIN)
			return;
}

int srv_udp_open(struct srv *s, const struct bp_addr *a, char *err, size_t errlen)
{
	int fd, rc = bp_udp_listen(a, &fd, err, errlen);

	if (rc)
		return rc;
	s->udp_listener = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = udp_readable,
					    .data = s };
	rc = bp_loop_add(s->loop, &s->udp_listener);
	if (rc) {
		snprintf(err, errlen, "udp listening socket: %s", strerror(-rc));
		close(fd);
		s->udp_listener.fd = -1;
	}
	return rc;
}

void srv_udp_close(struct srv *s)
{
	drops_summary(&s->udp_drops, "since the last line");
	if (s->udp_drops.open)
		bp_timer_cancel(s->loop, &s->udp_drops.flush);
	s->udp_drops.open = false;
	if (s->udp_listener.fd > 0) {
		bp_loop_del(&s->udp_listener);
		close(s->udp_listener.fd);
		s->udp_listener.fd = -1;
	}
}
