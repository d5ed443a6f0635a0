/*
 * The SCTP listener of `serve`: SCTP has a port space of its own, so the data connections of
 * a test over SCTP (tcp --sctp, rr/crr --sctp, a stock iperf3 --sctp) come to the same port
 * number there, as iperf3's server takes them. Accepted connections go through the same door
 * as TCP's (server_accept.c, server_pending.c): the cookie first, then the session that
 * named it, which takes a connection only over the transport its test asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/log.h"
#include "io/sock.h"
#include "server/server_internal.h"

int srv_sctp_open(struct srv *s, char *err, size_t errlen)
{
	char where[64];
	int fd, rc;

	if (s->sctp_listener.fd > 0)
		return 0;
	rc = bp_stream_listen(&s->bound, IPPROTO_SCTP, SOMAXCONN, &fd, err, errlen);
	if (rc)
		return rc;
	s->sctp_listener = (struct bp_flow){ .fd = fd, .events = EPOLLIN,
					     .handler = srv_door_listener_readable, .data = s };
	rc = bp_loop_add(s->loop, &s->sctp_listener);
	if (rc) {
		snprintf(err, errlen, "SCTP listening socket: %s", strerror(-rc));
		close(fd);
		s->sctp_listener.fd = 0;
		return rc;
	}
	bp_info("listening for SCTP on %s", bp_addr_str(&s->bound, where, sizeof(where)));
	return 0;
}

void srv_sctp_close(struct srv *s)
{
	if (s->sctp_listener.fd <= 0)
		return;
	bp_loop_del(&s->sctp_listener);
	close(s->sctp_listener.fd);
	s->sctp_listener.fd = 0;
}
