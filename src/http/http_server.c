#include "http/http_server.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "core/workers.h"
#include "http/http_serve_conn.h"
#include "http/http_serve_limit.h"
#include "io/fd_share.h"

#define BUF_LEN (64 * 1024)
#define BACKLOG 1024
#define SWEEP_NS BP_NS_PER_SEC
/* Out of descriptors: stop accepting for a moment rather than spin on the listener. */
#define ACCEPT_PAUSE_NS (100 * BP_NS_PER_MS)
#define ACCEPT_BURST 64

struct bp_http_server {
	int n;
	unsigned port;
	struct bp_http_serve_worker *w;
	pthread_t *tids;
	int started;
};

static void accept_ready(struct bp_flow *f, uint32_t events)
{
	struct bp_http_serve_worker *w = f->data;
	int one = 1;

	(void)events;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		int fd = accept4(f->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				bp_warn_peer(NULL, "http: accept: %s: not "
					     "accepting for %llu ms", strerror(errno),
					     ACCEPT_PAUSE_NS / BP_NS_PER_MS);
				bp_loop_mod(f, 0);
				bp_timer_arm(w->loop, &w->resume, bp_now_ns() + ACCEPT_PAUSE_NS);
			}
			return;
		}
		/* Answers are written whole; Nagle would hold a pipelined answer's tail. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		bp_http_serve_accept(w, fd);
	}
}

static void resume_accepting(struct bp_timer *t, uint64_t now)
{
	struct bp_http_serve_worker *w = t->data;

	(void)now;
	bp_loop_mod(&w->listener, EPOLLIN);
}

static void sweep(struct bp_timer *t, uint64_t now)
{
	struct bp_http_serve_worker *w = t->data;

	bp_http_serve_sweep(w, now);
	bp_timer_arm(w->loop, &w->sweep, now + SWEEP_NS);
}

static void set_port(struct bp_addr *a, unsigned port)
{
	if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&a->ss)->sin_port = htons((uint16_t)port);
}

/*
 * SO_REUSEPORT would let a second server (same user) share a port in use without a word:
 * a plain bind first says whether the port is free.
 */
static int probe_port(const struct bp_addr *a, char *err, size_t errlen)
{
	int fd, rc;

	if (a->ss.ss_family == AF_INET6 ? !((const struct sockaddr_in6 *)&a->ss)->sin6_port :
	    !((const struct sockaddr_in *)&a->ss)->sin_port)
		return 0;
	rc = bp_tcp_listen(a, 1, &fd, err, errlen);
	if (!rc)
		close(fd);
	return rc;
}

static int open_listeners(struct bp_http_server *s, const struct bp_http_server_opts *o,
			  char *err, size_t errlen)
{
	struct bp_addr a;
	int rc = bp_resolve(o->bind, o->port, o->family, true, &a, err, errlen);

	if (!rc)
		rc = probe_port(&a, err, errlen);
	/* A kernel without IPv6 still serves IPv4 on the wildcard. */
	if ((rc == -EAFNOSUPPORT || rc == -EADDRNOTAVAIL) && !o->bind)
		rc = bp_resolve(NULL, o->port, BP_FAMILY_V4, true, &a, err, errlen) ? rc :
		     probe_port(&a, err, errlen);
	for (int i = 0; !rc && i < s->n; i++) {
		int fd;

		rc = bp_tcp_listen_shared(&a, BACKLOG, &fd, err, errlen);
		if (rc)
			break;
		s->w[i].listener = (struct bp_flow){ .fd = fd, .events = EPOLLIN,
						     .handler = accept_ready, .data = &s->w[i] };
		if (i == 0) {  /* port 0: the others take the port the kernel gave the first */
			a.len = sizeof(a.ss);
			getsockname(fd, (struct sockaddr *)&a.ss, &a.len);
			s->port = ntohs(a.ss.ss_family == AF_INET6 ?
					((struct sockaddr_in6 *)&a.ss)->sin6_port :
					((struct sockaddr_in *)&a.ss)->sin_port);
			set_port(&a, s->port);
		}
	}
	return rc;
}

static int worker_init(struct bp_http_serve_worker *w, const struct bp_http_server_opts *o,
		       const struct bp_fd_share *fds, int n)
{
	/* The kernel spreads connections evenly over the listeners: the cap is split alike. */
	w->max_conns = fds->http_cap / n > 0 ? fds->http_cap / n : 1;
	w->fd_floor = fds->floor;
	w->loop = bp_loop_new();
	w->buf = malloc(BUF_LEN);
	w->buflen = BUF_LEN;
	w->idle_timeout_ns = o->idle_timeout_ns ? o->idle_timeout_ns : 10 * BP_NS_PER_SEC;
	w->max_bytes = o->max_bytes ? o->max_bytes : BP_HTTP_MAX_BYTES_DEFAULT;
	w->budget = o->budget;
	if (!w->loop || !w->buf || bp_loop_add(w->loop, &w->listener))
		return -ENOMEM;
	w->sweep = (struct bp_timer){ .fn = sweep, .data = w };
	w->resume = (struct bp_timer){ .fn = resume_accepting, .data = w };
	bp_timer_arm(w->loop, &w->sweep, bp_now_ns() + SWEEP_NS);
	return 0;
}

static void *worker_main(void *arg)
{
	struct bp_http_serve_worker *w = arg;

	bp_loop_run(w->loop, 0);
	return NULL;
}

/* Threads with every signal blocked: SIGINT and SIGTERM belong to the main thread. */
static int start_threads(struct bp_http_server *s, char *err, size_t errlen)
{
	sigset_t all, old;
	int rc = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; s->started < s->n && !rc; s->started++)
		rc = -pthread_create(&s->tids[s->started], NULL, worker_main, &s->w[s->started]);
	if (rc) {
		s->started--;
		snprintf(err, errlen, "http: cannot start a worker thread: %s", strerror(-rc));
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

struct bp_http_server *bp_http_server_start(const struct bp_http_server_opts *o, char *err,
					    size_t errlen)
{
	struct bp_http_server *s = calloc(1, sizeof(*s));
	struct bp_fd_share fds;
	int rc = -ENOMEM;

	if (!s) {
		snprintf(err, errlen, "http: out of memory");
		return NULL;
	}
	s->n = o->workers > 0 ? o->workers : bp_workers_available_cpus();
	s->w = calloc((size_t)s->n, sizeof(*s->w));
	s->tids = calloc((size_t)s->n, sizeof(*s->tids));
	for (int i = 0; s->w && i < s->n; i++)
		s->w[i].listener.fd = -1;
	if (!s->w || !s->tids) {
		snprintf(err, errlen, "http: out of memory");
		goto error;
	}
	rc = open_listeners(s, o, err, errlen);
	bp_fd_share_now(&fds);
	for (int i = 0; !rc && i < s->n; i++)
		if (worker_init(&s->w[i], o, &fds, s->n)) {
			snprintf(err, errlen, "http: cannot create an event loop");
			rc = -ENOMEM;
		}
	if (!rc)
		rc = start_threads(s, err, errlen);
	if (!rc)
		return s;
error:
	bp_http_server_stop(s);
	return NULL;
}

unsigned bp_http_server_port(const struct bp_http_server *s)
{
	return s->port;
}

void bp_http_server_counts(const struct bp_http_server *s, uint64_t *requests,
			   uint64_t *connections)
{
	*requests = *connections = 0;
	for (int i = 0; i < s->n; i++) {
		*requests += __atomic_load_n(&s->w[i].requests, __ATOMIC_RELAXED);
		*connections += __atomic_load_n(&s->w[i].connections, __ATOMIC_RELAXED);
	}
}

void bp_http_server_stop(struct bp_http_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->started; i++) {
		bp_loop_stop(s->w[i].loop);
		bp_loop_wake(s->w[i].loop);
	}
	for (int i = 0; i < s->started; i++)
		pthread_join(s->tids[i], NULL);
	for (int i = 0; s->w && i < s->n; i++) {
		struct bp_http_serve_worker *w = &s->w[i];

		while (w->conns)
			bp_http_serve_conn_free(w->conns);
		if (w->listener.fd >= 0)
			close(w->listener.fd);
		bp_loop_free(w->loop);
		free(w->buf);
	}
	free(s->w);
	free(s->tids);
	free(s);
}
