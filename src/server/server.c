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
#include "core/log_limit.h"
#include "core/signals.h"
#include "core/workers.h"
#include "server/server_accept.h"
#include "server/server_internal.h"
#include "io/stream_pool.h"

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
					.handler = srv_door_listener_readable, .data = s };
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
	s->bound = a;
	/* UDP tests greet the same port over UDP. */
	rc = srv_udp_open(s, &a, err, errlen);
	if (rc)
		return rc;
	bp_info("listening on %s", bp_addr_str(&a, (char[64]){ 0 }, 64));
	return 0;
}

/* What the log limiter left out is summed once a flood of peers' lines is over. */
static void log_flush(struct bp_timer *t, uint64_t now)
{
	bp_log_peer_flush(false);
	bp_timer_arm(t->data, t, now + BP_LOG_QUIET_NS);
}

static void close_all(struct srv *s)
{
	while (s->sessions)
		srv_session_close(s->sessions, "server shutting down");
}

int bp_server_run(const struct bp_server_opts *o, char *err, size_t errlen)
{
	struct srv s = { .o = o, .door.reserve_fd = -1 };
	int workers = o->workers ? o->workers : bp_workers_available_cpus();
	unsigned port = o->port;
	struct bp_timer log_tick = { .fn = log_flush };
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
	s.stats.start_ns = bp_now_ns();
	bp_peer_budget_init(&s.own_budget, BP_SERVER_PEER_BUDGET);
	s.budget = o->budget ? o->budget : &s.own_budget;
	rc = srv_door_init(&s);
	if (rc)
		snprintf(err, errlen, "cannot open /dev/null: %s", strerror(-rc));
	else
		rc = open_listener(&s, &port, err, errlen);
	if (!rc)
		rc = srv_metrics_open(&s, err, errlen);
	if (o->ready)
		o->ready(o->ready_arg, rc, err, port, s.loop);
	log_tick.data = s.loop;
	if (!rc)
		bp_timer_arm(s.loop, &log_tick, bp_now_ns() + BP_LOG_QUIET_NS);
	/* Runs until a signal, bp_loop_stop from another thread, or max_tests. */
	if (!rc)
		rc = bp_loop_run(s.loop, 0);
	if (rc == -EINTR)
		rc = 0;
	close_all(&s);
	bp_timer_cancel(s.loop, &log_tick);
	bp_log_peer_flush(true);
	srv_metrics_close(&s);
	srv_door_free(&s);
	srv_backoff_free(&s.backoff);
	if (s.listener.fd > 0) {
		bp_loop_del(&s.listener);
		close(s.listener.fd);
	}
	srv_udp_close(&s);
	srv_sctp_close(&s);
out:
	if (s.pool)
		bp_stream_pool_free(s.pool);
	if (s.loop)
		bp_loop_free(s.loop);
	return rc;
}
