/* A connection back to a client (connect_back.h). */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/connect_back.h"

void srv_connect_back_init(struct srv_connect_back *cb, srv_connect_back_fn done, void *data)
{
	*cb = (struct srv_connect_back){ .flow = { .fd = -1 }, .done = done, .data = data };
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
		cb->done(cb, -1, -soerr);
		return;
	}
	cb->done(cb, fd, 0);
}

int srv_connect_back_start(struct srv_connect_back *cb, struct bp_loop *loop,
			   const struct bp_addr *local, const struct bp_addr *peer, uint16_t port)
{
	struct bp_addr from = *local, to = *peer;
	int fd, rc;

	if (!port || local->ss.ss_family != peer->ss.ss_family)
		return -EINVAL;
	set_port(&from, 0);
	set_port(&to, port);
	fd = socket(to.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&from.ss, from.len) ||
	    (connect(fd, (struct sockaddr *)&to.ss, to.len) && errno != EINPROGRESS)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	/* even a connect that completed at once (loopback) is reported from the loop */
	cb->flow = (struct bp_flow){ .fd = fd, .events = EPOLLOUT, .handler = connected,
				     .data = cb };
	if ((rc = bp_loop_add(loop, &cb->flow))) {
		close(fd);
		cb->flow.fd = -1;
		return rc;
	}
	return 0;
}

void srv_connect_back_cancel(struct srv_connect_back *cb)
{
	if (cb->flow.fd < 0)
		return;
	bp_loop_del(&cb->flow);
	close(cb->flow.fd);
	cb->flow.fd = -1;
}
