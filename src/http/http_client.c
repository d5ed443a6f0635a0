#include "http/http_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board/net_path.h"
#include "core/clock.h"
#include "core/cpuacct.h"
#include "core/side_cpu.h"
#include "core/start_at.h"
#include "core/signals.h"
#include "core/workers.h"
#include "http/http_io.h"
#include "http/http_report.h"
#include "http/http_worker.h"
#include "io/stream_pool.h"

/* The reporter wakes at interval marks, and at least this often to notice a stop. */
#define TICK_NS (100 * BP_NS_PER_MS)

struct client {
	const struct bp_http_client_opts *o;
	struct bp_http_outcome *out;
	struct bp_http_load_cfg cfg;
	char *req;
	struct bp_stream_pool *pool;
	int nworkers;
	struct bp_txn_stats *stats;
	struct bp_http_worker **workers;
	struct bp_stream **streams;
	struct bp_conn_hists iv_h, total_h;
	uint64_t start_ns, stop_ns; /* the measured span: stop_ns is where it ended */
	char *err;
	size_t errlen;
};

/* One blocking TLS handshake before the load: a certificate or protocol problem becomes
 * one clear line instead of a count of connect errors. */
static int tls_check(struct client *c, int fd)
{
	struct bp_http_io io = { .fd = fd };
	struct timeval tv = { .tv_sec = (time_t)(c->o->timeout_ns / BP_NS_PER_SEC),
			      .tv_usec = (long)(c->o->timeout_ns % BP_NS_PER_SEC / 1000) };
	SSL_CTX *ctx = bp_http_tls_ctx_new(c->cfg.verify, c->err, c->errlen);
	char why[128];
	int rc;

	if (!ctx)
		return -EPROTO;
	/* Blocking, but never longer than --timeout per step. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rc = bp_http_io_tls_begin(&io, ctx, c->cfg.host, c->cfg.verify);
	if (!rc) {
		rc = bp_http_io_handshake(&io, why, sizeof(why));
		if (rc)
			snprintf(c->err, c->errlen, "TLS handshake with %s: %s", c->cfg.addr_str,
				 rc == -EAGAIN ? "timed out" : why);
	}
	if (io.ssl)
		SSL_free(io.ssl);
	SSL_CTX_free(ctx);
	return rc ? -EPROTO : 0;
}

/* Resolve, build the request, and try one connection. */
static int prepare(struct client *c)
{
	const struct bp_http_client_opts *o = c->o;
	struct bp_http_request_cfg rq = o->req;
	int fd, rc;

	rc = bp_resolve(o->url->host, o->url->port, o->family, false, &c->cfg.addr, c->err,
			c->errlen);
	if (rc)
		return rc;
	bp_addr_str(&c->cfg.addr, c->cfg.addr_str, sizeof(c->cfg.addr_str));
	snprintf(c->out->server_addr, sizeof(c->out->server_addr), "%s", c->cfg.addr_str);
	c->out->this_host = bp_addr_is_this_host(&c->cfg.addr);
	c->out->path = bp_net_path_collect(&c->cfg.addr);
	rq.target = o->url->target;
	rq.host_header = o->url->host_header;
	rq.close = o->new_conn;
	rc = bp_http_request_build(&rq, o->depth, &c->req, &c->cfg.req_len, c->err, c->errlen);
	if (rc)
		return rc;
	c->out->request_bytes = c->cfg.req_len;
	c->cfg.req = c->req;
	c->cfg.host = o->url->host;
	c->cfg.tls = o->url->tls;
	c->cfg.verify = o->verify;
	c->cfg.head = !strcmp(rq.method, "HEAD");
	c->cfg.new_conn = o->new_conn;
	c->cfg.depth = o->depth;
	c->cfg.rate = o->rate;
	c->cfg.timeout_ns = o->timeout_ns;
	c->cfg.total_conns = o->connections;
	rc = bp_tcp_connect(&c->cfg.addr, bp_now_ns() + o->timeout_ns, NULL, NULL, &fd, c->err,
			    c->errlen);
	if (rc)
		return rc;
	if (c->cfg.tls)
		rc = tls_check(c, fd);
	close(fd);
	return rc;
}

static int start_workers(struct client *c)
{
	const struct bp_http_client_opts *o = c->o;
	int cpus = bp_workers_available_cpus(), first = 0;
	int n = o->threads > 0 && o->threads < cpus ? o->threads : cpus;

	/* Never more workers than connections, nor than the CPUs this process may run on: two
	 * event loops on one core only take turns on it, each turn a sleep (see below). */
	c->nworkers = n < o->connections ? n : o->connections;
	/*
	 * A server on this machine pays for waking a sleeping worker (io/busy_poll.h): workers
	 * poll briefly instead, where the machine has a CPU more than the workers (for the
	 * server: on any of them, whatever this process's own affinity).
	 */
	if (c->out->this_host && sysconf(_SC_NPROCESSORS_ONLN) > c->nworkers)
		c->cfg.busy_poll_ns = BP_HTTP_BUSY_POLL_NS;
	c->pool = bp_stream_pool_new(c->nworkers, c->err, c->errlen);
	c->stats = calloc((size_t)c->nworkers, sizeof(*c->stats));
	c->workers = calloc((size_t)c->nworkers, sizeof(*c->workers));
	c->streams = calloc((size_t)c->nworkers, sizeof(*c->streams));
	if (!c->pool || !c->stats || !c->workers || !c->streams)
		return -ENOMEM;
	for (int i = 0; i < c->nworkers; i++)
		if (bp_http_stats_init(&c->stats[i]))
			return -ENOMEM;
	for (int i = 0; i < c->nworkers; i++) {
		/* Connections spread evenly: the first (connections mod workers) get one more. */
		int share = o->connections / c->nworkers + (i < o->connections % c->nworkers);

		c->workers[i] = bp_http_worker_new(&c->cfg, &c->stats[i], first, share);
		if (!c->workers[i])
			return -ENOMEM;
		c->streams[i] = bp_stream_add_custom(c->pool, -1, &bp_http_worker_ops,
						     c->workers[i], c->err, c->errlen);
		if (!c->streams[i]) {
			c->workers[i] = NULL;  /* released by the pool */
			return -ENOMEM;
		}
		first += share;
	}
	c->start_ns = c->cfg.start_ns = bp_now_ns();
	for (int i = 0; i < c->nworkers; i++) {
		bp_stream_start(c->streams[i]);
		if (bp_stream_error(c->streams[i])) {
			snprintf(c->err, c->errlen, "TLS: cannot create a context for worker %d", i);
			return bp_stream_error(c->streams[i]);
		}
	}
	return 0;
}

/* The interval just closed, to the live sink as the result will hold it. */
static void emit_live(const struct client *c, const struct bp_http_interval *v)
{
	struct bp_interval iv = { .start = v->start_s, .end = v->end_s };

	if (!c->o->live)
		return;
	bp_http_interval_metrics(&iv, v);
	bp_live_interval(c->o->live, c->o->live_result, &iv);
	bp_interval_clear(&iv);
}

/* Close the interval [from, now): every worker's counts and latencies since the last. */
static void mark(struct client *c, uint64_t from, uint64_t now)
{
	struct bp_http_outcome *out = c->out;
	struct bp_http_counts counts = { 0 };
	struct bp_http_interval *iv;

	bp_conn_hists_reset(&c->iv_h);
	for (int w = 0; w < c->nworkers; w++)
		bp_http_stats_take(&c->stats[w], &counts, out->status, &c->iv_h);
	bp_txn_counts_add(&out->total.txn, &counts.txn);
	bp_conn_hists_merge(&c->total_h, &c->iv_h);
	if (now <= from || out->niv == BP_HTTP_MAX_INTERVALS || !c->o->interval_ns)
		return;
	iv = &out->iv[out->niv++];
	iv->start_s = (double)(from - c->start_ns) / 1e9;
	iv->end_s = (double)(now - c->start_ns) / 1e9;
	iv->c = counts;
	bp_histo_summarize(c->iv_h.latency, &iv->latency);
	emit_live(c, iv);
}

static void run_timed(struct client *c)
{
	const struct bp_http_client_opts *o = c->o;
	uint64_t now = bp_now_ns(), end = c->start_ns + o->time_ns, last = c->start_ns;

	while (now < end) {
		/* Marks on the grid from the start, so a late wake-up does not shift the rest. */
		uint64_t next = o->interval_ns ? c->start_ns + ((last - c->start_ns) /
					     o->interval_ns + 1) * o->interval_ns : end;
		uint64_t due = next < end ? next : end;

		if (due > now + TICK_NS)
			due = now + TICK_NS;
		bp_sleep_until_ns(due);
		if (bp_stop_requested()) {
			c->out->interrupted = true;
			break;
		}
		now = bp_now_ns();
		if (o->interval_ns && now >= next && next < end) {
			mark(c, last, now);
			last = now;
		}
	}
	now = bp_now_ns();
	if (now > end)
		now = end;
	for (int i = 0; i < c->nworkers; i++)
		bp_stream_stop(c->streams[i]);
	mark(c, last, now);
	c->stop_ns = now;
	c->out->duration_s = (double)(now - c->start_ns) / 1e9;
}

static void collect(struct client *c, const struct bp_cpu_times *cpu0, const uint64_t *w0)
{
	struct bp_http_outcome *out = c->out;
	struct bp_cpu_times cpu1;
	struct bp_cpu_usage u;

	bp_cpu_side_times(&cpu1);
	bp_cpu_usage_between(cpu0, &cpu1, &u);
	out->cpu_user_s = u.user_s;
	out->cpu_sys_s = u.sys_s;
	out->poll_max_us = (double)c->cfg.busy_poll_ns / 1e3;
	for (int i = 0; i < c->nworkers; i++) {
		const struct bp_http_worker *w = c->workers[i];
		uint64_t cpu = bp_stream_pool_worker_cpu_ns(c->pool, i) - w0[i];
		/* Polling is CPU spent instead of sleeping, not work the tester could not do
		 * faster: the busiest worker is judged without it. */
		uint64_t worked = cpu > w->polled_ns ? cpu - w->polled_ns : 0;
		double busy = out->duration_s > 0 ? (double)worked / 1e9 / out->duration_s : 0;

		out->polled_s += (double)w->polled_ns / 1e9;
		out->polls += w->polls;
		out->poll_hits += w->poll_hits;

		if (busy > out->busy_max)
			out->busy_max = busy;
		out->offered += bp_http_worker_due_by(c->workers[i], c->stop_ns);
		if (!out->tls[0])
			snprintf(out->tls, sizeof(out->tls), "%s", bp_http_worker_tls(c->workers[i]));
		for (int e = 0; e < BP_HTTP_NERR; e++)
			if (!out->first_error[e][0])
				memcpy(out->first_error[e], c->stats[i].first_msg[e],
				       sizeof(out->first_error[e]));
	}
	bp_histo_summarize(c->total_h.latency, &out->latency);
	bp_histo_summarize(c->total_h.connect, &out->connect);
	out->hists = c->total_h;  /* the outcome's now: cleanup frees none */
	c->total_h = (struct bp_conn_hists){ 0 };
	out->threads = c->nworkers;
}

static void cleanup(struct client *c)
{
	for (int i = 0; c->streams && i < c->nworkers; i++)
		bp_stream_release(c->streams[i]);
	if (c->pool)
		bp_stream_pool_free(c->pool);
	for (int i = 0; c->stats && i < c->nworkers; i++)
		bp_txn_stats_free(&c->stats[i]);
	free(c->stats);
	free(c->workers);
	free(c->streams);
	bp_conn_hists_free(&c->iv_h);
	bp_conn_hists_free(&c->total_h);
	free(c->req);
}

int bp_http_client_run(const struct bp_http_client_opts *o, struct bp_http_outcome *out,
		       char *err, size_t errlen)
{
	struct client c = { .o = o, .out = out, .err = err, .errlen = errlen };
	struct bp_cpu_times cpu0;
	uint64_t *w0 = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	out->iv = calloc(BP_HTTP_MAX_INTERVALS, sizeof(*out->iv));
	if (!out->iv || bp_conn_hists_init(&c.iv_h) || bp_conn_hists_init(&c.total_h)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = prepare(&c);
	/* --start-at: the workers connect and send from the instant on */
	if (!rc)
		rc = bp_start_at_wait_mark(out->start_at_ns = o->start_at_ns, &out->started_ns);
	if (rc)
		goto out;
	bp_cpu_side_times(&cpu0);
	rc = start_workers(&c);
	w0 = calloc((size_t)c.nworkers + 1, sizeof(*w0));
	if (!rc && !w0)
		rc = -ENOMEM;
	if (rc)
		goto out;
	for (int i = 0; i < c.nworkers; i++)
		w0[i] = bp_stream_pool_worker_cpu_ns(c.pool, i);
	run_timed(&c);
	collect(&c, &cpu0, w0);
out:
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	free(w0);
	cleanup(&c);
	return rc;
}

void bp_http_outcome_free(struct bp_http_outcome *out)
{
	free(out->iv);
	out->iv = NULL;
	bp_conn_hists_free(&out->hists);
	json_decref(out->path);
	out->path = NULL;
}
