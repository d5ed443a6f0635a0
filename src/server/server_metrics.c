/*
 * The /metrics listener (server_metrics.h): accept, read one request head, answer it
 * whole, close. The answer is rendered at once into memory (the counters, then whatever
 * the command adds: the stored figures) and written as the socket takes it.
 */
#include "server/server_metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log_limit.h"
#include "io/fd_share.h"
#include "server/metrics_request.h"
#include "server/server_internal.h"

#define ACCEPT_BURST 16
/* Out of descriptors: how long the listener rests (level-triggered, it would spin). */
#define ACCEPT_PAUSE_NS (100 * BP_NS_PER_MS)

struct srv_mconn {
	struct srv *s;
	struct srv_mconn *older, *newer;
	struct bp_flow flow;
	struct bp_timer deadline;
	char in[BP_METRICS_REQUEST_MAX];
	size_t inlen;
	char *out;                 /* the whole answer */
	size_t outlen, outoff;
	bool lingering;            /* answered and shut down: waiting for the client's FIN */
};

static void mconn_free(struct srv_mconn *c)
{
	struct srv_metrics *m = &c->s->metrics;

	*(c->older ? &c->older->newer : &m->oldest) = c->newer;
	*(c->newer ? &c->newer->older : &m->newest) = c->older;
	m->nconns--;
	bp_timer_cancel(c->s->loop, &c->deadline);
	bp_loop_del(&c->flow);
	close(c->flow.fd);
	free(c->out);
	free(c);
}

static void expired(struct bp_timer *t, uint64_t now_ns)
{
	(void)now_ns;
	mconn_free(t->data);
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Bad Request";
	}
}

static void write_body(struct srv *s, FILE *out, const struct bp_metrics_request *r)
{
	const struct srv_door *d = &s->door;
	struct srv_stats_door door = { .fd_limit = d->refused, .shed = d->shed,
				       .not_a_client = d->junk, .no_cookie = d->no_cookie };

	if (r->status != 200) {
		fprintf(out, "%d %s: this port answers GET /metrics only\n", r->status,
			reason_phrase(r->status));
		return;
	}
	srv_stats_write(&s->stats, &door, s->nsessions, bp_now_ns(), out, r->format);
	if (s->o->metrics_extra)
		s->o->metrics_extra(s->o->metrics_arg, out, r->format);
	bp_om_end(out, r->format);
}

/* The whole answer into c->out; false when out of memory. */
static bool render(struct srv_mconn *c, const struct bp_metrics_request *r)
{
	char *body = NULL;
	size_t blen = 0;
	FILE *out = open_memstream(&body, &blen);
	bool ok;

	if (!out)
		return false;
	write_body(c->s, out, r);
	ok = !ferror(out);
	if (fclose(out) || !ok) {
		free(body);
		return false;
	}
	out = open_memstream(&c->out, &c->outlen);
	if (!out) {
		free(body);
		return false;
	}
	fprintf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		"Connection: close\r\n\r\n", r->status, reason_phrase(r->status),
		r->status == 200 ? bp_om_content_type(r->format) : "text/plain; charset=utf-8",
		blen, r->status == 405 ? "Allow: GET\r\n" : "");
	fwrite(body, 1, blen, out);
	ok = !ferror(out);
	free(body);
	return !fclose(out) && ok;
}

/* Writes what the socket takes; false when the connection is gone. */
static bool write_out(struct srv_mconn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t n = send(c->flow.fd, c->out + c->outoff, c->outlen - c->outoff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			bp_loop_mod(&c->flow, EPOLLOUT);
			return true;
		}
		if (n <= 0) {
			mconn_free(c);
			return false;
		}
		c->outoff += (size_t)n;
	}
	/* All out: FIN first, so the client's close leaves TIME_WAIT here, then its EOF. */
	shutdown(c->flow.fd, SHUT_WR);
	c->lingering = true;
	bp_loop_mod(&c->flow, EPOLLIN);
	return true;
}

static void answer(struct srv_mconn *c, const struct bp_metrics_request *r)
{
	if (r->status != 200)
		bp_debug_peer(NULL, "metrics: a request answered %d", r->status);
	else
		c->s->stats.scrapes++;
	if (!render(c, r)) {
		mconn_free(c);
		return;
	}
	if (r->status == 200)
		bp_debug_peer(NULL, "metrics: GET /metrics answered in %s (%zu bytes)",
			      r->format == BP_OM_OPENMETRICS ? "OpenMetrics 1.0.0" : "text 0.0.4",
			      c->outlen);
	write_out(c);
}

static void mconn_event(struct bp_flow *f, uint32_t events)
{
	struct srv_mconn *c = f->data;
	struct bp_metrics_request r;
	char sink[512];
	ssize_t n;

	if (events & EPOLLERR) {
		mconn_free(c);
		return;
	}
	if (c->out && !c->lingering) {
		if (events & EPOLLOUT)
			write_out(c);
		return;
	}
	if (c->lingering) {
		/* Whatever the client still sends is dropped until its FIN (or the deadline). */
		n = recv(f->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			mconn_free(c);
		return;
	}
	n = recv(f->fd, c->in + c->inlen, sizeof(c->in) - c->inlen, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		mconn_free(c);
		return;
	}
	if (n < 0)
		return;
	c->inlen += (size_t)n;
	if (bp_metrics_request_parse(c->in, c->inlen, &r))
		answer(c, &r);
}

static void take(struct srv *s, int fd)
{
	struct srv_metrics *m = &s->metrics;
	struct srv_mconn *c;

	if (fd >= m->fd_floor) {
		m->refused++;
		bp_info_peer(NULL, "metrics: connection closed: descriptor %d is one "
			     "of those kept for tests (from %d up; %llu so far)", fd,
			     m->fd_floor, (unsigned long long)m->refused);
		close(fd);
		return;
	}
	if (m->nconns >= SRV_METRICS_MAX_CONNS) {
		m->shed++;
		bp_info_peer(NULL, "metrics: %d connections at once: the oldest "
			     "shed (%llu so far)", m->nconns, (unsigned long long)m->shed);
		mconn_free(m->oldest);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->s = s;
	c->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = mconn_event,
				    .data = c };
	c->deadline = (struct bp_timer){ .fn = expired, .data = c };
	if (bp_loop_add(s->loop, &c->flow)) {
		close(fd);
		free(c);
		return;
	}
	c->older = m->newest;
	*(c->older ? &c->older->newer : &m->oldest) = c;
	m->newest = c;
	m->nconns++;
	/* The whole exchange, however slowly it trickles (slowloris gains nothing). */
	bp_timer_arm(s->loop, &c->deadline, bp_now_ns() + s->o->idle_timeout_ns);
}

static void resume_listener(struct bp_timer *t, uint64_t now_ns)
{
	struct srv *s = t->data;

	(void)now_ns;
	bp_loop_mod(&s->metrics.listener, EPOLLIN);
}

static void listener_readable(struct bp_flow *f, uint32_t events)
{
	struct srv *s = f->data;

	(void)events;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		int fd = accept4(f->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			take(s, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO || errno == EPERM)
			continue;  /* that connection is gone */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		/* EMFILE, ENOBUFS and the rest: rest rather than spin on a queue we cannot take. */
		srv_door_out_of_fds(s, "metrics: accept", errno);
		bp_loop_mod(f, 0);
		bp_timer_arm(s->loop, &s->metrics.resume, bp_now_ns() + ACCEPT_PAUSE_NS);
		return;
	}
}

int srv_metrics_open(struct srv *s, char *err, size_t errlen)
{
	const struct bp_server_opts *o = s->o;
	struct bp_fd_share fds;
	struct bp_addr a;
	char where[64];
	int fd, rc;

	if (!o->metrics)
		return 0;
	bp_fd_share_of(s->door.fd_limit, &fds);
	s->metrics.fd_floor = fds.floor;
	rc = bp_resolve(o->metrics_bind, o->metrics_port, o->family, true, &a, err, errlen);
	if (!rc)
		rc = bp_tcp_listen(&a, 64, &fd, err, errlen);
	if (rc) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--metrics: %s", why);
		return rc;
	}
	s->metrics.listener = (struct bp_flow){ .fd = fd, .events = EPOLLIN,
						.handler = listener_readable, .data = s };
	s->metrics.resume = (struct bp_timer){ .fn = resume_listener, .data = s };
	rc = bp_loop_add(s->loop, &s->metrics.listener);
	if (rc) {
		snprintf(err, errlen, "--metrics: %s", strerror(-rc));
		close(fd);
		return rc;
	}
	s->metrics.open = true;
	a.len = sizeof(a.ss);
	getsockname(fd, (struct sockaddr *)&a.ss, &a.len);
	bp_info("metrics: listening on %s (GET /metrics)", bp_addr_str(&a, where, sizeof(where)));
	return 0;
}

void srv_metrics_close(struct srv *s)
{
	while (s->metrics.oldest)
		mconn_free(s->metrics.oldest);
	if (s->metrics.open) {
		bp_timer_cancel(s->loop, &s->metrics.resume);
		bp_loop_del(&s->metrics.listener);
		close(s->metrics.listener.fd);
		s->metrics.open = false;
	}
}
