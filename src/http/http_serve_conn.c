#include "http/http_serve_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/peer_budget.h"
#include "core/units.h"
#include "http/http_serve_limit.h"
#include "io/sock.h"

/* iovecs and bytes per send: many pipelined answers, or a large body, in one call. */
#define WRITE_IOV 64
#define WRITE_CAP (4u << 20)
/* A closed connection whose client never closes its side is dropped after this. */
#define LINGER_NS (2 * BP_NS_PER_SEC)

/* To a connection turned away at once: no body, nothing to queue. */
static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
			   "Retry-After: 1\r\nConnection: close\r\n\r\n";

static struct bp_http_serve_conn *conn_of(http_parser *p)
{
	return p->data;
}

static int on_message_begin(http_parser *p)
{
	struct bp_http_serve_conn *c = conn_of(p);

	c->url_len = 0;
	c->url_long = false;
	c->in_head = true;
	return 0;
}

/* The head is whole: what follows (a body) is timed by its bytes, not by the head's deadline. */
static int on_headers_complete(http_parser *p)
{
	struct bp_http_serve_conn *c = conn_of(p);

	c->in_head = false;
	c->in_body = true;
	return 0;
}

/* The target may come in pieces (a request split across reads). */
static int on_url(http_parser *p, const char *at, size_t len)
{
	struct bp_http_serve_conn *c = conn_of(p);

	if (c->url_len + len > sizeof(c->url)) {
		c->url_long = true;
		return 0;
	}
	memcpy(c->url + c->url_len, at, len);
	c->url_len += len;
	return 0;
}

/* Another request may be parsed now: room in the queue, little unwritten, no close. */
static bool can_parse(const struct bp_http_serve_conn *c)
{
	return !c->no_more && c->qlen < BP_HTTP_SERVE_QUEUE &&
	       c->committed - c->written < BP_HTTP_SERVE_BACKLOG;
}

/* A reply's bytes as promised: its header counted at its longest. */
static uint64_t promised(const struct bp_http_reply *r)
{
	return bp_http_reply_length(r, BP_HTTP_REPLY_HDR_MAX);
}

/* The reply that ends the connection at its budget: the line logged says why. */
static void log_budget(const struct bp_http_serve_conn *c, enum bp_http_budget b,
		       uint64_t len)
{
	char cap[32], size[32];

	bp_format_bytes(cap, sizeof(cap), (double)c->w->max_bytes);
	bp_format_bytes(size, sizeof(size), (double)len);
	if (b == BP_HTTP_BUDGET_LAST)
		bp_http_limit_log(c->flow.fd, "closing after this answer: %s more "
				  "would pass --http-max-bytes %s for one connection", size, cap);
	else
		bp_http_limit_log(c->flow.fd, "503 and close: an answer of %s would "
				  "pass --http-max-bytes %s for one connection", size, cap);
}

static void enqueue(struct bp_http_serve_conn *c, const struct bp_http_route *route,
		    bool head, bool keep_alive, bool http10)
{
	static const struct bp_http_route over = { BP_HTTP_ROUTE_LIMIT, 503, 0 };
	struct bp_http_reply *r = &c->q[(c->qhead + c->qlen) % BP_HTTP_SERVE_QUEUE];
	int64_t now = (int64_t)time(NULL);
	enum bp_http_budget b;
	uint64_t len;

	bp_http_reply_init(r, route, head, keep_alive, http10, now);
	len = promised(r);
	b = bp_http_budget_check(c->committed, len, c->w->max_bytes);
	if (b == BP_HTTP_BUDGET_OVER)
		bp_http_reply_init(r, &over, head, false, http10, now);
	else if (b == BP_HTTP_BUDGET_LAST)
		r->close = true;
	if (b != BP_HTTP_BUDGET_OK)
		log_budget(c, b, len);
	/* Queued from empty: its clock starts at the read that asked (no clock call here). */
	if (!c->qlen)
		c->last_moved = c->last_active;
	c->committed += promised(r);
	c->qlen++;
	if (r->close)
		c->no_more = true;
}

static int on_message_complete(http_parser *p)
{
	struct bp_http_serve_conn *c = conn_of(p);
	struct bp_http_route route = { BP_HTTP_ROUTE_TOO_LONG, 414, 0 };

	c->in_body = false;
	if (!c->url_long)
		bp_http_route_of(c->url, c->url_len, &route);
	enqueue(c, &route, p->method == HTTP_HEAD, http_should_keep_alive(p),
		p->http_major == 1 && p->http_minor == 0);
	__atomic_store_n(&c->w->requests, c->w->requests + 1, __ATOMIC_RELAXED);
	/*
	 * Stop at a closing answer (nothing after it is read), a full queue or a large backlog
	 * (resumed as the client reads).
	 */
	if (!can_parse(c))
		http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings settings = {
	.on_message_begin = on_message_begin,
	.on_url = on_url,
	.on_headers_complete = on_headers_complete,
	.on_message_complete = on_message_complete,
};

/* Parse; returns the bytes taken (the rest waits for room in the queue). */
static size_t feed(struct bp_http_serve_conn *c, const char *data, size_t len)
{
	size_t n = http_parser_execute(&c->p, &settings, data, len);
	enum http_errno e = HTTP_PARSER_ERRNO(&c->p);
	struct bp_http_route bad = { BP_HTTP_ROUTE_BAD, 400, 0 };

	if (c->no_more)
		return len;  /* after a closing answer the rest is ignored */
	if (e == HPE_PAUSED) {
		http_parser_pause(&c->p, 0);
		return n;
	}
	if (e != HPE_OK) {
		if (c->qlen < BP_HTTP_SERVE_QUEUE)
			enqueue(c, &bad, false, false, false);
		c->no_more = true;
		return len;
	}
	return n;
}

void bp_http_serve_conn_free(struct bp_http_serve_conn *c)
{
	struct bp_http_serve_worker *w = c->w;

	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	bp_loop_del(&c->flow);
	close(c->flow.fd);
	free(c->left);
	if (w->budget)
		bp_peer_budget_give(w->budget, c->left_len);
	free(c);
	w->nconns--;
}

void bp_http_serve_conn_abort(struct bp_http_serve_conn *c)
{
	bp_sock_reset_on_close(c->flow.fd);
	bp_http_serve_conn_free(c);
}

enum bp_http_serve_verdict bp_http_serve_conn_verdict(const struct bp_http_serve_conn *c,
						      uint64_t now)
{
	uint64_t t = c->w->idle_timeout_ns;

	/* From the FIN sent, whatever the client trickles meanwhile (not read as activity). */
	if (c->lingering)
		return now - c->last_active > LINGER_NS ? BP_HTTP_IDLE : BP_HTTP_KEEP;
	/* Asked for answers and never read them: what it trickles in does not count. */
	if (c->qlen)
		return now - c->last_moved > t ? BP_HTTP_UNREAD : BP_HTTP_KEEP;
	if (c->in_body)
		return now - c->last_active > t ? BP_HTTP_IDLE : BP_HTTP_KEEP;
	/* Waiting for a request: its head by the deadline, however slowly it trickles. */
	if (now - c->head_since > t)
		return c->in_head ? BP_HTTP_NO_HEAD : BP_HTTP_IDLE;
	return BP_HTTP_KEEP;
}

void bp_http_serve_sweep(struct bp_http_serve_worker *w, uint64_t now)
{
	struct bp_http_serve_conn *c = w->conns, *next;
	double t = (double)w->idle_timeout_ns / BP_NS_PER_SEC;

	for (; c; c = next) {
		next = c->next;
		switch (bp_http_serve_conn_verdict(c, now)) {
		case BP_HTTP_UNREAD:
			bp_http_limit_log(c->flow.fd, "reset: answers unread for the "
					  "idle timeout (%.3g s)", t);
			bp_http_serve_conn_abort(c);
			break;
		case BP_HTTP_NO_HEAD:
			bp_http_limit_log(c->flow.fd, "closed: no whole request head "
					  "within the idle timeout (%.3g s)", t);
			bp_http_serve_conn_free(c);
			break;
		case BP_HTTP_IDLE:
			bp_http_serve_conn_free(c);
			break;
		case BP_HTTP_KEEP:
			break;
		}
	}
}

/*
 * Keep what the parser could not take yet, at most a read (reading stops while some is
 * kept), counted in the budget all peers share: false when out of memory or when the
 * budget has no room (the connection is closed, the line says why).
 */
static bool keep_left(struct bp_http_serve_conn *c, const char *rest, size_t len)
{
	struct bp_peer_budget *b = c->w->budget;
	char *grown;

	if (b && !bp_peer_budget_take(b, len)) {
		bp_http_limit_log(c->flow.fd, "closed: %zu bytes of requests read ahead "
				  "would pass the buffer budget (%zu of %zu bytes held for all "
				  "peers)", len, (size_t)b->used, b->limit);
		return false;
	}
	grown = realloc(c->left, c->left_len + len);
	if (!grown) {
		if (b)
			bp_peer_budget_give(b, len);
		return false;
	}
	memcpy(grown + c->left_len, rest, len);
	c->left = grown;
	c->left_len += len;
	return true;
}

/* Read what came; false when the connection is gone. */
static bool readable(struct bp_http_serve_conn *c)
{
	struct bp_http_serve_worker *w = c->w;
	ssize_t n = recv(c->flow.fd, w->buf, w->buflen, MSG_DONTWAIT);
	size_t used;

	if (n == 0) {
		c->peer_done = true;
		if (c->lingering) {
			bp_http_serve_conn_free(c);
			return false;
		}
		return true;
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return true;
		bp_http_serve_conn_free(c);
		return false;
	}
	/* After a closing answer, what the client sends keeps nothing open. */
	if (c->no_more || c->lingering)
		return true;
	c->last_active = bp_now_ns();
	/* No request may be parsed now (a full queue would be overrun): keep the bytes. */
	used = can_parse(c) ? feed(c, w->buf, (size_t)n) : 0;
	if (used < (size_t)n && !keep_left(c, w->buf + used, (size_t)n - used)) {
		bp_http_serve_conn_free(c);
		return false;
	}
	return true;
}

/* Room in the queue again: parse what was kept. */
static void resume_left(struct bp_http_serve_conn *c)
{
	size_t used = feed(c, c->left, c->left_len);

	memmove(c->left, c->left + used, c->left_len - used);
	c->left_len -= used;
	if (c->w->budget)
		bp_peer_budget_give(c->w->budget, used);
	if (!c->left_len) {
		free(c->left);
		c->left = NULL;
	}
}

/* Gather the queued answers' bytes; the headers are formatted into hdrs. */
static int gather(struct bp_http_serve_conn *c, struct iovec *iov, char (*hdrs)[BP_HTTP_REPLY_HDR_MAX],
		  char (*scratch)[BP_HTTP_REPLY_SCRATCH])
{
	size_t bytes = 0;
	int n = 0;

	for (int i = 0; i < c->qlen && n < WRITE_IOV && bytes < WRITE_CAP; i++) {
		struct bp_http_reply *r = &c->q[(c->qhead + i) % BP_HTTP_SERVE_QUEUE];
		size_t hl = bp_http_reply_header(r, hdrs[i]);

		r->hdr_len = (uint16_t)hl;
		n += bp_http_reply_iov(r, hdrs[i], hl, scratch[i], iov + n, WRITE_IOV - n,
				       WRITE_CAP - bytes, &bytes);
		if (r->close)
			break;  /* nothing after a closing answer goes out */
	}
	return n;
}

/* The answers written: pop the finished ones. true when a closing one went out whole. */
static bool advance(struct bp_http_serve_conn *c, size_t n)
{
	while (c->qlen) {
		struct bp_http_reply *r = &c->q[c->qhead];
		uint64_t left = bp_http_reply_length(r, r->hdr_len) - r->off;

		if (n < left) {
			r->off += n;
			return false;
		}
		n -= (size_t)left;
		/* Its header was promised at its longest: the difference is retired with it. */
		c->written += BP_HTTP_REPLY_HDR_MAX - r->hdr_len;
		c->qhead = (c->qhead + 1) % BP_HTTP_SERVE_QUEUE;
		c->qlen--;
		if (r->close) {
			c->qlen = 0;
			return true;
		}
		/* All written: the next request's head is due within the idle timeout. */
		if (!c->qlen)
			c->head_since = c->last_moved;
	}
	return false;
}

/*
 * The server closes first (its TIME_WAIT stays here, not on a client that opens a
 * connection per request): a FIN after the last byte, then read until the client's.
 */
static void start_linger(struct bp_http_serve_conn *c)
{
	shutdown(c->flow.fd, SHUT_WR);
	c->lingering = true;
	c->last_active = bp_now_ns();
}

/* Write what is queued; false when the connection is gone. */
static bool write_out(struct bp_http_serve_conn *c)
{
	char hdrs[BP_HTTP_SERVE_QUEUE][BP_HTTP_REPLY_HDR_MAX];
	char scratch[BP_HTTP_SERVE_QUEUE][BP_HTTP_REPLY_SCRATCH];
	struct iovec iov[WRITE_IOV];

	while (c->qlen && !c->lingering) {
		int niov = gather(c, iov, hdrs, scratch);
		/* sendmsg, not writev: MSG_NOSIGNAL, so a client gone is an error, not SIGPIPE. */
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)niov };
		ssize_t n = niov ? sendmsg(c->flow.fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			bp_http_serve_conn_free(c);
			return false;
		}
		c->last_active = c->last_moved = bp_now_ns();
		c->written += (size_t)n;
		if (advance(c, (size_t)n))
			start_linger(c);
		if (!niov)
			break;
	}
	return true;
}

static void update_events(struct bp_http_serve_conn *c)
{
	bool reading = c->lingering || (can_parse(c) && !c->left_len && !c->peer_done);
	uint32_t ev = (reading ? EPOLLIN : 0) | (c->qlen && !c->lingering ? EPOLLOUT : 0);

	if (ev != c->flow.events)
		bp_loop_mod(&c->flow, ev);
}

static void service(struct bp_http_serve_conn *c)
{
	for (int round = 0; round < 4; round++) {
		if (!write_out(c))
			return;
		if (!c->left_len || !can_parse(c))
			break;
		resume_left(c);
	}
	/* A closing answer that found no room (a bad request behind a full queue): close. */
	if (c->no_more && !c->qlen && !c->lingering)
		start_linger(c);
	/* The client is done and everything it asked for went out. */
	if (c->peer_done && !c->qlen && (c->lingering || !c->left_len)) {
		bp_http_serve_conn_free(c);
		return;
	}
	update_events(c);
}

static void on_event(struct bp_flow *f, uint32_t events)
{
	struct bp_http_serve_conn *c = f->data;

	/*
	 * A reset (or an error) comes whether asked or not: the client is gone, nothing more
	 * can reach it. Reading while not asked would fill c->left without a bound.
	 */
	if ((events & EPOLLERR) || ((events & EPOLLHUP) && !(c->flow.events & EPOLLIN))) {
		bp_http_serve_conn_free(c);
		return;
	}
	if ((events & (EPOLLIN | EPOLLHUP)) && !readable(c))
		return;
	service(c);
}

void bp_http_serve_conn_new(struct bp_http_serve_worker *w, int fd)
{
	struct bp_http_serve_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return;
	}
	c->w = w;
	http_parser_init(&c->p, HTTP_REQUEST);
	c->p.data = c;
	c->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = on_event,
				    .data = c };
	if (bp_loop_add(w->loop, &c->flow)) {
		close(fd);
		free(c);
		return;
	}
	c->last_active = c->head_since = bp_now_ns();
	c->next = w->conns;
	if (c->next)
		c->next->prev = c;
	w->conns = c;
	w->nconns++;
	__atomic_store_n(&w->connections, w->connections + 1, __ATOMIC_RELAXED);
}

/*
 * Turn a connection away at once with a 503. What it sent is read first, so that the close
 * is a FIN: a reset for unread bytes could overtake the answer.
 */
static void refuse(struct bp_http_serve_worker *w, int fd)
{
	(void)recv(fd, w->buf, w->buflen, MSG_DONTWAIT);
	(void)send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

/* The connection that has waited longest for a request (nothing queued); NULL: none. */
static struct bp_http_serve_conn *longest_waiting(struct bp_http_serve_worker *w)
{
	struct bp_http_serve_conn *best = NULL;

	for (struct bp_http_serve_conn *c = w->conns; c; c = c->next)
		if (!c->qlen && (!best || c->head_since <= best->head_since))
			best = c;
	return best;
}

void bp_http_serve_accept(struct bp_http_serve_worker *w, int fd)
{
	struct bp_http_serve_conn *old;

	if (fd >= w->fd_floor) {
		bp_http_limit_log(fd, "refused (503): descriptor %d is one of those kept "
				  "for tests (from %d up)", fd, w->fd_floor);
		refuse(w, fd);
		return;
	}
	if (w->nconns >= w->max_conns) {
		old = longest_waiting(w);
		if (!old) {
			bp_http_limit_log(fd, "refused (503): %d connections on this thread "
					  "(its share of the cap), all being answered", w->nconns);
			refuse(w, fd);
			return;
		}
		bp_http_limit_log(old->flow.fd, "closed for a new connection: %d on this "
				  "thread (its share of the cap), this one waited longest for a "
				  "request", w->nconns);
		bp_http_serve_conn_free(old);
	}
	bp_http_serve_conn_new(w, fd);
}
