#include "io/stream_pool.h"

#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/loop.h"
#include "core/signals.h"
#include "io/sock.h"

/* iperf3's default TCP write: large enough that syscalls, not bytes, stay the rare thing. */
#define DEFAULT_WRITE_LEN (128 * 1024)
/* iperf3's limit for -l over TCP. */
#define MAX_WRITE_LEN (1024 * 1024)
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
#define POOL_MAX_WORKERS 1024

enum mode { MODE_SEND, MODE_ZEROCOPY, MODE_TRUNC, MODE_COPY };
static const char *const mode_names[] = { "send", "msg_zerocopy", "msg_trunc", "copy" };

enum op { OP_ADD, OP_START, OP_STOP, OP_RELEASE, OP_QUIT };

/* A command to a worker; it lives on the caller's stack until the worker marks it done. */
struct cmd {
	enum op op;
	struct bp_stream *s;
	int rc;
	bool done;
	struct cmd *next;
};

struct worker {
	struct bp_stream_pool *pool;
	int index;
	pthread_t thread;
	clockid_t cpu_clock;
	bool cpu_clock_ok;
	struct bp_loop *loop;
	struct cmd *head;         /* pool->lock */
	int nstreams;             /* pool->lock: added and not yet released */
	bool quit;                /* worker thread only, like everything below */
	char *sendbuf;            /* MAX_WRITE_LEN, only touched up to sendlen */
	size_t sendlen;           /* bytes filled with the pattern, never modified afterwards */
	char *recvbuf;            /* only for the copy fallback */
	int nsenders;             /* worker thread only: sending streams holding sendbuf */
};

struct bp_stream_pool {
	int n;
	pthread_mutex_t lock;
	pthread_cond_t cond;      /* commands queued or done */
	struct worker **w;
};

struct bp_stream {
	struct bp_flow flow;
	struct worker *w;
	enum bp_stream_role role;
	size_t write_len;
	int burst;                /* sends per writable event */
	bool registered;          /* in the worker's epoll set */
	bool zc;                  /* sending with MSG_ZEROCOPY */
	bool zc_wait;             /* ENOBUFS: EPOLLOUT off until completions free optmem */
	uint32_t zc_issued, zc_done;
	uint64_t total;           /* the worker's own count ... */
	uint64_t bytes;           /* ... published with relaxed atomics */
	int error, mode;          /* relaxed atomics */
	bool eof;                 /* relaxed atomic */
	const struct bp_stream_ops *ops; /* BP_STREAM_CUSTOM */
	void *state;
	bool custom_running;
};

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
	if (s->registered)
		bp_loop_del(&s->flow);
	s->registered = false;
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
		ssize_t n = send(s->flow.fd, buf, s->write_len, flags);

		if (n < 0) {
			if (send_failed(s, errno))
				continue;
			break;
		}
		if (s->zc)
			s->zc_issued++;
		s->total += (uint64_t)n;
		/* A short write means the socket buffer is full: the next send would say EAGAIN. */
		if ((size_t)n < s->write_len)
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
		ssize_t n = trunc ? recv(f->fd, NULL, want, MSG_TRUNC | MSG_DONTWAIT)
				  : recv(f->fd, s->w->recvbuf, want, MSG_DONTWAIT);

		if (n > 0) {
			s->total += (uint64_t)n;
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
static int ensure_sendbuf(struct worker *w, size_t len)
{
	if (!w->sendbuf)
		w->sendbuf = malloc(MAX_WRITE_LEN);
	if (!w->sendbuf)
		return -ENOMEM;
	for (; w->sendlen < len; w->sendlen++)
		w->sendbuf[w->sendlen] = (char)('a' + w->sendlen % 26);
	return 0;
}

static void stream_start(struct bp_stream *s)
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

static void stream_stop(struct bp_stream *s)
{
	if (s->registered)
		bp_loop_del(&s->flow);
	s->registered = false;
}

/* The owner's hooks for a custom stream, on this worker's thread. */
static void exec_custom(struct worker *w, struct cmd *c)
{
	struct bp_stream *s = c->s;

	switch (c->op) {
	case OP_START:
		if (!s->custom_running)
			c->rc = s->ops->start(s->state, w->loop, s->flow.fd);
		s->custom_running = !c->rc;
		if (c->rc)
			__atomic_store_n(&s->error, c->rc, __ATOMIC_RELAXED);
		break;
	case OP_STOP:
	case OP_RELEASE:
		if (s->custom_running)
			s->ops->stop(s->state, w->loop);
		s->custom_running = false;
		if (c->op == OP_STOP)
			break;
		s->ops->release(s->state);
		close(s->flow.fd);
		free(s);
		break;
	default:
		break;
	}
}

static void exec_cmd(struct worker *w, struct cmd *c)
{
	struct bp_stream *s = c->s;

	if (s && s->role == BP_STREAM_CUSTOM) {
		exec_custom(w, c);
		return;
	}
	switch (c->op) {
	case OP_ADD:
		if (s->role == BP_STREAM_SEND)
			c->rc = ensure_sendbuf(w, s->write_len);
		if (s->role == BP_STREAM_SEND && !c->rc)
			w->nsenders++;
		break;
	case OP_START:
		stream_start(s);
		break;
	case OP_STOP:
		stream_stop(s);
		break;
	case OP_RELEASE:
		stream_stop(s);
		close(s->flow.fd);
		/* A server idles between tests: it should not keep a send buffer resident. */
		if (s->role == BP_STREAM_SEND && --w->nsenders == 0) {
			free(w->sendbuf);
			w->sendbuf = NULL;
			w->sendlen = 0;
		}
		free(s);
		break;
	case OP_QUIT:
		w->quit = true;
		break;
	}
}

static void run_commands(struct worker *w)
{
	struct bp_stream_pool *p = w->pool;
	struct cmd *c, *next;

	pthread_mutex_lock(&p->lock);
	c = w->head;
	w->head = NULL;
	pthread_mutex_unlock(&p->lock);
	if (!c)
		return;
	for (struct cmd *i = c; i; i = i->next)
		exec_cmd(w, i);
	pthread_mutex_lock(&p->lock);
	for (; c; c = next) {
		/* The caller may return (and its stack frame go) as soon as done is set. */
		next = c->next;
		if (c->op == OP_RELEASE)
			w->nstreams--;
		c->done = true;
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!w->quit) {
		/*
		 * After SIGINT/SIGTERM the loop returns at once; data then stops moving and the
		 * worker only serves the commands that wind the test down.
		 */
		if (bp_stop_requested() || bp_loop_run(w->loop, 0) < 0) {
			pthread_mutex_lock(&w->pool->lock);
			while (!w->head)
				pthread_cond_wait(&w->pool->cond, &w->pool->lock);
			pthread_mutex_unlock(&w->pool->lock);
		}
		run_commands(w);
	}
	return NULL;
}

/* Queue a command on w, wake its loop and wait until the worker has done it. */
static int submit(struct worker *w, enum op op, struct bp_stream *s)
{
	struct bp_stream_pool *p = w->pool;
	struct cmd c = { .op = op, .s = s };

	pthread_mutex_lock(&p->lock);
	/* Each caller waits for its own command, so their order on the worker is free. */
	c.next = w->head;
	w->head = &c;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	bp_loop_stop(w->loop);
	bp_loop_wake(w->loop);
	pthread_mutex_lock(&p->lock);
	while (!c.done)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	return c.rc;
}

static void worker_free(struct worker *w)
{
	free(w->sendbuf);
	free(w->recvbuf);
	bp_loop_free(w->loop);
	free(w);
}

static int worker_start(struct bp_stream_pool *p, int i)
{
	struct worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int rc;

	if (!w)
		return -ENOMEM;
	w->pool = p;
	w->index = i;
	w->loop = bp_loop_new();
	if (!w->loop) {
		rc = errno ? -errno : -ENOMEM;
		worker_free(w);
		return rc;
	}
	/* Signals go to the main thread, whose sleep they cut short; workers never take them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		worker_free(w);
		return rc;
	}
	w->cpu_clock_ok = !pthread_getcpuclockid(w->thread, &w->cpu_clock);
	p->w[i] = w;
	return 0;
}

struct bp_stream_pool *bp_stream_pool_new(int nworkers, char *err, size_t errlen)
{
	struct bp_stream_pool *p;
	int rc = -ENOMEM;

	if (nworkers < 1 || nworkers > POOL_MAX_WORKERS) {
		snprintf(err, errlen, "stream pool: %d workers: expected 1 to %d",
			 nworkers, POOL_MAX_WORKERS);
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->w = calloc((size_t)nworkers, sizeof(*p->w))))
		goto error;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	for (; p->n < nworkers; p->n++) {
		rc = worker_start(p, p->n);
		if (rc)
			goto error;
	}
	return p;
error:
	snprintf(err, errlen, "stream pool: starting worker %d: %s", p ? p->n : 0, strerror(-rc));
	bp_stream_pool_free(p);
	return NULL;
}

void bp_stream_pool_free(struct bp_stream_pool *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++) {
		submit(p->w[i], OP_QUIT, NULL);
		pthread_join(p->w[i]->thread, NULL);
		worker_free(p->w[i]);
	}
	if (p->w) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
	}
	free(p->w);
	free(p);
}

int bp_stream_pool_workers(const struct bp_stream_pool *p)
{
	return p->n;
}

/* The worker with the fewest streams; the chosen one counts the new stream already. */
static struct worker *least_loaded(struct bp_stream_pool *p)
{
	struct worker *best = p->w[0];

	pthread_mutex_lock(&p->lock);
	for (int i = 1; i < p->n; i++)
		if (p->w[i]->nstreams < best->nstreams)
			best = p->w[i];
	best->nstreams++;
	pthread_mutex_unlock(&p->lock);
	return best;
}

/* Socket set-up done by the caller's thread: the worker only ever sees ready streams. */
static void stream_init(struct bp_stream *s, int fd, enum bp_stream_role role,
			const struct bp_stream_opts *o)
{
	int one = 1;

	s->role = role;
	s->write_len = o && o->write_len ? o->write_len : DEFAULT_WRITE_LEN;
	s->burst = SEND_BURST;
	/*
	 * A paced socket takes writes far faster than it sends: without a bound the send
	 * buffer (megabytes) fills at once and the sender's count runs ahead of what left.
	 * TCP_NOTSENT_LOWAT keeps EPOLLOUT off while a write's worth is still unsent, and one
	 * write per event keeps the lead at two writes at most.
	 */
	if (role == BP_STREAM_SEND && o && o->paced) {
		int lowat = (int)s->write_len;

		if (!setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat)))
			s->burst = 1;
	}
	s->flow.fd = fd;
	s->flow.data = s;
	s->flow.handler = role == BP_STREAM_SEND ? on_send : on_recv;
	s->mode = role == BP_STREAM_SEND ? MODE_SEND : MODE_TRUNC;
	/* ENOPROTOOPT (qemu-user, old kernels) or EOPNOTSUPP: plain send, and the result says so. */
	if (role == BP_STREAM_SEND && o && o->zerocopy &&
	    !setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		s->zc = true;
		s->mode = MODE_ZEROCOPY;
	}
}

struct bp_stream *bp_stream_add(struct bp_stream_pool *p, int fd, enum bp_stream_role role,
				const struct bp_stream_opts *o, char *err, size_t errlen)
{
	struct bp_stream *s = NULL;
	int rc = 0;

	if (o && o->write_len > MAX_WRITE_LEN) {
		snprintf(err, errlen, "stream: write length %zu above %d bytes", o->write_len,
			 MAX_WRITE_LEN);
		goto error;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "stream: out of memory");
		goto error;
	}
	rc = bp_sock_set_nonblocking(fd, true);
	if (rc) {
		snprintf(err, errlen, "stream: fcntl O_NONBLOCK: %s", strerror(-rc));
		goto error;
	}
	stream_init(s, fd, role, o);
	s->w = least_loaded(p);
	rc = submit(s->w, OP_ADD, s);
	if (rc) {
		snprintf(err, errlen, "stream: send buffer: %s", strerror(-rc));
		/* The worker counts the stream already: it closes and frees it too. */
		submit(s->w, OP_RELEASE, s);
		return NULL;
	}
	return s;
error:
	close(fd);
	free(s);
	return NULL;
}

struct bp_stream *bp_stream_add_custom(struct bp_stream_pool *p, int fd,
				       const struct bp_stream_ops *ops, void *state,
				       char *err, size_t errlen)
{
	struct bp_stream *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "stream: out of memory");
		ops->release(state);
		close(fd);
		return NULL;
	}
	s->role = BP_STREAM_CUSTOM;
	s->flow.fd = fd;
	s->ops = ops;
	s->state = state;
	s->w = least_loaded(p);
	return s;
}

void bp_stream_start(struct bp_stream *s)
{
	submit(s->w, OP_START, s);
}

void bp_stream_stop(struct bp_stream *s)
{
	submit(s->w, OP_STOP, s);
}

void bp_stream_release(struct bp_stream *s)
{
	if (s)
		submit(s->w, OP_RELEASE, s);
}

uint64_t bp_stream_bytes(const struct bp_stream *s)
{
	return __atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
}

int bp_stream_fd(const struct bp_stream *s)
{
	return s->flow.fd;
}

int bp_stream_worker(const struct bp_stream *s)
{
	return s->w->index;
}

int bp_stream_error(const struct bp_stream *s)
{
	return __atomic_load_n(&s->error, __ATOMIC_RELAXED);
}

bool bp_stream_eof(const struct bp_stream *s)
{
	return __atomic_load_n(&s->eof, __ATOMIC_RELAXED);
}

const char *bp_stream_mode(const struct bp_stream *s)
{
	return mode_names[__atomic_load_n(&s->mode, __ATOMIC_RELAXED)];
}

uint64_t bp_stream_pool_worker_cpu_ns(const struct bp_stream_pool *p, int i)
{
	struct timespec ts;

	if (i < 0 || i >= p->n || !p->w[i]->cpu_clock_ok ||
	    clock_gettime(p->w[i]->cpu_clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
