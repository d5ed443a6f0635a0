#include "mem/mem_latency.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/cpuacct.h"
#include "core/signals.h"
#include "core/workers.h"
#include "mem/mem_buffer.h"
#include "mem/mem_samples.h"

/*
 * Loads per sample grow until a sample takes this long: long enough that reading the
 * clock is lost in it, short enough that a timer tick spoils only a few of many samples.
 */
#define SAMPLE_MIN_NS (200 * BP_NS_PER_US)
#define FIRST_LOADS 4096

/* The same cycles on every run, so two runs on one board chase the same paths. */
#define CHASE_SEED 0x6d656d6c6174ULL

uint64_t bp_mem_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void bp_mem_chase_build(void *buf, size_t nslots, size_t slot, uint64_t seed)
{
	char *base = buf;

	/* Start from the identity (each slot points to itself), then swap as Sattolo does. */
	for (size_t i = 0; i < nslots; i++)
		*(void **)(base + i * slot) = base + i * slot;
	for (size_t i = nslots; i-- > 1;) {
		/* j < i, never j == i: that is what makes it one cycle. The modulo bias of a
		 * 64-bit draw over at most 2^32 slots is below 2^-32, far under any effect. */
		size_t j = (size_t)(bp_mem_rand(&seed) % i);
		void **a = (void **)(base + i * slot), **b = (void **)(base + j * slot);
		void *t = *a;

		*a = *b;
		*b = t;
	}
}

#define LOAD1 p = *(void **)p;
#define LOAD4 LOAD1 LOAD1 LOAD1 LOAD1
#define LOAD16 LOAD4 LOAD4 LOAD4 LOAD4

void *bp_mem_chase(void *p, uint64_t n)
{
	/* Unrolled so the loop's own counter hides in the shadow of the loads. */
	for (uint64_t i = 0; i < n; i += 16) {
		LOAD16
	}
	return p;
}

int bp_mem_lat_sizes(uint64_t max, size_t slot, uint64_t *sizes, int cap)
{
	int n = 0;
	uint64_t s;

	for (s = BP_MEM_LAT_MIN_SIZE; s <= max && n < cap; s *= 4) {
		sizes[n++] = s;
		if (s > UINT64_MAX / 4)
			break;
	}
	if (n < cap && max >= BP_MEM_LAT_MIN_SIZE && slot && max % slot == 0 &&
	    (n == 0 || sizes[n - 1] != max))
		sizes[n++] = max;
	return n;
}

void bp_mem_size_name(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%s", bytes, unit[u]);
}

/* The sink the last pointer goes to, so that no chase is optimised away. */
static void *volatile chase_sink;

/*
 * Warm-up: one round of the cycle (every line into whichever cache holds it) or a fifth
 * of the timed span, whichever ends first, while the loads per sample are found.
 */
static void *warm_up(void *p, size_t nslots, uint64_t time_ns, uint64_t *loads)
{
	uint64_t start = bp_now_ns(), done = 0, t0, dt;

	*loads = FIRST_LOADS;
	for (;;) {
		t0 = bp_now_ns();
		p = bp_mem_chase(p, *loads);
		dt = bp_now_ns() - t0;
		done += *loads;
		if (dt < SAMPLE_MIN_NS && *loads < (UINT64_C(1) << 40))
			*loads *= 2;
		else if (done >= nslots || t0 + dt - start >= time_ns / 5)
			break;
		if (bp_stop_requested())
			break;
	}
	return p;
}

static void measure_one(void *buf, const struct bp_mem_lat_config *cfg,
			struct bp_mem_lat_figure *f)
{
	size_t nslots = (size_t)(f->size / cfg->slot);
	struct bp_mem_samples s = { 0 };
	struct bp_cpu_times c0, c1;
	struct bp_cpu_usage u;
	uint64_t loads, t0, t1, deadline;
	void *p = buf;
	bool have_cpu;

	bp_mem_chase_build(buf, nslots, cfg->slot, CHASE_SEED ^ f->size);
	p = warm_up(p, nslots, cfg->time_ns, &loads);
	have_cpu = !bp_cpu_thread_times(&c0);
	deadline = bp_now_ns() + cfg->time_ns;
	while (!bp_stop_requested()) {
		t0 = bp_now_ns();
		p = bp_mem_chase(p, loads);
		t1 = bp_now_ns();
		f->loads += loads;
		if (bp_mem_samples_push(&s, (double)(t1 - t0) / (double)loads) || t1 >= deadline)
			break;
	}
	chase_sink = p;
	f->ns = bp_mem_samples_median(&s);
	if (have_cpu && !bp_cpu_thread_times(&c1)) {
		bp_cpu_usage_between(&c0, &c1, &u);
		f->busy_share = u.busy_share;
	}
	bp_mem_samples_free(&s);
}

struct lat_arg {
	const struct bp_mem_lat_config *cfg;
	struct bp_mem_lat_figure *fig;
};

static int lat_worker(struct bp_worker *w)
{
	const struct lat_arg *a = w->arg;
	uint64_t max = 0;
	void *buf;
	int rc;

	for (int i = 0; i < a->cfg->nsizes; i++)
		max = a->cfg->sizes[i] > max ? a->cfg->sizes[i] : max;
	/* One mapping for all working sets: each uses its first bytes. */
	rc = bp_mem_buffer_map((size_t)max, 0, &buf, w->err, sizeof(w->err));
	if (rc)
		return rc;
	for (int i = 0; i < a->cfg->nsizes && !bp_stop_requested(); i++) {
		a->fig[i].cpu = w->cpu;
		measure_one(buf, a->cfg, &a->fig[i]);
	}
	bp_mem_buffer_unmap(buf, (size_t)max);
	return 0;
}

int bp_mem_lat_run(const struct bp_mem_lat_config *cfg, struct bp_mem_lat_figure *fig,
		   char *err, size_t errlen)
{
	struct lat_arg a = { .cfg = cfg, .fig = fig };
	void *argv[1] = { &a };

	for (int i = 0; i < cfg->nsizes; i++)
		fig[i] = (struct bp_mem_lat_figure){ .size = cfg->sizes[i], .ns = NAN,
						     .busy_share = NAN, .cpu = -1 };
	if (cfg->slot < sizeof(void *) || cfg->slot % sizeof(void *)) {
		snprintf(err, errlen, "a %zu-byte cache line cannot hold a pointer chase",
			 cfg->slot);
		return -EINVAL;
	}
	/* Unpinned: the scheduler keeps one busy thread on one core, and picks a free one. */
	return bp_workers_run(1, false, lat_worker, argv, err, errlen);
}
