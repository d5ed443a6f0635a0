#include "disk/disk_run.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/signals.h"
#include "core/workers.h"
#include "stats/histogram.h"

/* The progress bar moves this often; interval boundaries are kept exactly besides. */
#define PROGRESS_NS (100 * BP_NS_PER_MS)

struct monitor {
	const struct bp_disk_run_config *cfg;
	struct bp_disk_worker *workers;
	uint32_t n;
	_Atomic bool done;
	uint64_t last_ns;                   /* end of the last interval, absolute */
	uint64_t last[BP_DISK_NCOUNTS];     /* counts at that time */
	struct bp_disk_interval *iv;
	size_t niv, cap;
	int rc;
};

static void sample(const struct monitor *m, uint64_t *sum)
{
	memset(sum, 0, sizeof(uint64_t) * BP_DISK_NCOUNTS);
	for (uint32_t i = 0; i < m->n; i++)
		for (int c = 0; c < BP_DISK_NCOUNTS; c++)
			sum[c] += atomic_load_explicit(&m->workers[i].live[c], memory_order_relaxed);
}

/* Closes the interval that ends at now with the counts seen then. */
static int close_interval(struct monitor *m, uint64_t start, uint64_t now, const uint64_t *sum)
{
	struct bp_disk_interval *iv;

	if (m->niv == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		void *p = realloc(m->iv, cap * sizeof(*m->iv));

		if (!p)
			return -ENOMEM;
		m->iv = p;
		m->cap = cap;
	}
	iv = &m->iv[m->niv++];
	iv->start_ns = m->last_ns - start;
	iv->end_ns = now - start;
	for (int c = 0; c < BP_DISK_NCOUNTS; c++)
		iv->count[c] = sum[c] - m->last[c];
	memcpy(m->last, sum, sizeof(m->last));
	m->last_ns = now;
	if (m->cfg->interval)
		m->cfg->interval(m->cfg->progress_arg, iv);
	return 0;
}

static void report_progress(const struct monitor *m, uint64_t start, uint64_t now,
			    const uint64_t *sum)
{
	const struct bp_disk_shared *sh = m->cfg->sh;
	double done = 0;

	if (sh->time_ns)
		done = (double)(now - start) / (double)sh->time_ns;
	else if (sh->requests)
		done = (double)(sum[BP_DISK_N_READS] + sum[BP_DISK_N_WRITES]) /
		       (double)sh->requests;
	m->cfg->progress(m->cfg->progress_arg, done > 1 ? 1 : done,
			 (double)(now - start) / 1e9, sum);
}

static void *monitor_main(void *arg)
{
	struct monitor *m = arg;
	uint64_t start, interval = m->cfg->interval_ns, next;
	uint64_t sum[BP_DISK_NCOUNTS];

	while (!(start = atomic_load(&m->cfg->sh->start_ns)) && !atomic_load(&m->done))
		bp_sleep_until_ns(bp_now_ns() + BP_NS_PER_MS);
	m->last_ns = start;
	next = start + interval;
	while (start && !atomic_load(&m->done) && !m->rc) {
		uint64_t wake = bp_now_ns() + PROGRESS_NS, now;

		if (interval && next < wake)
			wake = next;
		bp_sleep_until_ns(wake);
		if (atomic_load(&m->done))
			break;
		now = bp_now_ns();
		sample(m, sum);
		if (interval && now >= next) {
			m->rc = close_interval(m, start, now, sum);
			/* a late wake-up skips boundaries rather than making empty intervals */
			while (next <= now)
				next += interval;
		}
		if (m->cfg->progress)
			report_progress(m, start, now, sum);
	}
	return NULL;
}

static int worker_fn(struct bp_worker *bw)
{
	struct bp_disk_worker *w = bw->arg;
	const struct bp_disk_engine *e = w->sh->engine;
	int rc = e->init(w);

	if (rc)
		atomic_store(&w->sh->abort, true);
	/* all rings and buffers set up before the first request, so all start together */
	bp_worker_sync(bw);
	if (!rc && !atomic_load(&w->sh->abort))
		rc = bp_disk_worker_run(w);
	e->exit(w);
	if (rc)
		snprintf(bw->err, sizeof(bw->err), "%s", w->err);
	return rc;
}

static void collect(struct bp_disk_worker *ws, uint32_t n, uint64_t start,
		    struct bp_disk_run_result *res)
{
	uint64_t end = start;

	for (uint32_t i = 0; i < n; i++) {
		for (int c = 0; c < BP_DISK_NCOUNTS; c++)
			res->count[c] += ws[i].count[c];
		for (int op = 0; op < 3; op++)
			bp_histo_merge(res->lat[op], ws[i].lat[op]);
		if (ws[i].end_ns > end)
			end = ws[i].end_ns;
	}
	res->elapsed_ns = end - start;
	snprintf(res->engine_note, sizeof(res->engine_note), "%s", ws[0].engine_note);
}

/*
 * The stretch after the last interval line: the end of the run and the final sync. A line
 * sampled after the last worker ended (but before the monitor heard of it) ends at the end.
 */
static int close_last(struct monitor *m, uint64_t start, const struct bp_disk_run_result *res)
{
	uint64_t end = start + res->elapsed_ns;

	if (!m->cfg->interval_ns || !start)
		return 0;
	if (end <= m->last_ns) {
		if (m->niv)
			m->iv[m->niv - 1].end_ns = res->elapsed_ns;
		return 0;
	}
	return close_interval(m, start, end, res->count);
}

static int start_workers(struct bp_disk_worker *ws, uint32_t n, struct monitor *m,
			 char *err, size_t errlen)
{
	void **args = calloc(n, sizeof(*args));
	pthread_t tid;
	int rc, mrc;

	if (!args) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		args[i] = &ws[i];
	mrc = pthread_create(&tid, NULL, monitor_main, m);
	rc = bp_workers_run((int)n, false, worker_fn, args, err, errlen);
	atomic_store(&m->done, true);
	if (!mrc)
		pthread_join(tid, NULL);
	free(args);
	return rc;
}

int bp_disk_run(const struct bp_disk_run_config *cfg, struct bp_disk_run_result *res,
		char *err, size_t errlen)
{
	struct bp_disk_shared *sh = cfg->sh;
	uint32_t n = sh->nworkers, made = 0;
	struct bp_disk_worker *ws = calloc(n, sizeof(*ws));
	struct monitor m = { .cfg = cfg, .workers = ws, .n = n };
	uint64_t start;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	for (int op = 0; op < 3; op++)
		if (!(res->lat[op] = bp_histo_new()))
			rc = -ENOMEM;
	if (!ws || rc) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	atomic_store(&sh->start_ns, 0);
	atomic_store(&sh->abort, false);
	for (; made < n && !rc; made++)
		rc = bp_disk_worker_init(&ws[made], sh, made, sh->wl->layout.block);
	if (rc) {
		snprintf(err, errlen, "%s", ws[made - 1].err);
		goto out;
	}
	rc = start_workers(ws, n, &m, err, errlen);
	start = atomic_load(&sh->start_ns);
	res->workers_started = start ? (int)n : 0;
	if (start)
		collect(ws, n, start, res);
	if (!m.rc)
		m.rc = close_last(&m, start, res);
	if (m.rc && !rc) {
		snprintf(err, errlen, "keeping the interval lines: out of memory");
		rc = m.rc;
	}
	res->intervals = m.iv;
	res->nintervals = m.niv;
	if (!rc && bp_stop_requested()) {
		snprintf(err, errlen, "stopped by signal %d: the figures measured so far are shown",
			 bp_stop_signal());
		rc = -EINTR;
	}
out:
	for (uint32_t i = 0; i < made; i++)
		bp_disk_worker_free(&ws[i]);
	free(ws);
	return rc;
}

void bp_disk_run_result_free(struct bp_disk_run_result *res)
{
	for (int op = 0; op < 3; op++)
		bp_histo_free(res->lat[op]);
	free(res->intervals);
	memset(res, 0, sizeof(*res));
}
