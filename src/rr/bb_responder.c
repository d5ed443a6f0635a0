#include "rr/bb_responder.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "io/loop.h"
#include "io/sock.h"
#include "proto/iperf2_bounceback.h"

struct bp_bb_responder {
	struct bp_flow flow;
	bool attached;
	bool done;           /* STOP came, the client closed, or the connection broke */
	bool answering;      /* msg is the answer, sent bytes of it written */
	uint8_t *msg;        /* the request being read, then its answer */
	size_t size, got, sent;
	uint64_t served;     /* relaxed atomics: read by the reporter */
	uint64_t bytes;
};

struct bp_bb_responder *bp_bb_responder_new(size_t size, const uint8_t *first,
					     size_t first_len)
{
	struct bp_bb_responder *b = calloc(1, sizeof(*b));

	if (!b || size < BP_IPERF2_BB_HEAD_LEN || first_len > size ||
	    !(b->msg = malloc(size))) {
		free(b);
		return NULL;
	}
	b->flow.fd = -1;
	b->size = size;
	memcpy(b->msg, first, first_len);
	b->got = first_len;
	b->bytes = first_len;
	return b;
}

static void detach(struct bp_bb_responder *b)
{
	if (b->attached)
		bp_loop_del(&b->flow);
	b->attached = false;
}

void bp_bb_responder_free(struct bp_bb_responder *b)
{
	if (!b)
		return;
	detach(b);
	free(b->msg);
	free(b);
}

uint64_t bp_bb_responder_served(const struct bp_bb_responder *b)
{
	return __atomic_load_n(&b->served, __ATOMIC_RELAXED);
}

uint64_t bp_bb_responder_bytes(const struct bp_bb_responder *b)
{
	return __atomic_load_n(&b->bytes, __ATOMIC_RELAXED);
}

static void stamp(uint8_t *msg, size_t at)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	bp_iperf2_bb_stamp(msg, at, (uint32_t)tv.tv_sec, (uint32_t)tv.tv_usec);
}

/* A request read whole: the client's last, or one to answer (stamped on arrival). */
static void request_done(struct bp_bb_responder *b)
{
	if (bp_iperf2_bb_is_stop(b->msg)) {
		b->done = true;
		return;
	}
	stamp(b->msg, BP_IPERF2_BB_RX_AT);
	stamp(b->msg, BP_IPERF2_BB_TX_AT);
	b->answering = true;
	b->sent = 0;
}

/* Read and answer until the socket would block; false once the responder is done. */
static bool serve(struct bp_bb_responder *b)
{
	while (!b->done) {
		ssize_t n;

		if (b->answering) {
			n = send(b->flow.fd, b->msg + b->sent, b->size - b->sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0) {
				b->done = errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
				break;
			}
			b->sent += (size_t)n;
			if (b->sent == b->size) {
				b->answering = false;
				b->got = 0;
				__atomic_store_n(&b->served, b->served + 1, __ATOMIC_RELAXED);
			}
			continue;
		}
		if (b->got == b->size) {
			request_done(b);
			continue;
		}
		n = recv(b->flow.fd, b->msg + b->got, b->size - b->got, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			b->done = true;
			break;
		}
		if (n < 0)
			break;
		b->got += (size_t)n;
		__atomic_store_n(&b->bytes, b->bytes + (uint64_t)n, __ATOMIC_RELAXED);
	}
	return !b->done;
}

static void ready(struct bp_flow *f, uint32_t events)
{
	struct bp_bb_responder *b = f->data;
	uint32_t want;

	(void)events;
	if (!serve(b)) {
		detach(b);  /* the session sees the client's close on its own watch */
		return;
	}
	want = b->answering ? EPOLLOUT : EPOLLIN;
	if (f->events != want)
		bp_loop_mod(f, want);
}

static int ops_start(void *state, struct bp_loop *loop, int fd)
{
	struct bp_bb_responder *b = state;
	int rc = bp_sock_set_nonblocking(fd, true);

	if (rc)
		return rc;
	b->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .data = b, .handler = ready };
	rc = bp_loop_add(loop, &b->flow);
	b->attached = !rc;
	/* The first request may be whole already (the door read it): nothing else would come. */
	if (!rc)
		ready(&b->flow, EPOLLIN);
	return rc;
}

static void ops_stop(void *state, struct bp_loop *loop)
{
	(void)loop;
	detach(state);
}

static void ops_release(void *state)
{
	bp_bb_responder_free(state);
}

const struct bp_stream_ops bp_bb_responder_ops = {
	.start = ops_start, .stop = ops_stop, .release = ops_release,
};
