/*
 * `boardperf mem`: memcpy and memset bandwidth on one core and on all cores at once, over
 * buffers well above the last-level cache, then random-access latency by pointer chase at
 * working sets from 4 KiB up, so that each cache level and DRAM show.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "board/memory.h"
#include "board/sysfs.h"
#include "core/cpuacct.h"
#include "core/signals.h"
#include "core/test.h"
#include "core/units.h"
#include "core/workers.h"
#include "mem/mem_bandwidth.h"
#include "mem/mem_cache.h"
#include "mem/mem_latency.h"
#include "mem/mem_metrics.h"
#include "mem/mem_report.h"
#include "result/result.h"

struct mem_params {
	uint64_t time_ns;
	uint64_t size;
	uint64_t max_size;
	const char *threads;
	bool no_latency;
	bool no_bandwidth;
};

static const struct bp_opt mem_opts[] = {
	{ 't', "time", BP_OPT_DURATION, offsetof(struct mem_params, time_ns), "S", "0.5",
	  0.01, 3600, NULL, "time each item: each operation, each working set" },
	{ 0, "size", BP_OPT_SIZE, offsetof(struct mem_params, size), "SIZE", NULL,
	  4096, 1099511627776.0, NULL,
	  "bandwidth buffer per worker, source and destination each "
	  "[default: max(64M, 8x last-level cache)]" },
	{ 0, "max-size", BP_OPT_SIZE, offsetof(struct mem_params, max_size), "SIZE", "64M",
	  4096, 68719476736.0, NULL, "largest latency working set (4K, 16K, 64K, ... up to it)" },
	{ 0, "threads", BP_OPT_STRING, offsetof(struct mem_params, threads), "N|all", "all", 0, 0,
	  NULL, "workers for the all-core figures, pinned one per core" },
	{ 0, "no-latency", BP_OPT_FLAG, offsetof(struct mem_params, no_latency), NULL, NULL,
	  0, 0, NULL, "skip the latency chase" },
	{ 0, "no-bandwidth", BP_OPT_FLAG, offsetof(struct mem_params, no_bandwidth), NULL, NULL,
	  0, 0, NULL, "skip memcpy and memset bandwidth" },
	BP_OPT_END,
};

/* What this machine makes of the parameters. */
struct mem_plan {
	struct bp_mem_cache_summary cache;
	int64_t avail;   /* bytes, -1 when unknown */
	int threads;
	uint64_t size;
	uint64_t sizes[BP_MEM_LAT_MAX_SIZES];
	int nsizes;
};

static int mem_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct mem_params *p = params;
	char buf[32];
	int threads;

	if (bp_check_no_positional(parsed, err, errlen))
		return -EINVAL;
	if (p->no_latency && p->no_bandwidth) {
		snprintf(err, errlen, "--no-latency with --no-bandwidth leaves nothing to measure");
		return -EINVAL;
	}
	if (bp_workers_parse_count("--threads", p->threads, bp_workers_available_cpus(),
				   &threads, err, errlen))
		return -EINVAL;
	/* A 32-bit board cannot map what it cannot address; say so before measuring. */
	if (p->size > SIZE_MAX / 2 || p->max_size > SIZE_MAX / 2) {
		snprintf(err, errlen, "--%s '%s': more than this 32-bit system can map",
			 p->size > SIZE_MAX / 2 ? "size" : "max-size",
			 bp_format_bytes(buf, sizeof(buf), (double)(p->size > SIZE_MAX / 2 ?
								    p->size : p->max_size)));
		return -EINVAL;
	}
	return 0;
}

/* need bytes fit in what the kernel says is available; -ENOMEM with a message if not. */
static int check_memory(const char *what, uint64_t need, int64_t avail, char *err,
			size_t errlen)
{
	char n[32], a[32];

	if (avail < 0 || need <= (uint64_t)avail)
		return 0;
	snprintf(err, errlen, "%s needs %s of memory, only %s available", what,
		 bp_format_bytes(n, sizeof(n), (double)need),
		 bp_format_bytes(a, sizeof(a), (double)avail));
	return -ENOMEM;
}

static int make_plan(const struct mem_params *p, struct mem_plan *pl, char *err,
		     size_t errlen)
{
	struct bp_memory_info mi;
	int rc;

	rc = bp_mem_cache_summary_read("/", &pl->cache);
	if (rc) {
		snprintf(err, errlen, "reading the cache sizes: out of memory");
		return rc;
	}
	pl->avail = -1;
	if (!bp_memory_read("/", &mi) && mi.available_bytes != BP_INT_UNKNOWN)
		pl->avail = mi.available_bytes;
	rc = bp_workers_parse_count("--threads", p->threads, bp_workers_available_cpus(),
				    &pl->threads, err, errlen);
	if (rc)
		return rc;
	pl->size = p->size ? p->size :
		   bp_mem_bw_auto_size(pl->cache.llc_size, pl->avail, 2u * (unsigned)pl->threads);
	pl->nsizes = bp_mem_lat_sizes(p->max_size, pl->cache.line_size, pl->sizes,
				      BP_MEM_LAT_MAX_SIZES);
	rc = 0;
	if (!p->no_bandwidth)
		rc = check_memory("the all-core bandwidth run (2 buffers per worker)",
				  2 * pl->size * (uint64_t)pl->threads, pl->avail, err, errlen);
	if (!rc && !p->no_latency)
		rc = check_memory("the latency chase", p->max_size, pl->avail, err, errlen);
	return rc;
}

/* The parameters as they took effect: automatic sizes and counts resolved. */
static void record_plan(struct bp_result *r, const struct mem_plan *pl)
{
	json_t *params = r->params;

	if (!json_is_object(params))
		return;
	json_object_set_new(params, "size", json_integer((json_int_t)pl->size));
	json_object_set_new(params, "threads", json_integer(pl->threads));
	json_object_set_new(params, "line_bytes", json_integer(pl->cache.line_size));
	json_object_set_new(params, "llc_bytes", pl->cache.llc_size ?
			    json_integer((json_int_t)pl->cache.llc_size) : json_null());
}

/* "buffer-fits-cache" when the buffers are small enough for the cache to serve a part. */
static int warn_small_buffer(struct bp_result *r, const struct mem_plan *pl)
{
	char size[32], llc[32];

	if (!pl->cache.llc_size || pl->size >= 4 * pl->cache.llc_size)
		return 0;
	return bp_result_add_warning(r, "buffer-fits-cache", "the %s buffers are under 4x the "
				     "%s last-level cache: the bandwidth is partly the cache's",
				     bp_format_bytes(size, sizeof(size), (double)pl->size),
				     bp_format_bytes(llc, sizeof(llc), (double)pl->cache.llc_size));
}

static int run_bandwidth(const struct mem_params *p, const struct mem_plan *pl,
			 struct bp_result *r, struct bp_mem_starved *st, char *err, size_t errlen)
{
	struct bp_mem_bw_config cfg = { .size = pl->size, .time_ns = p->time_ns,
					.nthreads = pl->threads };
	struct bp_mem_bw_figure one[BP_MEM_NOPS], all[BP_MEM_NOPS];
	/* With one worker the all-core run would repeat the one-core run: it is not made. */
	struct bp_mem_bw_figure *allp = pl->threads > 1 ? all : NULL;
	int rc = bp_mem_bw_run(&cfg, one, allp, err, errlen);

	if (!rc && (bp_mem_report_bandwidth(r, one, allp, st) || warn_small_buffer(r, pl))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

static int run_latency(const struct mem_params *p, const struct mem_plan *pl,
		       struct bp_result *r, struct bp_mem_starved *st, char *err, size_t errlen)
{
	struct bp_mem_lat_config cfg = { .sizes = pl->sizes, .nsizes = pl->nsizes,
					 .slot = pl->cache.line_size, .time_ns = p->time_ns };
	struct bp_mem_lat_figure fig[BP_MEM_LAT_MAX_SIZES];
	int rc = bp_mem_lat_run(&cfg, fig, err, errlen);

	if (!rc && bp_mem_report_latency(r, fig, pl->nsizes, st)) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	return rc;
}

static int mem_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct mem_params *p = params;
	struct mem_plan pl;
	struct bp_mem_starved st;
	struct bp_cpu_times c0;
	struct bp_sys_cpu s0;
	bool have_sys, have_cpu;
	int rc;

	(void)ctx;
	rc = make_plan(p, &pl, err, errlen);
	if (rc)
		return rc;
	record_plan(r, &pl);
	bp_mem_starved_init(&st);
	have_sys = !bp_sys_cpu_read("/proc/stat", &s0);
	have_cpu = !bp_cpu_process_times(&c0);
	if (!p->no_bandwidth)
		rc = run_bandwidth(p, &pl, r, &st, err, errlen);
	if (!rc && !p->no_latency && !bp_stop_requested())
		rc = run_latency(p, &pl, r, &st, err, errlen);
	/* the whole process over the whole run, and how busy the machine was meanwhile */
	if (have_cpu)
		bp_result_set_cpu(r, bp_cpu_local_since(&c0, have_sys ? &s0 : NULL));
	if (bp_mem_starved_report(&st, r) && !rc)
		rc = -ENOMEM;
	if (!rc && bp_stop_requested()) {
		/* the CLI makes it a warning when something was measured, else the error */
		snprintf(err, errlen, "stopped by signal %d before every item ran",
			 bp_stop_signal());
		rc = -EINTR;
	}
	return rc;
}

const struct bp_test bp_cmd_mem = {
	.name = "mem",
	.summary = "memory bandwidth (memcpy, memset; one core and all) and latency (4 KiB up)",
	.synopsis = "[-t S] [--size SIZE] [--max-size SIZE] [--threads N] [--no-latency] "
		    "[--no-bandwidth]",
	.opts = mem_opts,
	.params_size = sizeof(struct mem_params),
	.check = mem_check,
	.run = mem_run,
	.kind = &bp_kind_mem,
};
