/*
 * The accept loop of the test port, and what it does when the process is out of file
 * descriptors (server_accept.h). A listener is level-triggered: a connection left in its
 * queue because accept failed wakes the loop again at once, so every failure here either
 * takes the connection out of the queue or takes the listener out of the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/be32.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "proto/control.h"
#include "server/server_accept.h"
#include "server/server_internal.h"

/*
 * Connections taken per wake-up: a flood of them must leave the loop time for the control
 * connections of the tests running (the rest wait in the kernel's queue for the next turn).
 */
#define ACCEPT_BURST 64
/* Out of descriptors with nothing to shed and no reserve: how long the listener rests. */
#define ACCEPT_PAUSE_NS (100 * BP_NS_PER_MS)

static int open_reserve(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/*
 * The connection taken with the reserve descriptor, told why before it is closed: iperf3's
 * ACCESS_DENIED (a stock iperf3 prints "the server is busy"), then boardperf's reason, which
 * a boardperf client prints instead of "closed without answering: not a boardperf or iperf3
 * server?" (a stock iperf3 stops reading after the state). Its cookie is read first, so that
 * the close is a FIN: a reset for unread bytes could overtake the answer.
 */
static void tell_busy(struct srv *s, int fd)
{
	unsigned char msg[160];
	char cookie[BP_COOKIE_LEN];
	struct rlimit rl;
	int len;

	(void)recv(fd, cookie, sizeof(cookie), MSG_DONTWAIT);
	/* The limit now: it may have been changed since the start (prlimit). */
	len = snprintf((char *)msg + 5, sizeof(msg) - 5, "{\"error\":\"busy: the server is out of "
		       "file descriptors (ulimit -n %llu); try again later\"}",
		       getrlimit(RLIMIT_NOFILE, &rl) ? (unsigned long long)s->door.fd_limit :
		       (unsigned long long)rl.rlim_cur);
	msg[0] = (unsigned char)BP_ACCESS_DENIED;
	bp_put_be32(msg + 1, (uint32_t)len);
	(void)send(fd, msg, 5 + (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

static void resume_listener(struct bp_timer *t, uint64_t now_ns)
{
	struct srv *s = t->data;

	(void)now_ns;
	s->door.paused = false;
	bp_loop_mod(&s->listener, EPOLLIN);
	if (s->sctp_listener.fd > 0)
		bp_loop_mod(&s->sctp_listener, EPOLLIN);
}

static void pause_listener(struct srv *s)
{
	if (s->door.paused)
		return;
	s->door.paused = true;
	bp_loop_mod(&s->listener, 0);
	/* the SCTP listener too (server_sctp.c): the same descriptors run short for both */
	if (s->sctp_listener.fd > 0)
		bp_loop_mod(&s->sctp_listener, 0);
	bp_timer_arm(s->loop, &s->door.resume, bp_now_ns() + ACCEPT_PAUSE_NS);
}

int srv_door_init(struct srv *s)
{
	struct srv_door *d = &s->door;
	struct rlimit rl;

	d->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1u << 30 ?
		      (int)rl.rlim_cur : 1 << 30;
	d->resume = (struct bp_timer){ .fn = resume_listener, .data = s };
	d->reserve_fd = open_reserve();
	return d->reserve_fd < 0 ? -errno : 0;
}

void srv_door_free(struct srv *s)
{
	srv_pending_close_all(s);
	bp_timer_cancel(s->loop, &s->door.resume);
	if (s->door.reserve_fd >= 0)
		close(s->door.reserve_fd);
	s->door.reserve_fd = -1;
}

void srv_door_out_of_fds(struct srv *s, const char *op, int err)
{
	bp_warn_peer(NULL, "%s: %s (descriptor limit %d, %d connections "
		     "without a cookie, %llu shed and %llu refused so far)", op,
		     strerror(err), s->door.fd_limit, s->door.npending,
		     (unsigned long long)s->door.shed, (unsigned long long)s->door.refused);
}

/*
 * The accept failed for want of a descriptor. True when the loop may try again: a
 * pending connection was shed (its descriptor is free), or the reserve let the newest
 * connection be accepted, told the server is busy and closed (the client learns at once,
 * instead of waiting in the queue). False: the listener rests for a moment.
 */
static bool out_of_fds(struct srv *s, int err)
{
	struct srv_door *d = &s->door;
	int fd;

	srv_door_out_of_fds(s, "accept", err);
	/*
	 * Whichever waited longest goes: a connection without its cookie, or a session that
	 * sent one but no parameters. Either way a real client is the newest (it is past both
	 * steps within a round trip), so under a flood of the other kind it is not shed.
	 */
	if (srv_session_oldest_setup_ns(s) < srv_pending_oldest_ns(s) ?
	    srv_session_shed_setup(s, NULL, "descriptor limit") ||
	    srv_pending_shed_oldest(s, "descriptor limit") :
	    srv_pending_shed_oldest(s, "descriptor limit") ||
	    srv_session_shed_setup(s, NULL, "descriptor limit"))
		return true;
	if (d->reserve_fd < 0) {
		d->reserve_fd = open_reserve();
		pause_listener(s);
		return false;
	}
	close(d->reserve_fd);
	fd = accept4(s->listener.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0) {
		tell_busy(s, fd);
		d->refused++;
	}
	/* Another thread (the HTTP responder) may take the descriptor first: then rest. */
	d->reserve_fd = open_reserve();
	if (fd < 0 || d->reserve_fd < 0) {
		pause_listener(s);
		return false;
	}
	return true;
}

void srv_door_listener_readable(struct bp_flow *f, uint32_t events)
{
	struct srv *s = f->data;

	(void)events;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		struct bp_addr peer = { .len = sizeof(peer.ss) };
		int fd = accept4(f->fd, (struct sockaddr *)&peer.ss, &peer.len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			s->stats.accepted++;
			srv_pending_accept(s, fd, &peer);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO ||
		    errno == EPERM)
			continue;  /* that connection is gone (EPERM: a firewall's verdict) */
		if (errno == EMFILE || errno == ENFILE) {
			if (!out_of_fds(s, errno))
				return;
			continue;
		}
		/* ENOBUFS, ENOMEM and anything unforeseen: rest rather than spin on it. */
		bp_warn_peer(NULL, "accept: %s", strerror(errno));
		pause_listener(s);
		return;
	}
}
