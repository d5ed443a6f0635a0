#include "server/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/workers.h"
#include "server/server_internal.h"
#include "io/stream_pool.h"

/* A connection whose first 37 bytes (the cookie) say whether it is control or data. */
struct pending {
	struct bp_flow flow;
	struct srv *srv;
	char cookie[BP_COOKIE_LEN];
	size_t have;
	char peer[64];
	struct bp_timer timer;
};

static void pending_free(struct pending *p, bool close_fd)
{
	bp_timer_cancel(p->srv->loop, &p->timer);
	bp_loop_del(&p->flow);
	if (close_fd)
		close(p->flow.fd);
	free(p);
}

static void pending_timeout(struct bp_timer *t, uint64_t now_ns)
{
	struct pending *p = t->data;

	(void)now_ns;
	bp_debug("%s: no cookie within the idle timeout, dropped", p->peer);
	pending_free(p, true);
}

/* Hand a connection whose cookie is read to its session (or start one); frees p. */
static void route(struct pending *p)
{
	struct srv *s = p->srv;
	int fd = p->flow.fd;
	struct srv_session *ss;
	char cookie[BP_COOKIE_LEN], peer[64];

	memcpy(cookie, p->cookie, sizeof(cookie));
	memcpy(peer, p->peer, sizeof(peer));
	free(p);
	if (!bp_cookie_valid(cookie)) {
		bp_info("%s: not a boardperf or iperf3 client (bad cookie), dropped", peer);
		close(fd);
		return;
	}
	ss = srv_session_find(s, cookie);
	if (!ss)
		srv_session_new(s, fd, peer, cookie);
	else if (!srv_session_take_stream(ss, fd))
		close(fd);
}

static void pending_readable(struct bp_flow *f, uint32_t events)
{
	struct pending *p = f->data;
	ssize_t n;

	(void)events;
	/* Read no further than the cookie: what follows belongs to the session. */
	n = recv(f->fd, p->cookie + p->have, BP_COOKIE_LEN - p->have, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		pending_free(p, true);
		return;
	}
	if (n > 0)
		p->have += (size_t)n;
	if (p->have == BP_COOKIE_LEN) {
		/* Out of the loop first: the fd is about to be registered again by its owner. */
		bp_timer_cancel(p->srv->loop, &p->timer);
		bp_loop_del(&p->flow);
		route(p);
	}
}

static void accept_one(struct srv *s, int fd, const struct bp_addr *peer)
{
	struct pending *p = calloc(1, sizeof(*p));
	ssize_t n;

	if (!p) {
		close(fd);
		return;
	}
	p->srv = s;
	bp_addr_str(peer, p->peer, sizeof(p->peer));
	/*
	 * The cookie usually came with the handshake's last ACK (a client writes it first):
	 * route at once, without an epoll registration, a wait and a timer per connection,
	 * which for crr's thousands of connections a second is most of the server's work.
	 */
	n = recv(fd, p->cookie, BP_COOKIE_LEN, MSG_DONTWAIT);
	if (n == 0) {
		close(fd);
		free(p);
		return;
	}
	if (n > 0)
		p->have = (size_t)n;
	if (p->have == BP_COOKIE_LEN) {
		p->flow.fd = fd;
		route(p);
		return;
	}
	p->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = pending_readable,
				    .data = p };
	p->timer = (struct bp_timer){ .fn = pending_timeout, .data = p };
	if (bp_loop_add(s->loop, &p->flow)) {
		close(fd);
		free(p);
		return;
	}
	bp_timer_arm(s->loop, &p->timer, bp_now_ns() + s->o->idle_timeout_ns);
}

static void listener_readable(struct bp_flow *f, uint32_t events)
{
	struct srv *s = f->data;

	(void)events;
	for (;;) {
		struct bp_addr peer = { .len = sizeof(peer.ss) };
		int fd = accept4(f->fd, (struct sockaddr *)&peer.ss, &peer.len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				bp_warn("accept: %s", strerror(errno));
			return;
		}
		accept_one(s, fd, &peer);
	}
}

/*
 * The longest accept queue the kernel allows (net.core.somaxconn caps it, 4096 by default):
 * crr offers tens of thousands of connections a second, and a queue that overflows while
 * this thread is off its core drops a SYN, which costs the client its 1 s retransmission.
 */
static int open_listener(struct srv *s, unsigned *port, char *err, size_t errlen)
{
	struct bp_addr a;
	int fd, rc;

	rc = bp_resolve(s->o->bind, s->o->port, s->o->family, true, &a, err, errlen);
	if (!rc)
		rc = bp_tcp_listen(&a, SOMAXCONN, &fd, err, errlen);
	if (rc)
		return rc;
	s->listener = (struct bp_flow){ .fd = fd, .events = EPOLLIN,
					.handler = listener_readable, .data = s };
	rc = bp_loop_add(s->loop, &s->listener);
	if (rc) {
		snprintf(err, errlen, "listening socket: %s", strerror(-rc));
		close(fd);
		return rc;
	}
	/* With port 0 the kernel chose one: read back what was bound. */
	a.len = sizeof(a.ss);
	if (getsockname(fd, (struct sockaddr *)&a.ss, &a.len) == 0)
		*port = ntohs(a.ss.ss_family == AF_INET6 ?
			      ((struct sockaddr_in6 *)&a.ss)->sin6_port :
			      ((struct sockaddr_in *)&a.ss)->sin_port);
	/* UDP tests greet the same port over UDP. */
	rc = srv_udp_open(s, &a, err, errlen);
	if (rc)
		return rc;
	bp_info("listening on %s", bp_addr_str(&a, (char[64]){ 0 }, 64));
	return 0;
}

static void close_all(struct srv *s)
{
	while (s->sessions)
		srv_session_close(s->sessions, "server shutting down");
}

int bp_server_run(const struct bp_server_opts *o, char *err, size_t errlen)
{
	struct srv s = { .o = o };
	int workers = o->workers ? o->workers : bp_workers_available_cpus();
	unsigned port = o->port;
	int rc = -ENOMEM;

	s.loop = bp_loop_new();
	s.pool = s.loop ? bp_stream_pool_new(workers, err, errlen) : NULL;
	if (!s.loop || !s.pool) {
		if (!s.loop)
			snprintf(err, errlen, "cannot create the event loop");
		if (o->ready)
			o->ready(o->ready_arg, rc, err, 0, NULL);
		goto out;
	}
	rc = open_listener(&s, &port, err, errlen);
	if (o->ready)
		o->ready(o->ready_arg, rc, err, port, s.loop);
	/* Runs until a signal, bp_loop_stop from another thread, or max_tests. */
	if (!rc)
		rc = bp_loop_run(s.loop, 0);
	if (rc == -EINTR)
		rc = 0;
	close_all(&s);
	if (s.listener.fd > 0) {
		bp_loop_del(&s.listener);
		close(s.listener.fd);
	}
	srv_udp_close(&s);
out:
	if (s.pool)
		bp_stream_pool_free(s.pool);
	if (s.loop)
		bp_loop_free(s.loop);
	return rc;
}
