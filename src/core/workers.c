#include "core/workers.h"

#include <stdint.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/starve.h"
#include "core/units.h"

struct bp_workers {
	pthread_barrier_t barrier;
	bp_worker_fn fn;
	/* The start gate: workers wait until every thread exists (go) or creation failed. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gate; /* 0 closed, 1 go, -1 abort */
};

int bp_workers_available_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? n : 1;
}

int bp_workers_parse_count(const char *flag, const char *text, int ncpus, int *out,
			   char *err, size_t errlen)
{
	int64_t n;

	if (!strcmp(text, "all")) {
		*out = ncpus;
		return 0;
	}
	if (bp_parse_int(text, &n) || n < 1 || n > BP_WORKERS_MAX) {
		snprintf(err, errlen, "%s '%s': expected a number from 1 to %d, or 'all'",
			 flag, text, BP_WORKERS_MAX);
		return -EINVAL;
	}
	*out = (int)n;
	return 0;
}

/* The i-th CPU (wrapping) of this process's affinity mask, or -1. */
static int nth_allowed_cpu(int i)
{
	cpu_set_t set;
	int n, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	n = CPU_COUNT(&set);
	if (n <= 0)
		return -1;
	i %= n;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && seen++ == i)
			return cpu;
	return -1;
}

/* Wait at the gate; true when the run goes ahead. */
static bool wait_gate(struct bp_workers *g)
{
	int gate;

	pthread_mutex_lock(&g->lock);
	while (!g->gate)
		pthread_cond_wait(&g->cond, &g->lock);
	gate = g->gate;
	pthread_mutex_unlock(&g->lock);
	return gate > 0;
}

static void open_gate(struct bp_workers *g, int state)
{
	pthread_mutex_lock(&g->lock);
	g->gate = state;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void *worker_main(void *p)
{
	struct bp_worker *w = p;

	if (!wait_gate(w->group))
		return NULL;
	if (w->cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(w->cpu, &one);
		/* Pinning can be refused (cgroup cpusets); the worker then floats, noted by cpu -1. */
		if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
			w->cpu = -1;
	}
	bp_worker_sync(w);
	w->rc = w->group->fn(w);
	bp_starve_thread_exit();
	return NULL;
}

void bp_worker_sync(struct bp_worker *w)
{
	pthread_barrier_wait(&w->group->barrier);
}

int bp_workers_run(int n, bool pin, bp_worker_fn fn, void *const *args,
		   char *err, size_t errlen)
{
	struct bp_workers group = { .fn = fn, .lock = PTHREAD_MUTEX_INITIALIZER,
				    .cond = PTHREAD_COND_INITIALIZER };
	struct bp_worker *ws = n > 0 ? calloc((size_t)n, sizeof(*ws)) : NULL;
	pthread_t *tids = n > 0 ? calloc((size_t)n, sizeof(*tids)) : NULL;
	int rc = 0, started;

	if (!ws || !tids) {
		snprintf(err, errlen, "cannot start %d workers: out of memory", n);
		rc = -ENOMEM;
		goto out;
	}
	pthread_barrier_init(&group.barrier, NULL, (unsigned)n);
	for (started = 0; started < n && !rc; started++) {
		ws[started] = (struct bp_worker){ .index = started, .group = &group,
						  .cpu = pin ? nth_allowed_cpu(started) : -1,
						  .arg = args ? args[started] : NULL };
		rc = -pthread_create(&tids[started], NULL, worker_main, &ws[started]);
	}
	if (rc) {
		started--; /* the last one was not created */
		snprintf(err, errlen, "starting worker %d of %d: %s", started + 1, n, strerror(-rc));
	}
	open_gate(&group, rc ? -1 : 1);
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&group.barrier);
	for (int i = 0; i < n && !rc; i++)
		if (ws[i].rc) {
			rc = ws[i].rc;
			snprintf(err, errlen, "%s", ws[i].err[0] ? ws[i].err : strerror(-rc));
		}
out:
	free(ws);
	free(tids);
	return rc;
}
