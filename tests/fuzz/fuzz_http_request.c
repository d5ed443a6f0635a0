/*
 * Fuzz target for an HTTP request as the built-in responder parses it: the input goes, in
 * pieces drawn from its own hash, into one connection of the real responder code
 * (bp_http_serve_conn_new, src/http/http_serve_conn.c: http_parser, routes, the answer
 * queue, pipelining, the bytes kept while the queue is full) over a socketpair, driven by
 * the real event loop. The client side then closes its write half and reads every answer
 * (up to 8 MiB, then it hangs up).
 *
 * Besides crashes and leaks, the target aborts when the connection is still held 10 s
 * after the client is done: the responder must end every connection it was told to end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "fuzz.h"
#include "http/http_serve_conn.h"
#include "http/http_serve_limit.h"
#include "io/loop.h"

#define READ_CAP (8u << 20)

struct client {
	struct bp_flow flow;
	struct bp_http_serve_worker *w;
	const uint8_t *data;
	size_t size, off;
	uint64_t rng;
	size_t got;
	bool eof;
};

static size_t next_chunk(struct client *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return (c->rng & 3) ? 1 + (c->rng >> 8) % 7 : 1 + (c->rng >> 8) % 2048;
}

static void client_event(struct bp_flow *f, uint32_t events)
{
	struct client *c = f->data;
	char buf[65536];
	ssize_t n;

	if ((events & EPOLLOUT) && c->off < c->size) {
		size_t len = next_chunk(c);

		if (len > c->size - c->off)
			len = c->size - c->off;
		n = send(f->fd, c->data + c->off, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			c->off += (size_t)n;
		if (c->off == c->size) {
			shutdown(f->fd, SHUT_WR);
			bp_loop_mod(f, EPOLLIN);
		}
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		while ((n = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			c->got += (size_t)n;
		if (n == 0 || c->got > READ_CAP || (n < 0 && errno != EAGAIN)) {
			c->eof = true;
			bp_loop_mod(f, 0);
		}
	}
	if (c->eof && !c->w->conns)
		bp_loop_stop(c->w->loop);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char rbuf[16384];
	/*
	 * A byte budget below what the client reads (READ_CAP), so that the answers it cuts
	 * short (the closing one, the 503 for one that cannot fit) are fuzzed too.
	 */
	struct bp_http_serve_worker w = { .buf = rbuf, .buflen = sizeof(rbuf),
					  .idle_timeout_ns = 30 * BP_NS_PER_SEC,
					  .max_bytes = 4u << 20 };
	struct client c = { .w = &w, .data = data, .size = size, .rng = 0x9e3779b97f4a7c15ULL };
	uint64_t deadline;
	int sv[2];

	for (size_t i = 0; i < size; i++)
		c.rng = (c.rng ^ data[i]) * 0x100000001b3ULL;
	c.rng |= 1;
	w.loop = bp_loop_new();
	if (!w.loop || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	bp_http_serve_conn_new(&w, sv[0]);
	c.flow = (struct bp_flow){ .fd = sv[1], .events = size ? EPOLLIN | EPOLLOUT : EPOLLIN,
				   .handler = client_event, .data = &c };
	if (!size)
		shutdown(sv[1], SHUT_WR);
	if (!w.conns || bp_loop_add(w.loop, &c.flow))
		abort();
	deadline = bp_now_ns() + 10 * BP_NS_PER_SEC;
	while (!(c.eof && !w.conns) && bp_now_ns() < deadline) {
		/* Short slices: the last handler to run may be the server's, which stops nothing. */
		bp_loop_run(w.loop, bp_now_ns() + BP_NS_PER_MS);
		/* The client gave up reading (a huge answer): it hangs up, the server must see it. */
		if (c.eof && c.flow.fd >= 0 && w.conns) {
			bp_loop_del(&c.flow);
			close(c.flow.fd);
			c.flow.fd = -1;
		}
	}
	if (w.conns)
		abort();  /* a connection the responder never ended */
	if (c.flow.fd >= 0) {
		bp_loop_del(&c.flow);
		close(c.flow.fd);
	}
	bp_loop_free(w.loop);
	return 0;
}
