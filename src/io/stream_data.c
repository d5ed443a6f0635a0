/*
 * The data path of the stream pool: what a worker does when a stream's socket is ready.
 * Senders write a pattern buffer (with MSG_ZEROCOPY while it pays off), receivers discard
 * in the kernel (MSG_TRUNC) or, where that is refused, copy; each falls back on its own and
 * says which path ran. Everything here runs on the stream's worker thread except
 * bp_stream_data_init (before the worker has the stream) and bp_stream_mode (a relaxed
 * atomic read, from any thread).
 */
#include "io/stream_internal.h"
#include "core/clock.h"
#include "io/sock.h"

#include <errno.h>
#include <math.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* iperf3's default TCP write: large enough that syscalls, not bytes, stay the rare thing. */
#define DEFAULT_WRITE_LEN (128 * 1024)
/*
 * With MSG_TRUNC nothing is copied, so one recv may ask for everything queued; the kernel
 * returns what there is. The copy fallback reads into a buffer of this smaller size.
 */
#define RECV_TRUNC_LEN (16 * 1024 * 1024)
#define RECV_COPY_LEN (256 * 1024)
/* Calls per readiness event, so that one fast stream cannot starve the others of its worker. */
#define SEND_BURST 16
#define RECV_BURST 8
/* Completion notifications read per EPOLLERR; the rest come with the next one. */
#define ZC_DRAIN_MAX 32
/*
 * TCP -b: a paced send waits until this much of the rate is due (one ms of it), at least
 * one segment's payload at Ethernet's MTU and at most one write: -b 1M sends a segment
 * every 11.6 ms, as the rate spaces them, not a 128 KiB write every second.
 */
#define PACE_SLICE_NS 1000000.0
#define PACE_MIN_CHUNK 1448

static const char *const mode_names[] = { "send", "msg_zerocopy", "msg_trunc", "copy" };

static void publish(struct bp_stream *s)
{
	__atomic_store_n(&s->bytes, s->total, __ATOMIC_RELAXED);
}

static void set_mode(struct bp_stream *s, enum mode m)
{
	__atomic_store_n(&s->mode, (int)m, __ATOMIC_RELAXED);
}

/* The stream ends with err: out of the epoll set, the socket stays open for TCP_INFO. */
static void fail(struct bp_stream *s, int err)
{
	publish(s);
	__atomic_store_n(&s->error, err, __ATOMIC_RELAXED);
	bp_stream_data_stop(s);
}

/*
 * TCP -b. The kernel paces the socket (SO_MAX_PACING_RATE), but not all it sends: over
 * loopback ~1.8 MB left at once at the start whatever the rate (-b 1M read 2.40 Mbit/s over
 * 10 s, 10M 11.36, 100M 101.7). So the sender itself never writes ahead of the rate, the way
 * iperf3 throttles -b: by time t after its first write, at most one chunk more than rate x t.
 * The bytes a send may take now: 0 when less than a chunk is due.
 */
static size_t pace_allows(struct bp_stream *s, uint64_t now)
{
	double due;

	if (!s->pace_t0)
		s->pace_t0 = now;
	due = (double)s->pace_chunk + s->pace_rate * (double)(now - s->pace_t0) -
	      (double)s->total;
	if (!(due >= (double)s->pace_chunk))
		return 0;
	return due >= (double)s->write_len ? s->write_len : (size_t)due;
}

/* Held back by the rate: no EPOLLOUT until a chunk is due, then the writable event again. */
static void pace_fired(struct bp_timer *t, uint64_t now)
{
	struct bp_stream *s = t->data;

	(void)now;
	if (s->registered && !s->zc_wait)
		bp_loop_mod(&s->flow, EPOLLOUT);
}

static void pace_wait(struct bp_stream *s)
{
	/* A chunk is due once rate x (t - t0) has caught up with what was written. */
	double wait = (double)s->total / s->pace_rate;
	uint64_t due = s->pace_t0 + (wait < 1e18 ? (uint64_t)wait + 1 : (uint64_t)1e18);

	bp_loop_mod(&s->flow, 0);
	bp_timer_arm(s->w->loop, &s->pace_timer, due);
}

/* Read MSG_ZEROCOPY completions from the error queue; each names a range of sends. */
static void zc_drain(struct bp_stream *s)
{
	char control[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
	bool copied = false;
	uint32_t before = s->zc_done;

	for (int i = 0; i < ZC_DRAIN_MAX; i++) {
		struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };
		struct cmsghdr *cm;

		if (recvmsg(s->flow.fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err *ee = (struct sock_extended_err *)CMSG_DATA(cm);

			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			if (ee->ee_errno || ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			s->zc_done += ee->ee_data - ee->ee_info + 1;
			if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				copied = true;
		}
	}
	/*
	 * The kernel copied after all (loopback, a NIC without scatter-gather): zerocopy only
	 * costs the notifications then, so plain send takes over, as the kernel docs advise.
	 */
	if (copied && s->zc) {
		s->zc = false;
		set_mode(s, MODE_SEND);
	}
	if (s->zc_wait && s->zc_done != before) {
		s->zc_wait = false;
		bp_loop_mod(&s->flow, EPOLLOUT);
	}
}

/* send() failed with e; true when the stream should keep sending in this burst. */
static bool send_failed(struct bp_stream *s, int e)
{
	if (e == EAGAIN || e == EWOULDBLOCK)
		return false;
	if (e == EINTR)
		return true;
	if (e == ENOBUFS && s->zc) {
		if (s->zc_issued == s->zc_done) {
			/* Nothing in flight to wait for: optmem is too small for zerocopy at all. */
			s->zc = false;
			set_mode(s, MODE_SEND);
			return true;
		}
		/* Only EPOLLERR (the completions) can end this wait: no spinning on EPOLLOUT. */
		s->zc_wait = true;
		bp_loop_mod(&s->flow, 0);
		return false;
	}
	fail(s, -e);
	return false;
}

static void send_burst(struct bp_stream *s)
{
	const char *buf = s->w->sendbuf;

	for (int i = 0; i < s->burst; i++) {
		int flags = MSG_NOSIGNAL | MSG_DONTWAIT | (s->zc ? MSG_ZEROCOPY : 0);
		size_t len;
		ssize_t n;

		/*
		 * -n/-k written: nothing more to send, the test's end comes from the peer. Out of
		 * the epoll set, as a receiver at EOF: a peer that closes (EPOLLHUP, reported
		 * whatever the mask) cannot wake it in a loop.
		 */
		if (s->limit_bytes && s->total >= s->limit_bytes) {
			bp_loop_del(&s->flow);
			s->registered = false;
			break;
		}
		len = s->pace_rate > 0 ? pace_allows(s, bp_now_ns()) : s->write_len;
		if (!len) {
			pace_wait(s);
			break;
		}
		/* after a short write the blocks no longer line up: never past the count */
		if (s->limit_bytes && len > s->limit_bytes - s->total)
			len = (size_t)(s->limit_bytes - s->total);
		n = send(s->flow.fd, buf, len, flags);
		if (n < 0) {
			if (send_failed(s, errno))
				continue;
			break;
		}
		if (s->zc)
			s->zc_issued++;
		s->total += (uint64_t)n;
		/* A short write means the socket buffer is full: the next send would say EAGAIN. */
		if ((size_t)n < len)
			break;
	}
	publish(s);
}

static void on_send(struct bp_flow *f, uint32_t events)
{
	struct bp_stream *s = f->data;
	uint32_t done = s->zc_done;

	if ((events & EPOLLERR) && s->zc_issued != s->zc_done)
		zc_drain(s);
	/* Still waiting for completions, unless the socket broke (send then says how). */
	if (s->zc_wait && !(events & EPOLLHUP) && !((events & EPOLLERR) && s->zc_done == done))
		return;
	send_burst(s);
}

static void on_recv(struct bp_flow *f, uint32_t events)
{
	struct bp_stream *s = f->data;

	(void)events;
	for (int i = 0; i < RECV_BURST; i++) {
		bool trunc = __atomic_load_n(&s->mode, __ATOMIC_RELAXED) == MODE_TRUNC;
		size_t want = trunc ? RECV_TRUNC_LEN : RECV_COPY_LEN;
		ssize_t n;

		if (!trunc && !s->w->recvbuf && !(s->w->recvbuf = malloc(RECV_COPY_LEN))) {
			fail(s, -ENOMEM);
			return;
		}
		n = trunc ? recv(f->fd, NULL, want, MSG_TRUNC | MSG_DONTWAIT)
			  : recv(f->fd, s->w->recvbuf, want, MSG_DONTWAIT);

		if (n > 0) {
			s->total += (uint64_t)n;
			if (s->inspect)
				s->inspect(s->inspect_arg, (const uint8_t *)s->w->recvbuf,
					   (size_t)n);
			/* Less than asked: the queue is empty now. */
			if ((size_t)n < want)
				break;
			continue;
		}
		if (n == 0) {
			__atomic_store_n(&s->eof, true, __ATOMIC_RELAXED);
			bp_loop_del(f);
			s->registered = false;
			break;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (errno == EINTR)
			continue;
		/* MSG_TRUNC refused (an emulator, an exotic kernel): copy into a buffer. */
		if (trunc && (errno == EFAULT || errno == EINVAL || errno == EOPNOTSUPP)) {
			if (!s->w->recvbuf)
				s->w->recvbuf = malloc(RECV_COPY_LEN);
			if (s->w->recvbuf) {
				set_mode(s, MODE_COPY);
				continue;
			}
			errno = ENOMEM;
		}
		fail(s, -errno);
		return;
	}
	publish(s);
}

/*
 * The worker's send buffer holds at least len bytes of a pattern (not zeros: a link that
 * compresses would flatter us). It never moves and filled bytes never change, so sends in
 * flight (MSG_ZEROCOPY) stay valid; pages past the longest write are never touched.
 */
int bp_stream_data_sendbuf(struct worker *w, size_t len)
{
	if (!w->sendbuf)
		w->sendbuf = malloc(MAX_WRITE_LEN);
	if (!w->sendbuf)
		return -ENOMEM;
	for (; w->sendlen < len; w->sendlen++)
		w->sendbuf[w->sendlen] = (char)('a' + w->sendlen % 26);
	return 0;
}

void bp_stream_data_start(struct bp_stream *s)
{
	int rc;

	if (s->registered || __atomic_load_n(&s->error, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&s->eof, __ATOMIC_RELAXED))
		return;
	s->flow.events = s->zc_wait ? 0 : s->role == BP_STREAM_SEND ? EPOLLOUT : EPOLLIN;
	rc = bp_loop_add(s->w->loop, &s->flow);
	if (rc)
		__atomic_store_n(&s->error, rc, __ATOMIC_RELAXED);
	s->registered = !rc;
}

void bp_stream_data_stop(struct bp_stream *s)
{
	if (s->registered)
		bp_loop_del(&s->flow);
	s->registered = false;
	bp_timer_cancel(s->w->loop, &s->pace_timer);
}

/* Socket set-up done by the caller's thread: the worker only ever sees ready streams. */
void bp_stream_data_init(struct bp_stream *s, int fd, enum bp_stream_role role,
			 const struct bp_stream_opts *o)
{
	int one = 1;

	s->role = role;
	s->write_len = o && o->write_len ? o->write_len : DEFAULT_WRITE_LEN;
	s->limit_bytes = o && role == BP_STREAM_SEND ? o->limit_bytes : 0;
	s->burst = SEND_BURST;
	/*
	 * A paced socket takes writes far faster than it sends: without a bound the send
	 * buffer (megabytes) fills at once and the sender's count runs ahead of what left.
	 * TCP_NOTSENT_LOWAT keeps EPOLLOUT off while a write's worth is still unsent, and one
	 * write per event keeps the lead at two writes at most.
	 */
	if (role == BP_STREAM_SEND && o && o->pace_bps > 0 && isfinite(o->pace_bps)) {
		int lowat = (int)s->write_len;
		double slice = o->pace_bps / 8 / 1e9 * PACE_SLICE_NS;

		if (!setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat)))
			s->burst = 1;
		s->pace_rate = o->pace_bps / 8 / 1e9;
		s->pace_chunk = (size_t)fmin(fmax(slice, PACE_MIN_CHUNK), (double)s->write_len);
		s->pace_timer = (struct bp_timer){ .fn = pace_fired, .data = s };
	}
	s->flow.fd = fd;
	s->flow.data = s;
	s->flow.handler = role == BP_STREAM_SEND ? on_send : on_recv;
	s->mode = role == BP_STREAM_SEND ? MODE_SEND : MODE_TRUNC;
	/* SCTP takes MSG_TRUNC as a copy into NULL: EFAULT, and the message it took is lost. */
	if (role == BP_STREAM_RECV && bp_sock_is_sctp(fd))
		s->mode = MODE_COPY;
	/* an inspected receiver sees every byte: copied, never truncated */
	if (role == BP_STREAM_RECV && o && o->inspect) {
		s->inspect = o->inspect;
		s->inspect_arg = o->inspect_arg;
		s->mode = MODE_COPY;
	}
	/* ENOPROTOOPT (qemu-user, old kernels) or EOPNOTSUPP: plain send, and the result says so. */
	if (role == BP_STREAM_SEND && o && o->zerocopy &&
	    !setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		s->zc = true;
		s->mode = MODE_ZEROCOPY;
	}
}

const char *bp_stream_mode(const struct bp_stream *s)
{
	return mode_names[__atomic_load_n(&s->mode, __ATOMIC_RELAXED)];
}
