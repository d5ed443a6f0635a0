/*
 * The pool side of streams: worker threads, each with its own loop, the commands that other
 * threads queue for them (add, start, stop, release, quit), and a stream's life between
 * them. What a worker does with a ready socket is the data path, in stream_data.c.
 */
#include "io/stream_pool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/signals.h"
#include "core/starve.h"
#include "io/loop.h"
#include "io/sock.h"
#include "io/stream_internal.h"

#define POOL_MAX_WORKERS 1024

enum op { OP_ADD, OP_START, OP_STOP, OP_RELEASE, OP_QUIT };

/* A command to a worker; it lives on the caller's stack until the worker marks it done. */
struct cmd {
	enum op op;
	struct bp_stream *s;
	int rc;
	bool done;
	struct cmd *next;
};

struct bp_stream_pool {
	int n;
	pthread_mutex_t lock;
	pthread_cond_t cond;      /* commands queued or done */
	struct worker **w;
};

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
			c->rc = bp_stream_data_sendbuf(w, s->write_len);
		if (s->role == BP_STREAM_SEND && !c->rc) {
			w->nsenders++;
			s->holds_sendbuf = true;
		}
		break;
	case OP_START:
		bp_stream_data_start(s);
		break;
	case OP_STOP:
		bp_stream_data_stop(s);
		break;
	case OP_RELEASE:
		bp_stream_data_stop(s);
		close(s->flow.fd);
		/*
		 * A server idles between tests: it should not keep a send buffer resident. Only a
		 * stream that got the buffer gives it back: one whose OP_ADD failed (no memory)
		 * and is released at once was never counted, and must not free the buffer that
		 * the worker's other senders still use.
		 */
		if (s->holds_sendbuf && --w->nsenders == 0) {
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

	/*
	 * Timers fire when they are due: the kernel's default 50 us of slack would make every
	 * paced send (udp -b, rr, crr and http --rate) up to that late, and an open loop counts
	 * its latency from the due time. A worker that sleeps in between wakes no more often.
	 */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
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
	bp_starve_thread_exit();  /* its run-queue wait stays in the test's account */
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

/*
 * One command for each of n streams, queued on their workers all at once, then waited for
 * together. A busy worker serves commands between two passes of its loop (a pass over 64
 * sending streams writes up to 128 MiB on loopback): one command after the other would
 * cost a pass each, and 128 streams started or stopped one by one took seconds while the
 * streams already running kept moving data. Queued together, every worker takes all of
 * its streams' commands in one pass. Falls back to one at a time without memory.
 */
static void submit_all(struct bp_stream *const *s, int n, enum op op)
{
	struct cmd *c = n > 0 ? calloc((size_t)n, sizeof(*c)) : NULL;
	struct bp_stream_pool *p;

	if (!c) {
		for (int i = 0; i < n; i++)
			submit(s[i]->w, op, s[i]);
		return;
	}
	p = s[0]->w->pool;
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < n; i++) {
		c[i] = (struct cmd){ .op = op, .s = s[i], .next = s[i]->w->head };
		s[i]->w->head = &c[i];
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->n; i++) {
		bp_loop_stop(p->w[i]->loop);
		bp_loop_wake(p->w[i]->loop);
	}
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < n; i++)
		while (!c[i].done)
			pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	free(c);
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
	bp_stream_data_init(s, fd, role, o);
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

void bp_stream_start_all(struct bp_stream *const *s, int n)
{
	submit_all(s, n, OP_START);
}

void bp_stream_stop_all(struct bp_stream *const *s, int n)
{
	submit_all(s, n, OP_STOP);
}

void bp_stream_release_all(struct bp_stream *const *s, int n)
{
	submit_all(s, n, OP_RELEASE);
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

uint64_t bp_stream_pool_worker_cpu_ns(const struct bp_stream_pool *p, int i)
{
	struct timespec ts;

	if (i < 0 || i >= p->n || !p->w[i]->cpu_clock_ok ||
	    clock_gettime(p->w[i]->cpu_clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
