#include "http/http_worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/clock.h"

/* Read buffer per worker: answers are parsed as they arrive and never kept. */
#define BUF_LEN (16 * 1024)
/*
 * How often timeouts and connect retries are checked: one walk over the worker's
 * connections instead of a timer per request (a sorted timer list costs O(n) to arm). A
 * timerfd rather than a loop timer: with no loop timer armed, a closed-loop worker waits in
 * epoll without a timeout, and the kernel sets no hrtimer for every wait.
 */
#define SWEEP_NS (20 * BP_NS_PER_MS)
/* Requests released per pacer wake-up before the sockets get their turn. */
#define PACER_BURST 1024

struct bp_http_worker *bp_http_worker_new(const struct bp_http_load_cfg *cfg,
					  struct bp_txn_stats *stats, int first, int n)
{
	struct bp_http_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cfg = cfg;
	w->stats = stats;
	w->first = first;
	w->n = n;
	w->buflen = BUF_LEN;
	w->sweep.fd = -1;
	w->buf = malloc(BUF_LEN);
	w->conns = calloc((size_t)n, sizeof(*w->conns));
	if (!w->buf || !w->conns)
		goto error;
	for (int j = 0; j < n; j++) {
		bp_http_conn_init(&w->conns[j], w, j);
		w->conns[j].ring = calloc((size_t)cfg->depth, sizeof(*w->conns[j].ring));
		if (!w->conns[j].ring)
			goto error;
	}
	return w;
error:
	for (int j = 0; w->conns && j < n; j++)
		free(w->conns[j].ring);
	free(w->conns);
	free(w->buf);
	free(w);
	return NULL;
}

uint64_t bp_http_worker_released(const struct bp_http_worker *w)
{
	return __atomic_load_n(&w->released, __ATOMIC_RELAXED);
}

/* When the worker's k-th request falls due: its connections take turns. */
static uint64_t due_ns(const struct bp_http_worker *w, uint64_t k)
{
	return bp_http_conn_due_ns(&w->conns[k % (uint64_t)w->n], k / (uint64_t)w->n);
}

uint64_t bp_http_worker_due_by(const struct bp_http_worker *w, uint64_t end_ns)
{
	uint64_t k = bp_http_worker_released(w);

	if (w->cfg->rate <= 0 || w->n <= 0)
		return k;
	/*
	 * A stop that reached this worker after end_ns (a busy machine) let its pacer release
	 * requests due after the span: they fell due outside it. The pacer releases a burst at
	 * most past the end and is behind by a few at most; the bounds only guard the loops.
	 */
	for (uint64_t back = 0; back < (1u << 24) && k > 0; back++, k--)
		if (due_ns(w, k - 1) < end_ns)
			break;
	for (uint64_t more = 0; more < (1u << 24); more++, k++)
		if (due_ns(w, k) >= end_ns)
			break;
	return k;
}

const char *bp_http_worker_tls(const struct bp_http_worker *w)
{
	return w->tls_desc;
}

/* Open loop: hand every request now due to its connection. */
static void pacer_fired(struct bp_timer *t, uint64_t now)
{
	struct bp_http_worker *w = t->data;

	w->now = bp_now_ns();
	(void)now;
	for (int i = 0; i < PACER_BURST && w->running; i++) {
		uint64_t k = w->released;
		struct bp_http_conn *c = &w->conns[k % (uint64_t)w->n];
		uint64_t due = bp_http_conn_due_ns(c, k / (uint64_t)w->n);

		if (due > w->now) {
			bp_timer_arm(w->loop, &w->pacer, due);
			return;
		}
		__atomic_store_n(&w->released, k + 1, __ATOMIC_RELAXED);
		c->due++;
		if (c->st == BP_HTTP_IDLE)
			bp_http_conn_open(c);
		else
			bp_http_conn_pump(c);
	}
	/* Behind schedule: catch up on the next pass, after the sockets had theirs. */
	if (w->running)
		bp_timer_arm(w->loop, &w->pacer, w->now);
}

/* The connections that deferred their sends (http_conn.c) send now, after the batch. */
static void flush_fired(struct bp_timer *t, uint64_t now)
{
	struct bp_http_worker *w = t->data;
	struct bp_http_conn *c = w->ready;

	(void)now;
	w->ready = NULL;
	w->now = bp_now_ns();
	while (c) {
		struct bp_http_conn *next = c->next_ready;

		c->ready = false;
		c->next_ready = NULL;
		if (w->running)
			bp_http_conn_pump(c);
		c = next;
	}
}

static void sweep_fired(struct bp_flow *f, uint32_t events)
{
	struct bp_http_worker *w = f->data;
	uint64_t expirations, now = bp_now_ns();

	(void)events;
	if (read(f->fd, &expirations, sizeof(expirations)) < 0)
		return;  /* EAGAIN: a stale wake-up */
	for (int j = 0; j < w->n && w->running; j++)
		bp_http_conn_sweep(&w->conns[j], now);
}

static int start_sweep(struct bp_http_worker *w)
{
	struct itimerspec its = {
		.it_interval = { 0, (long)SWEEP_NS }, .it_value = { 0, (long)SWEEP_NS },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	w->sweep = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = sweep_fired,
				     .data = w };
	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) || bp_loop_add(w->loop, &w->sweep)) {
		close(fd);
		w->sweep.fd = -1;
		return -EIO;
	}
	return 0;
}

static int ops_start(void *state, struct bp_loop *loop, int fd)
{
	struct bp_http_worker *w = state;
	char err[160];

	(void)fd;
	w->loop = loop;
	bp_loop_set_busy_poll(loop, w->cfg->busy_poll_ns);
	if (w->cfg->tls) {
		w->ctx = bp_http_tls_ctx_new(w->cfg->verify, err, sizeof(err));
		if (!w->ctx)
			return -EPROTO;
	}
	w->pacer = (struct bp_timer){ .fn = pacer_fired, .data = w };
	w->flush = (struct bp_timer){ .fn = flush_fired, .data = w };
	if (start_sweep(w))
		return -EIO;
	/* One time zero for all: a worker that starts late catches up on what fell due. */
	bp_pacer_init_pps(&w->schedule, w->cfg->rate, w->cfg->start_ns);  /* 0: closed loop */
	w->now = bp_now_ns();
	w->running = true;
	/* Open loop with a connection per request: connections open as requests fall due. */
	if (!(w->cfg->new_conn && w->cfg->rate > 0))
		for (int j = 0; j < w->n; j++)
			bp_http_conn_open(&w->conns[j]);
	if (w->cfg->rate > 0)
		bp_timer_arm(loop, &w->pacer, bp_pacer_slot_ns(&w->schedule, (uint64_t)w->first));
	return 0;
}

/* The end: answers still on their way are not counted, and nothing counts as failed. */
static void ops_stop(void *state, struct bp_loop *loop)
{
	struct bp_http_worker *w = state;

	w->running = false;
	bp_loop_busy_poll_stats(loop, &w->polls, &w->polled_ns, &w->poll_hits);
	bp_timer_cancel(loop, &w->pacer);
	bp_timer_cancel(loop, &w->flush);
	w->ready = NULL;
	if (w->sweep.fd >= 0) {
		bp_loop_del(&w->sweep);
		close(w->sweep.fd);
		w->sweep.fd = -1;
	}
	for (int j = 0; j < w->n; j++)
		bp_http_conn_close(&w->conns[j]);
}

static void ops_release(void *state)
{
	struct bp_http_worker *w = state;

	for (int j = 0; j < w->n; j++)
		bp_http_conn_free(&w->conns[j]);
	if (w->ctx)
		SSL_CTX_free(w->ctx);
	free(w->conns);
	free(w->buf);
	free(w);
}

const struct bp_stream_ops bp_http_worker_ops = {
	.start = ops_start, .stop = ops_stop, .release = ops_release,
};
