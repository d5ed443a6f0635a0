#include "mem/mem_bandwidth.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/cpuacct.h"
#include "core/signals.h"
#include "core/workers.h"
#include "mem/mem_buffer.h"

#define MIB (1ULL << 20)

/*
 * The clock is read after at least this much work: its cost (tens of ns, more in a VM)
 * stays below a thousandth even when --size is small enough for a pass to take microseconds.
 */
#define SAMPLE_MIN_NS BP_NS_PER_MS

/*
 * memset writes this byte rather than zero: arm64 glibc zeroes with DC ZVA, a cache
 * instruction with its own speed, while a copy's destination sees ordinary stores.
 */
#define SET_BYTE 0xa5

const char *bp_mem_op_name(enum bp_mem_op op)
{
	return op == BP_MEM_COPY ? "memcpy" : op == BP_MEM_SET ? "memset" : "?";
}

uint64_t bp_mem_bw_auto_size(uint64_t llc, int64_t avail, unsigned nbuffers)
{
	uint64_t size = BP_MEM_BW_MIN_AUTO;

	if (llc > size / BP_MEM_BW_LLC_FACTOR)
		size = llc * BP_MEM_BW_LLC_FACTOR;
	if (avail >= 0 && nbuffers > 0 && size > (uint64_t)avail / 4 / nbuffers)
		size = (uint64_t)avail / 4 / nbuffers;
	size -= size % MIB;
	return size < MIB ? MIB : size;
}

double bp_mem_bw_rate(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e9 / (double)ns : NAN;
}

double bp_mem_bw_scaling(double all, double one, int n)
{
	if (n < 1 || !isfinite(all) || !isfinite(one) || one <= 0)
		return NAN;
	return all / ((double)n * one) * 100;
}

void bp_mem_bw_merge(const struct bp_mem_bw_worker *w, int n, struct bp_mem_bw_figure *fig)
{
	fig->rate = n > 0 ? 0 : NAN;
	fig->workers = n;
	fig->min_busy_share = NAN;
	fig->min_worker = -1;
	fig->min_cpu = -1;
	for (int i = 0; i < n; i++) {
		fig->rate += isfinite(w[i].rate) ? w[i].rate : NAN;
		if (isnan(w[i].busy_share))
			continue;
		if (isnan(fig->min_busy_share) || w[i].busy_share < fig->min_busy_share) {
			fig->min_busy_share = w[i].busy_share;
			fig->min_worker = i;
			fig->min_cpu = w[i].cpu;
		}
	}
}

/* What all workers of one run share; `failed` is written before a barrier, read after. */
struct bw_shared {
	size_t size;
	uint64_t time_ns;
	atomic_int failed;
};

struct bw_arg {
	struct bw_shared *sh;
	void *src, *dst;
	struct bp_mem_bw_worker out[BP_MEM_NOPS];
};

static void do_pass(enum bp_mem_op op, void *dst, const void *src, size_t size)
{
	if (op == BP_MEM_COPY)
		memcpy(dst, src, size);
	else
		memset(dst, SET_BYTE, size);
	/* dst is never read before it is unmapped: this tells the compiler it is. */
	__asm__ __volatile__("" : : "r"(dst) : "memory");
}

/*
 * Warm-up: TLB and caches, and time for a board's ondemand governor to raise the clock;
 * at least one pass and a tenth of the timed span. Returns passes per clock read.
 */
static uint64_t warm_up(enum bp_mem_op op, const struct bw_arg *a)
{
	uint64_t start = bp_now_ns(), t0, pass_ns;

	do {
		t0 = bp_now_ns();
		do_pass(op, a->dst, a->src, a->sh->size);
		pass_ns = bp_now_ns() - t0;
	} while (t0 + pass_ns - start < a->sh->time_ns / 10 && !bp_stop_requested());
	return pass_ns >= SAMPLE_MIN_NS ? 1 : SAMPLE_MIN_NS / (pass_ns ? pass_ns : 1) + 1;
}

/*
 * Passes until the deadline; bytes over the whole span into out, with the CPU share. Not
 * a median of samples: the all-core figure must be what the workers moved while running
 * at the same time, and a worker that lost its core to another (or to a second worker on
 * an oversubscribed CPU) must show as slower, not have its fast moments picked out.
 */
static void time_op(enum bp_mem_op op, const struct bw_arg *a, uint64_t reps,
		    struct bp_mem_bw_worker *out)
{
	struct bp_cpu_times c0, c1;
	struct bp_cpu_usage u;
	uint64_t start, end, bytes = 0, deadline;
	bool have_cpu = !bp_cpu_thread_times(&c0);

	start = bp_now_ns();
	deadline = start + a->sh->time_ns;
	end = start;
	while (end < deadline && !bp_stop_requested()) {
		for (uint64_t i = 0; i < reps; i++)
			do_pass(op, a->dst, a->src, a->sh->size);
		bytes += reps * a->sh->size;
		end = bp_now_ns();
	}
	out->rate = bytes ? bp_mem_bw_rate(bytes, end - start) : NAN;
	out->busy_share = NAN;
	if (have_cpu && !bp_cpu_thread_times(&c1)) {
		bp_cpu_usage_between(&c0, &c1, &u);
		out->busy_share = u.busy_share;
	}
}

static int bw_worker(struct bp_worker *w)
{
	struct bw_arg *a = w->arg;
	struct bw_shared *sh = a->sh;
	int rc = 0;

	/* Worker 0 keeps its buffers from the one-core run: same CPU, pages already there. */
	if (!a->src)
		rc = bp_mem_buffer_map(sh->size, 0x5a, &a->src, w->err, sizeof(w->err));
	if (!rc && !a->dst)
		rc = bp_mem_buffer_map(sh->size, 0, &a->dst, w->err, sizeof(w->err));
	if (rc)
		atomic_store(&sh->failed, 1);
	/* Every worker holds its buffers (or one failed): now they start together. */
	bp_worker_sync(w);
	for (int op = 0; op < BP_MEM_NOPS && !atomic_load(&sh->failed); op++) {
		uint64_t reps = warm_up(op, a);

		a->out[op].cpu = w->cpu;
		bp_worker_sync(w);
		time_op(op, a, reps, &a->out[op]);
		bp_worker_sync(w);
	}
	return rc;
}

/* One run on n workers (args[0..n)), merged into fig. */
static int run_workers(struct bw_arg *args, void **argv, int n, struct bp_mem_bw_figure *fig,
		       char *err, size_t errlen)
{
	struct bp_mem_bw_worker *ws = calloc((size_t)n, sizeof(*ws));
	int rc;

	if (!ws) {
		snprintf(err, errlen, "cannot set up %d memory workers: out of memory", n);
		return -ENOMEM;
	}
	atomic_store(&args[0].sh->failed, 0);
	/*
	 * One worker floats (pinned, it would wait behind any other process on its core while
	 * another core idles); several are pinned one per core so that all cores work at once.
	 */
	rc = bp_workers_run(n, n > 1, bw_worker, argv, err, errlen);
	for (int op = 0; !rc && op < BP_MEM_NOPS; op++) {
		for (int i = 0; i < n; i++)
			ws[i] = args[i].out[op];
		bp_mem_bw_merge(ws, n, &fig[op]);
	}
	free(ws);
	return rc;
}

static void unfinished(struct bp_mem_bw_figure *fig, int n)
{
	for (int op = 0; op < BP_MEM_NOPS; op++)
		fig[op] = (struct bp_mem_bw_figure){ .rate = NAN, .workers = n,
						     .min_busy_share = NAN, .min_worker = -1,
						     .min_cpu = -1 };
}

int bp_mem_bw_run(const struct bp_mem_bw_config *cfg, struct bp_mem_bw_figure *one,
		  struct bp_mem_bw_figure *all, char *err, size_t errlen)
{
	struct bw_shared sh = { .size = (size_t)cfg->size, .time_ns = cfg->time_ns };
	int n = cfg->nthreads;
	struct bw_arg *args = n > 0 ? calloc((size_t)n, sizeof(*args)) : NULL;
	void **argv = n > 0 ? calloc((size_t)n, sizeof(*argv)) : NULL;
	int rc = -ENOMEM;

	atomic_init(&sh.failed, 0);
	unfinished(one, 1);
	if (all)
		unfinished(all, n);
	if (!args || !argv) {
		snprintf(err, errlen, "cannot set up %d memory workers: out of memory", n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		args[i].sh = &sh;
		argv[i] = &args[i];
	}
	rc = run_workers(args, argv, 1, one, err, errlen);
	if (!rc && all && !bp_stop_requested())
		rc = run_workers(args, argv, n, all, err, errlen);
	for (int i = 0; args && i < n; i++) {
		bp_mem_buffer_unmap(args[i].src, sh.size);
		bp_mem_buffer_unmap(args[i].dst, sh.size);
	}
out:
	free(args);
	free(argv);
	return rc;
}
