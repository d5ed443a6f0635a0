/*
 * One client connection of `boardperf http`: connect (and TLS), write requests, read and
 * parse answers, and start over when the server closes or something fails. Each failure
 * counts the requests it took with it, once, under its kind; the connection then reopens,
 * so one bad answer never stops the load.
 *
 * The socket stays registered for reading the whole time it is open; writing is waited for
 * only when the kernel refused part of a write, so a request costs one send and an answer
 * one recv (a Content-Length body's bulk is discarded in the kernel without a copy).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "http/http_load.h"

/* An open-loop request sent this much after its due time counts as late. */
#define LATE_SLACK_NS (1 * BP_NS_PER_MS)
/* After a failed connect, wait this long: a refused port must not become a busy loop. */
#define CONNECT_RETRY_NS (10 * BP_NS_PER_MS)
/* A Content-Length body rest at least this large is discarded in the kernel (MSG_TRUNC). */
#define SKIP_MIN 4096
#define SKIP_MAX (1 << 20)
/* Reads per readiness event, so one busy connection cannot starve its worker's others. */
#define READS_PER_EVENT 16

static void on_event(struct bp_http_conn *c, uint32_t events);

static void flow_handler(struct bp_flow *f, uint32_t events)
{
	on_event(f->data, events);
}

static void on_response(void *arg, unsigned status, bool keep_alive);

void bp_http_conn_init(struct bp_http_conn *c, struct bp_http_worker *w, int j)
{
	memset(c, 0, sizeof(*c));
	c->w = w;
	c->j = j;
	c->st = BP_HTTP_IDLE;
	c->io.fd = -1;
	c->flow = (struct bp_flow){ .fd = -1, .handler = flow_handler, .data = c };
}

/* Change the epoll interest only when it changes: an epoll_ctl per request costs a call. */
static void set_events(struct bp_http_conn *c, uint32_t ev)
{
	if (!c->registered) {
		c->flow.fd = c->io.fd;
		c->flow.events = ev;
		c->registered = !bp_loop_add(c->w->loop, &c->flow);
	} else if (c->flow.events != ev) {
		bp_loop_mod(&c->flow, ev);
	}
}

static void drop_socket(struct bp_http_conn *c)
{
	if (c->registered)
		bp_loop_del(&c->flow);
	c->registered = false;
	bp_http_io_close(&c->io);
	c->flow.fd = -1;
	c->head = c->inflight = 0;
	c->wpos = c->wlen = 0;
	c->gen++;
}

void bp_http_conn_close(struct bp_http_conn *c)
{
	drop_socket(c);
	c->st = BP_HTTP_IDLE;
}

void bp_http_conn_free(struct bp_http_conn *c)
{
	bp_http_conn_close(c);
	free(c->ring);
	c->ring = NULL;
}

/* The connection is gone: open the next one now, or wait for a due request. */
static void after_close(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;

	c->st = BP_HTTP_IDLE;
	if (!c->w->running || (cfg->new_conn && cfg->rate > 0 && c->due <= c->next))
		return;
	bp_http_conn_open(c);
}

/* A failure takes count requests with it (a connect failure counts itself once). */
static void fail(struct bp_http_conn *c, enum bp_http_err kind, uint64_t count,
		 const char *msg)
{
	bp_txn_stats_fail(c->w->stats, c->w->now, kind, count, msg);
	drop_socket(c);
	if (kind == BP_HTTP_ERR_CONNECT) {
		c->st = BP_HTTP_BACKOFF;
		c->retry_at = c->w->now + CONNECT_RETRY_NS;
		return;
	}
	after_close(c);
}

static uint64_t at_least_one(int n)
{
	return n > 0 ? (uint64_t)n : 1;
}

static void fail_errno(struct bp_http_conn *c, enum bp_http_err kind, const char *what,
		       int err)
{
	char msg[224];

	snprintf(msg, sizeof(msg), "%s %s: %s", what, c->w->cfg->addr_str, strerror(err));
	fail(c, kind, kind == BP_HTTP_ERR_CONNECT ? 1 : at_least_one(c->inflight), msg);
}

/* Put the next request in flight: its latency starts at its due time (open) or now. */
static void push_flight(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	struct bp_http_flight *f = &c->ring[(c->head + c->inflight) % cfg->depth];
	uint64_t now = c->w->now;

	f->t0 = cfg->rate > 0 ? bp_http_conn_due_ns(c, c->next++) : now;
	f->sent = now;
	f->late = now > f->t0 + LATE_SLACK_NS;
	c->inflight++;
}

/* Write the rest of the current batch of requests. */
static void flush(struct bp_http_conn *c)
{
	const char *req = c->w->cfg->req;

	while (c->wpos < c->wlen) {
		ssize_t n = bp_http_io_write(&c->io, req + c->wpos, c->wlen - c->wpos);

		if (n > 0) {
			c->wpos += (size_t)n;
		} else if (n == -EAGAIN) {
			set_events(c, EPOLLIN | (c->io.want_write ? EPOLLOUT : 0));
			return;
		} else {
			fail_errno(c, BP_HTTP_ERR_WRITE, "write to", n ? (int)-n : EPIPE);
			return;
		}
	}
	c->wpos = c->wlen = 0;
	set_events(c, EPOLLIN);
}

void bp_http_conn_pump(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	int k = cfg->depth - c->inflight;

	if (c->st != BP_HTTP_OPEN || cfg->new_conn || c->wlen || c->resp.closing)
		return;
	if (cfg->rate > 0 && (uint64_t)k > c->due - c->next)
		k = (int)(c->due - c->next);
	if (k <= 0)
		return;
	for (int i = 0; i < k; i++)
		push_flight(c);
	/* Pipelined requests go out in one write: the copies lie back to back. */
	c->wpos = 0;
	c->wlen = (size_t)k * cfg->req_len;
	flush(c);
}

static void established(struct bp_http_conn *c)
{
	struct bp_http_worker *w = c->w;
	const struct bp_http_load_cfg *cfg = w->cfg;

	bp_txn_stats_connect(w->stats, w->now, w->now - c->connect_t0);
	if (c->io.ssl && !w->tls_desc[0])
		bp_http_io_describe(&c->io, w->tls_desc, sizeof(w->tls_desc));
	c->st = BP_HTTP_OPEN;
	c->state_t0 = w->now;
	bp_http_resp_init(&c->resp, cfg->head, on_response, c);
	set_events(c, EPOLLIN);
	if (cfg->new_conn) {
		c->wpos = 0;
		c->wlen = cfg->req_len;
		flush(c);
	} else {
		bp_http_conn_pump(c);
	}
}

static void handshake(struct bp_http_conn *c)
{
	char why[128], msg[224];
	int rc = bp_http_io_handshake(&c->io, why, sizeof(why));

	if (!rc) {
		established(c);
	} else if (rc == -EAGAIN) {
		set_events(c, c->io.want_write ? EPOLLOUT : EPOLLIN);
	} else {
		snprintf(msg, sizeof(msg), "TLS handshake with %s: %s", c->w->cfg->addr_str, why);
		fail(c, BP_HTTP_ERR_CONNECT, 1, msg);
	}
}

static void connected(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;

	if (!cfg->tls) {
		established(c);
		return;
	}
	if (bp_http_io_tls_begin(&c->io, c->w->ctx, cfg->host, cfg->verify)) {
		fail(c, BP_HTTP_ERR_CONNECT, 1, "TLS: out of memory");
		return;
	}
	c->st = BP_HTTP_HANDSHAKE;
	handshake(c);
}

void bp_http_conn_open(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->addr.ss;
	int one = 1, fd;

	c->connect_t0 = c->state_t0 = c->w->now;
	/* --new-conn: the transaction, and its latency, begin with the connect. */
	if (cfg->new_conn)
		push_flight(c);
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fail_errno(c, BP_HTTP_ERR_CONNECT, "socket for", errno);
		return;
	}
	c->io = (struct bp_http_io){ .fd = fd };
	/* Requests are written whole; Nagle would only hold back a pipelined batch's tail. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, sa, cfg->addr.len) == 0) {
		connected(c);
	} else if (errno == EINPROGRESS) {
		c->st = BP_HTTP_CONNECTING;
		set_events(c, EPOLLOUT);
	} else {
		fail_errno(c, BP_HTTP_ERR_CONNECT, "connect", errno);
	}
}

/* The parser completed an answer: the oldest request in flight is done. */
static void on_response(void *arg, unsigned status, bool keep_alive)
{
	struct bp_http_conn *c = arg;
	struct bp_http_flight *f;

	(void)keep_alive;  /* a closing answer sets resp.closing: handled after the feed */
	if (!c->inflight) {
		c->dead = true;  /* an answer nobody asked for: not this server's protocol */
		return;
	}
	f = &c->ring[c->head];
	c->head = (c->head + 1) % c->w->cfg->depth;
	c->inflight--;
	bp_http_stats_response(c->w->stats, c->w->now, status, c->w->now - f->t0, f->late);
}

/*
 * The server said it closes after its last answer. Requests pipelined behind it were not
 * answered and are no failure: open loop sends them again (their due times stay), closed
 * loop simply goes on. The server closes first, so TIME_WAIT stays on its side.
 */
static void server_closing(struct bp_http_conn *c)
{
	if (c->w->cfg->rate > 0)
		c->next -= (uint64_t)c->inflight;
	c->head = c->inflight = 0;
	c->wpos = c->wlen = 0;
	c->st = BP_HTTP_DRAIN;
	c->state_t0 = c->w->now;
	set_events(c, EPOLLIN);
}

static void at_eof(struct bp_http_conn *c)
{
	char msg[224];
	int rc = bp_http_resp_eof(&c->resp);

	if (c->dead) {
		fail(c, BP_HTTP_ERR_PARSE, 1, "an answer to no request");
	} else if (rc) {
		snprintf(msg, sizeof(msg), "%s closed the connection in the middle of a response",
			 c->w->cfg->addr_str);
		fail(c, BP_HTTP_ERR_READ, at_least_one(c->inflight), msg);
	} else if (c->resp.closing && c->st == BP_HTTP_OPEN) {
		/* The last answer ran until the close (no length): requests behind it are
		 * the server's announced close, as with Connection: close. */
		server_closing(c);
		drop_socket(c);
		after_close(c);
	} else if (c->inflight && c->st != BP_HTTP_DRAIN) {
		snprintf(msg, sizeof(msg), "%s closed the connection with requests unanswered",
			 c->w->cfg->addr_str);
		fail(c, BP_HTTP_ERR_READ, (uint64_t)c->inflight, msg);
	} else {
		drop_socket(c);
		after_close(c);
	}
}

/* One read (or kernel discard); false when the connection is done with for this event. */
static bool read_once(struct bp_http_conn *c, uint64_t *bytes, bool *drained)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	uint64_t skip = cfg->tls ? 0 : bp_http_resp_skippable(&c->resp);
	size_t want = skip >= SKIP_MIN ? (skip < SKIP_MAX ? (size_t)skip : SKIP_MAX) :
		      c->w->buflen;
	ssize_t n = skip >= SKIP_MIN ? bp_http_io_discard(&c->io, want) :
		    bp_http_io_read(&c->io, c->w->buf, want);
	char msg[200];

	if (n == -EAGAIN) {
		if (c->io.want_write)
			set_events(c, EPOLLIN | EPOLLOUT);
		return false;
	}
	if (n == 0) {
		at_eof(c);
		return false;
	}
	if (n < 0) {
		if (c->st == BP_HTTP_DRAIN) {  /* answered already: a reset here costs nothing */
			drop_socket(c);
			after_close(c);
		} else {
			fail_errno(c, BP_HTTP_ERR_READ, "read from", (int)-n);
		}
		return false;
	}
	*bytes += (uint64_t)n;
	*drained = (size_t)n < want && !cfg->tls;
	if (skip >= SKIP_MIN) {
		bp_http_resp_skip(&c->resp, (size_t)n);
	} else if (bp_http_resp_feed(&c->resp, c->w->buf, (size_t)n)) {
		snprintf(msg, sizeof(msg), "%s: not an HTTP response (%s)", cfg->addr_str,
			 bp_http_resp_error(&c->resp));
		fail(c, BP_HTTP_ERR_PARSE, at_least_one(c->inflight), msg);
		return false;
	}
	return true;
}

static void readable(struct bp_http_conn *c)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	uint64_t bytes = 0;

	for (int i = 0; i < READS_PER_EVENT; i++) {
		bool drained = false;

		if (!read_once(c, &bytes, &drained))
			break;
		if (c->dead) {
			fail(c, BP_HTTP_ERR_PARSE, 1, "an answer to no request");
			break;
		}
		if (c->resp.closing && c->st == BP_HTTP_OPEN)
			server_closing(c);
		if (cfg->new_conn && c->st == BP_HTTP_OPEN && !c->inflight) {
			/* Asked to close, the server kept the connection: hang up ourselves. */
			drop_socket(c);
			after_close(c);
			break;
		}
		if (drained)
			break;
	}
	if (bytes)
		bp_txn_stats_bytes(c->w->stats, c->w->now, bytes);
}

/*
 * Sends wait until every answer of the current epoll batch is read, then go out together:
 * the server then finds several requests at once when it wakes, instead of being woken
 * for each (h2load and wrk defer their writes to the next loop pass for the same effect,
 * at the price of two epoll_ctl calls per request). The worker's flush timer, due at once,
 * runs right after the batch, before the loop waits again, and pumps the list.
 */
static void defer(struct bp_http_conn *c)
{
	struct bp_http_worker *w = c->w;

	if (c->ready)
		return;
	c->ready = true;
	c->next_ready = w->ready;
	w->ready = c;
	if (!w->flush.armed)
		bp_timer_arm(w->loop, &w->flush, 0);
}

static void on_event(struct bp_http_conn *c, uint32_t events)
{
	unsigned gen = c->gen;
	int err = 0;
	socklen_t len = sizeof(err);

	c->w->now = bp_now_ns();
	switch (c->st) {
	case BP_HTTP_CONNECTING:
		if (getsockopt(c->io.fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)
			fail_errno(c, BP_HTTP_ERR_CONNECT, "connect", err ? err : errno);
		else
			connected(c);
		return;
	case BP_HTTP_HANDSHAKE:
		handshake(c);
		return;
	case BP_HTTP_OPEN:
	case BP_HTTP_DRAIN:
		break;
	default:
		return;
	}
	/* A write left over (the kernel or TLS took part of it) goes first. */
	if (c->wlen)
		flush(c);
	if (gen == c->gen && (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLOUT)))
		readable(c);
	if (gen == c->gen && c->st == BP_HTTP_OPEN)
		defer(c);
}

void bp_http_conn_sweep(struct bp_http_conn *c, uint64_t now)
{
	const struct bp_http_load_cfg *cfg = c->w->cfg;
	char msg[224];

	c->w->now = now;
	switch (c->st) {
	case BP_HTTP_CONNECTING:
	case BP_HTTP_HANDSHAKE:
		if (now - c->connect_t0 <= cfg->timeout_ns)
			return;
		snprintf(msg, sizeof(msg), "connect %s: no connection within %.3g s",
			 cfg->addr_str, (double)cfg->timeout_ns / 1e9);
		fail(c, BP_HTTP_ERR_CONNECT, 1, msg);
		return;
	case BP_HTTP_OPEN:
		if (!c->inflight || now - c->ring[c->head].sent <= cfg->timeout_ns)
			return;
		snprintf(msg, sizeof(msg), "%s: no whole response within %.3g s", cfg->addr_str,
			 (double)cfg->timeout_ns / 1e9);
		fail(c, BP_HTTP_ERR_TIMEOUT, (uint64_t)c->inflight, msg);
		return;
	case BP_HTTP_DRAIN:
		if (now - c->state_t0 > cfg->timeout_ns) {
			drop_socket(c);
			after_close(c);
		}
		return;
	case BP_HTTP_BACKOFF:
		if (now >= c->retry_at && c->w->running)
			after_close(c);
		return;
	case BP_HTTP_IDLE:
		return;
	}
}
