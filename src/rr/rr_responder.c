#include "rr/rr_responder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/unconst.h"
#include "io/sock.h"

/* Responses come from here: their content does not matter, their size does. */
static const char zeros[65536];

#define UDP_BATCH 32

struct bp_rr_responder {
	struct bp_rr_responder_cfg cfg;
	struct bp_flow flow;
	bool attached;
	bool can_block;      /* the socket blocks, with a 1 ms SO_RCVTIMEO: see serve_alone */
	size_t got;          /* bytes of the current request read so far */
	uint64_t owed;       /* response bytes not yet written */
	uint64_t served;     /* relaxed atomics: read by the reporter */
	uint64_t bytes;
	char *udp_buf;       /* UDP: UDP_BATCH datagrams of up to req_len (at least 8) bytes */
};

struct bp_rr_responder *bp_rr_responder_new(const struct bp_rr_responder_cfg *cfg)
{
	struct bp_rr_responder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cfg = *cfg;
	r->flow.fd = -1;
	if (cfg->udp) {
		r->udp_buf = malloc((size_t)UDP_BATCH * (cfg->req_len + 1));
		if (!r->udp_buf) {
			free(r);
			return NULL;
		}
	}
	return r;
}

void bp_rr_responder_free(struct bp_rr_responder *r)
{
	if (!r)
		return;
	bp_rr_responder_detach(r);
	free(r->udp_buf);
	free(r);
}

int bp_rr_responder_fd(const struct bp_rr_responder *r)
{
	return r->flow.fd;
}

uint64_t bp_rr_responder_served(const struct bp_rr_responder *r)
{
	return __atomic_load_n(&r->served, __ATOMIC_RELAXED);
}

uint64_t bp_rr_responder_bytes(const struct bp_rr_responder *r)
{
	return __atomic_load_n(&r->bytes, __ATOMIC_RELAXED);
}

static void count(struct bp_rr_responder *r, uint64_t requests, uint64_t bytes)
{
	__atomic_store_n(&r->served, r->served + requests, __ATOMIC_RELAXED);
	__atomic_store_n(&r->bytes, r->bytes + bytes, __ATOMIC_RELAXED);
}

/* The connection is over: crr closes it and tells the owner. */
static void finish(struct bp_rr_responder *r)
{
	int fd = r->flow.fd;

	bp_rr_responder_detach(r);
	if (r->cfg.owns_fd) {
		close(fd);
		r->flow.fd = -1;
	}
	if (r->cfg.done)
		r->cfg.done(r, r->cfg.done_arg);
}

/* Write what is owed; false when the connection broke. */
static bool write_owed(struct bp_rr_responder *r)
{
	while (r->owed) {
		size_t n = r->owed < sizeof(zeros) ? (size_t)r->owed : sizeof(zeros);
		ssize_t w = send(r->flow.fd, zeros, n, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		r->owed -= (uint64_t)w;
	}
	return true;
}

/* n request bytes came: count the requests they complete, owe their answers. */
static void take(struct bp_rr_responder *r, size_t n)
{
	uint64_t done;

	r->got += n;
	done = r->got / r->cfg.req_len;
	r->got %= r->cfg.req_len;
	r->owed += done * r->cfg.resp_len;
	count(r, done, n);
}

/*
 * Read what came, write what is owed. True when the connection is over: finish() ran, the
 * owner's done callback may have freed r.
 */
static bool tcp_serve(struct bp_rr_responder *r, uint32_t events)
{
	struct bp_flow *f = &r->flow;
	char buf[65536];
	bool eof = false, broken = false;

	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		for (int i = 0; i < 16; i++) {
			ssize_t n = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n == 0) {
				eof = true;
				break;
			}
			if (n < 0) {
				broken = errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
				break;
			}
			take(r, (size_t)n);
			if ((size_t)n < sizeof(buf))
				break;
		}
	}
	if (!broken)
		broken = !write_owed(r);
	if (broken || eof ||
	    (r->cfg.close_after && r->served >= r->cfg.close_after && !r->owed)) {
		finish(r);
		return true;
	}
	return false;
}

/*
 * An rr responder alone on its worker (bp_loop_sole_flow) waits for the next request inside
 * recv itself, as sockperf's server does: two system calls per transaction (recv, send)
 * instead of three (epoll_wait, then receive and answer), which a round trip of ten
 * microseconds on a small core notices. Each wait is bounded by the socket's 1 ms
 * SO_RCVTIMEO and the whole by ALONE_SLICE_NS; a command for the worker (a new stream, a
 * stop) or a signal ends it after the current wait. Anything unusual (EOF, an error, a full
 * send buffer, a timeout) goes back to the loop, whose handlers deal with it as always.
 */
#define ALONE_SLICE_NS (10 * BP_NS_PER_MS)

static bool alone(const struct bp_rr_responder *r, uint64_t until)
{
	return r->can_block && bp_loop_sole_flow(r->flow.loop) && bp_now_ns() < until;
}

static void tcp_serve_alone(struct bp_rr_responder *r)
{
	uint64_t until = bp_now_ns() + ALONE_SLICE_NS;

	while (!r->owed && alone(r, until)) {
		/* MSG_TRUNC: TCP discards the request in the kernel; only its length matters. */
		ssize_t n = bp_recv_discard(r->flow.fd, 1 << 20, 0, r->cfg.sctp);

		if (n <= 0)
			return;
		take(r, (size_t)n);
		if (!write_owed(r))
			return;
	}
}

static void tcp_ready(struct bp_flow *f, uint32_t events)
{
	struct bp_rr_responder *r = f->data;
	uint32_t want;

	if (tcp_serve(r, events))
		return;
	tcp_serve_alone(r);
	/* Only when it changes: an epoll_ctl per answer would cost a system call each. */
	want = r->owed ? EPOLLIN | EPOLLOUT : EPOLLIN;
	if (f->events != want)
		bp_loop_mod(f, want);
}

/* The answer to the datagram of len bytes at req: its sequence number, then zeros. */
static void udp_answer_iov(const struct bp_rr_responder *r, void *req, size_t len,
			   struct iovec iov[2])
{
	size_t head = len < BP_RR_SEQ_LEN ? len : BP_RR_SEQ_LEN, resp = r->cfg.resp_len;

	iov[0] = (struct iovec){ req, head };
	iov[1] = (struct iovec){ bp_unconst(zeros), resp > head ? resp - head : 0 };  /* sent */
}

static void udp_serve_alone(struct bp_rr_responder *r)
{
	uint64_t until = bp_now_ns() + ALONE_SLICE_NS;

	while (alone(r, until)) {
		struct iovec iov[2];
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n = recv(r->flow.fd, r->udp_buf, r->cfg.req_len + 1, 0);

		if (n < 0)
			return;
		udp_answer_iov(r, r->udp_buf, (size_t)n, iov);
		sendmsg(r->flow.fd, &msg, MSG_DONTWAIT);
		count(r, 1, (uint64_t)n);
	}
}

/* UDP: a batch of requests in, a batch of answers out, each echoing its sequence number. */
static void udp_ready(struct bp_flow *f, uint32_t events)
{
	struct bp_rr_responder *r = f->data;
	size_t slot = r->cfg.req_len + 1;
	struct mmsghdr in[UDP_BATCH], out[UDP_BATCH];
	struct iovec iin[UDP_BATCH], iout[UDP_BATCH][2];
	uint64_t bytes = 0;
	int n;

	(void)events;
	memset(in, 0, sizeof(in));
	for (int i = 0; i < UDP_BATCH; i++) {
		iin[i] = (struct iovec){ r->udp_buf + (size_t)i * slot, slot };
		in[i].msg_hdr.msg_iov = &iin[i];
		in[i].msg_hdr.msg_iovlen = 1;
	}
	n = recvmmsg(f->fd, in, UDP_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return;
	memset(out, 0, sizeof(out));
	for (int i = 0; i < n; i++) {
		bytes += in[i].msg_len;
		udp_answer_iov(r, iin[i].iov_base, in[i].msg_len, iout[i]);
		out[i].msg_hdr.msg_iov = iout[i];
		out[i].msg_hdr.msg_iovlen = 2;
	}
	/* An answer the kernel refuses (a full buffer) is a lost answer, as on the wire. */
	sendmmsg(f->fd, out, (unsigned)n, MSG_DONTWAIT);
	count(r, (uint64_t)n, bytes);
	udp_serve_alone(r);
}

/*
 * crr (close_after over TCP, the responder owns the socket) differs in two ways, each
 * saving system calls on every connection:
 *   - O_NONBLOCK is not set: every recv and send here passes MSG_DONTWAIT, and no one else
 *     uses the socket (the server's accept4 makes it non-blocking anyway);
 *   - the request is answered at once, before the socket goes into epoll: it came with the
 *     cookie (one segment from the client), which the server has just read, so it is almost
 *     always there. Then the answer is written and the socket closed here, the owner's done
 *     callback runs before attach returns 0, and r must not be used after; otherwise the
 *     socket waits in epoll for the rest as usual (one recv spent).
 */
int bp_rr_responder_attach(struct bp_rr_responder *r, struct bp_loop *loop, int fd)
{
	bool crr = r->cfg.close_after && r->cfg.owns_fd && !r->cfg.udp;
	int rc = 0;

	/*
	 * rr: the socket blocks, for the waits of serve_alone; every other call passes
	 * MSG_DONTWAIT. Where that cannot be set up, it is non-blocking and never waits alone.
	 */
	if (!r->cfg.close_after) {
		struct timeval tv = { .tv_usec = 1000 };

		r->can_block = !bp_sock_set_nonblocking(fd, false) &&
			       !setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (!r->can_block)
			rc = bp_sock_set_nonblocking(fd, true);
	} else if (!crr) {
		rc = bp_sock_set_nonblocking(fd, true);
	}
	if (rc)
		return rc;
	r->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .data = r,
				    .handler = r->cfg.udp ? udp_ready : tcp_ready };
	if (crr) {
		if (tcp_serve(r, EPOLLIN))
			return 0;
		r->flow.events = r->owed ? EPOLLIN | EPOLLOUT : EPOLLIN;
	}
	rc = bp_loop_add(loop, &r->flow);
	r->attached = !rc;
	return rc;
}

void bp_rr_responder_detach(struct bp_rr_responder *r)
{
	if (r->attached)
		bp_loop_del(&r->flow);
	r->attached = false;
}

static int ops_start(void *state, struct bp_loop *loop, int fd)
{
	return bp_rr_responder_attach(state, loop, fd);
}

static void ops_stop(void *state, struct bp_loop *loop)
{
	(void)loop;
	bp_rr_responder_detach(state);
}

static void ops_release(void *state)
{
	bp_rr_responder_free(state);
}

const struct bp_stream_ops bp_rr_responder_ops = {
	.start = ops_start, .stop = ops_stop, .release = ops_release,
};
