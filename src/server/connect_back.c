/* A connection back to a client (connect_back.h). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/connect_back.h"

static int try_connect(struct srv_connect_back *cb);

static void retry_due(struct bp_timer *t, uint64_t now)
{
	struct srv_connect_back *cb = t->data;
	int rc;

	(void)now;
	if ((rc = try_connect(cb)))
		cb->done(cb, -1, rc);
}

void srv_connect_back_init(struct srv_connect_back *cb, srv_connect_back_fn done, void *data)
{
	*cb = (struct srv_connect_back){ .flow = { .fd = -1 }, .done = done, .data = data };
	cb->retry = (struct bp_timer){ .fn = retry_due, .data = cb };
}

static void set_port(struct bp_addr *a, uint16_t port)
{
	if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

/* Writable: connected, or refused (SO_ERROR says which). */
static void connected(struct bp_flow *f, uint32_t events)
{
	struct srv_connect_back *cb = f->data;
	int fd = f->fd, soerr = 0;
	socklen_t len = sizeof(soerr);

	(void)events;
	bp_loop_del(f);
	f->fd = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		soerr = errno;
	if (soerr) {
		close(fd);
		if (soerr == ECONNREFUSED && bp_now_ns() < cb->retry_until_ns) {
			bp_timer_arm(cb->loop, &cb->retry, bp_now_ns() + SRV_CONNECT_BACK_RETRY_NS);
			return;
		}
		cb->done(cb, -1, -soerr);
		return;
	}
	cb->done(cb, fd, 0);
}

int srv_connect_back_start(struct srv_connect_back *cb, struct bp_loop *loop,
			   const struct bp_addr *local, const struct bp_addr *peer, uint16_t port)
{
	if (!port || local->ss.ss_family != peer->ss.ss_family)
		return -EINVAL;
	cb->loop = loop;
	cb->from = *local;
	cb->to = *peer;
	set_port(&cb->from, 0);
	set_port(&cb->to, port);
	cb->retry_until_ns = bp_now_ns() + SRV_CONNECT_BACK_TRY_NS;
	return try_connect(cb);
}

static int try_connect(struct srv_connect_back *cb)
{
	const struct bp_addr *from = &cb->from, *to = &cb->to;
	int fd, rc;

	fd = socket(to->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (const struct sockaddr *)&from->ss, from->len) ||
	    (connect(fd, (const struct sockaddr *)&to->ss, to->len) && errno != EINPROGRESS)) {
		rc = -errno;
		close(fd);
		if (rc == -ECONNREFUSED && bp_now_ns() < cb->retry_until_ns) {
			bp_timer_arm(cb->loop, &cb->retry, bp_now_ns() + SRV_CONNECT_BACK_RETRY_NS);
			return 0;
		}
		return rc;
	}
	/* even a connect that completed at once (loopback) is reported from the loop */
	cb->flow = (struct bp_flow){ .fd = fd, .events = EPOLLOUT, .handler = connected,
				     .data = cb };
	if ((rc = bp_loop_add(cb->loop, &cb->flow))) {
		close(fd);
		cb->flow.fd = -1;
		return rc;
	}
	return 0;
}

void srv_connect_back_cancel(struct srv_connect_back *cb)
{
	if (cb->loop)
		bp_timer_cancel(cb->loop, &cb->retry);
	if (cb->flow.fd < 0)
		return;
	bp_loop_del(&cb->flow);
	close(cb->flow.fd);
	cb->flow.fd = -1;
}
