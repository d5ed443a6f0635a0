/*
 * `boardperf disk`: storage I/O as sysbench fileio measures it (same modes, defaults and
 * meanings, so that published figures compare), with separate read, write and fsync
 * latency, an io_uring engine and O_DIRECT, and the device behind the path named in the
 * result, with warnings when the page cache, the bus or the CPU governor explain a
 * figure better than the medium does.
 *
 * The order of a run: plan (usage errors), describe the device, make our folder and
 * files, run, report, remove our files. The removal happens on every path out, also after
 * a failure or a stop signal, and what was measured is still reported.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board/blockdev.h"
#include "board/memory.h"
#include "board/sysfs.h"
#include "core/clock.h"
#include "core/cpuacct.h"
#include "core/log.h"
#include "core/signals.h"
#include "core/test.h"
#include "core/units.h"
#include "disk/disk_device.h"
#include "disk/disk_files.h"
#include "disk/disk_metrics.h"
#include "disk/disk_plan.h"
#include "disk/disk_progress.h"
#include "disk/disk_report.h"
#include "disk/disk_run.h"
#include "disk/disk_stale.h"
#include "result/result.h"

static const char *const mode_choices[] = {
	"seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw", NULL,
};
static const char *const sync_call_choices[] = { "fsync", "fdatasync", NULL };
static const char *const scope_choices[] = { "all", "written", NULL };
static const char *const engine_choices[] = { "sync", "io_uring", NULL };

#define P(field) offsetof(struct bp_disk_params, field)

/* Defaults are sysbench 1.0's (--file-num 128, --file-total-size 2G, ...). */
static const struct bp_opt disk_opts[] = {
	{ 'd', "dir", BP_OPT_STRING, P(dir), "PATH", NULL, 0, 0, NULL,
	  "directory to test in: a folder of its own is made there and removed after" },
	{ 0, "mode", BP_OPT_CHOICE, P(mode), "MODE", "rndrw", 0, 0, mode_choices,
	  "sysbench's --file-test-mode" },
	{ 0, "files", BP_OPT_INT, P(files), "N", "128", 1, 65536, NULL, "files in the set" },
	{ 0, "size", BP_OPT_SIZE, P(size), "SIZE", "2G", 4096, 1125899906842624.0, NULL,
	  "total size of the files" },
	{ 0, "block", BP_OPT_SIZE, P(block), "SIZE", "16K", 512, 67108864, NULL,
	  "bytes per request" },
	{ 0, "rw-ratio", BP_OPT_NUMBER, P(rw_ratio), "R", "1.5", 0, 1e9, NULL,
	  "reads per write in rndrw" },
	{ 0, "fsync-freq", BP_OPT_INT, P(fsync_freq), "N", "100", 0, 1e9, NULL,
	  "a sync round after every N requests (0: none)" },
	{ 0, "no-fsync-end", BP_OPT_FLAG, P(no_fsync_end), NULL, NULL, 0, 0, NULL,
	  "no final sync round (sysbench --file-fsync-end=off)" },
	{ 0, "fsync-mode", BP_OPT_CHOICE, P(fsync_mode), "CALL", "fsync", 0, 0,
	  sync_call_choices, "the call that syncs a file" },
	{ 0, "fsync-scope", BP_OPT_CHOICE, P(fsync_scope), "WHICH", "all", 0, 0, scope_choices,
	  "a round syncs every file (as sysbench) or only the files written since" },
	{ 0, "engine", BP_OPT_CHOICE, P(engine), "NAME", "sync", 0, 0, engine_choices,
	  "pread/pwrite/fsync one at a time, or io_uring with --depth in flight" },
	{ 0, "depth", BP_OPT_INT, P(depth), "N", "1", 1, 4096, NULL,
	  "requests in flight per thread (io_uring)" },
	{ 0, "direct", BP_OPT_FLAG, P(direct), NULL, NULL, 0, 0, NULL,
	  "O_DIRECT: bypass the page cache (aligned buffers)" },
	{ 't', "time", BP_OPT_DURATION, P(time_ns), "S", "10", 0, 31536000, NULL,
	  "run time (0: until --requests)" },
	{ 0, "requests", BP_OPT_INT, P(requests), "N", "0", 0, 1e15, NULL,
	  "stop after N reads and writes, all threads together (0: no limit)" },
	{ 0, "threads", BP_OPT_INT, P(threads), "N", "1", 1, 1024, NULL, "worker threads" },
	{ 'i', "interval", BP_OPT_DURATION, P(interval_ns), "S", "1", 0, 3600, NULL,
	  "seconds between interval lines (0: none)" },
	{ 0, "clean", BP_OPT_FLAG, P(clean), NULL, NULL, 0, 0, NULL,
	  "first remove the boardperf-disk.* folders killed runs left in PATH (only those with "
	  "boardperf's marker that no run is using, and in them only the files the marker "
	  "proves boardperf made)" },
	BP_OPT_END,
};

/* --size not given: sysbench's, except on flash media (bp_disk_default_size) */
static void size_for_device(struct bp_disk_params *p)
{
	struct bp_blockdev_info dev;
	uint64_t size;

	if (!p->dir || bp_blockdev_for_path("/", p->dir, &dev))
		return;
	size = bp_disk_default_size(dev.bus, p->size);
	p->size_for_flash = size != p->size;
	p->size = size;
}

static int disk_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct bp_disk_params *p = params;
	struct bp_disk_plan pl;
	int rc = bp_check_no_positional(parsed, err, errlen);

	if (!rc && !bp_parsed_given(parsed, "size"))
		size_for_device(p);
	if (!rc)
		rc = bp_disk_plan_make(p, &pl, err, errlen);
	if (!rc)
		rc = bp_disk_plan_check_dir(p, &pl, err, errlen);
	return rc;
}

/* What the run needs besides the parameters; torn down in one place. */
struct disk_session {
	const struct bp_disk_params *p;
	struct bp_disk_plan plan;
	struct bp_blockdev_info dev;
	struct bp_disk_files files;
	struct bp_disk_progress bar;
	struct bp_disk_run_result res;
	double cached_share;
	struct bp_live *live;           /* interval lines as they end (NULL: none) */
	const struct bp_result *r;      /* the result they belong to */
};

static void show_prepare(void *arg, uint64_t done, uint64_t total)
{
	struct disk_session *s = arg;
	char a[32], b[32], detail[80];

	if (!s->bar.on)
		return; /* called once per block written: nothing to format for nobody */
	snprintf(detail, sizeof(detail), "%s of %s", bp_format_bytes(a, sizeof(a), (double)done),
		 bp_format_bytes(b, sizeof(b), (double)total));
	bp_disk_progress_show(&s->bar, "prepare", total ? (double)done / (double)total : 1,
			      detail);
}

static void show_run(void *arg, double done, double elapsed_s, const uint64_t *counts)
{
	struct disk_session *s = arg;
	char detail[96];

	snprintf(detail, sizeof(detail), "%.1f s  %llu reads  %llu writes  %llu fsyncs",
		 elapsed_s, (unsigned long long)counts[BP_DISK_N_READS],
		 (unsigned long long)counts[BP_DISK_N_WRITES],
		 (unsigned long long)counts[BP_DISK_N_SYNCS]);
	bp_disk_progress_show(&s->bar, bp_disk_mode_name(s->plan.wl.mode), done, detail);
}

static void show_interval(void *arg, const struct bp_disk_interval *d)
{
	struct disk_session *s = arg;
	struct bp_interval iv = { 0 };

	if (!s->live)
		return;
	if (!bp_disk_interval_metrics(&iv, d, bp_disk_mode_reads(s->plan.wl.mode),
				      bp_disk_mode_writes(s->plan.wl.mode)))
		bp_disk_progress_interval(&s->bar, s->live, s->r, &iv);
	bp_interval_clear(&iv);
}

/* The effective parameters the option table does not know. */
static void record_plan(struct bp_result *r, const struct disk_session *s)
{
	json_t *o = r->params;

	if (!json_is_object(o))
		return;
	json_object_set_new(o, "file_size", json_integer((json_int_t)s->plan.wl.layout.file_size));
	json_object_set_new(o, "total_size", json_integer((json_int_t)s->plan.total));
	if (s->files.name[0])
		json_object_set_new(o, "folder", json_string(s->files.path));
}

static void record_run(struct bp_result *r, const struct disk_session *s)
{
	json_t *o = r->params;

	if (!json_is_object(o))
		return;
	json_object_set_new(o, "cached_percent", isfinite(s->cached_share) ?
			    json_real(s->cached_share * 100) : json_null());
	if (s->res.engine_note[0])
		json_object_set_new(o, "engine_features", json_string(s->res.engine_note));
}

/* A folder an earlier run left: named (stale-files), or as --clean asked, removed. */
static void on_stale(void *arg, const struct bp_disk_stale *st)
{
	struct bp_result *r = arg;
	json_t *cleaned = json_object_get(r->params, "cleaned");
	char size[32];

	bp_format_bytes(size, sizeof(size), (double)st->bytes);
	if (!st->tried && !st->others) {
		bp_result_add_warning(r, "stale-files", "%s (%s) was left by a disk run that did "
				      "not end (killed?); --clean removes it", st->path, size);
	} else if (!st->tried) {
		bp_result_add_warning(r, "stale-files", "%s (%s in %u files boardperf made) was "
				      "left by a disk run that did not end (killed?); --clean "
				      "removes those files, and leaves the %u entr%s it did not make "
				      "('%s': %s), and so the folder", st->path, size, st->files,
				      st->others, st->others == 1 ? "y" : "ies", st->other, st->why);
	} else if (st->rc) {
		bp_result_add_warning(r, "cleanup-failed", "%s", st->message);
	} else {
		bp_info("removed %s (%s), left by an earlier run", st->path, size);
		if (json_is_array(cleaned))
			json_array_append_new(cleaned, json_string(st->path));
	}
}

/* Before our own folder exists, so that it is never among them. */
static void find_stale(struct bp_result *r, const struct bp_disk_params *p)
{
	char err[256];

	if (p->clean && json_is_object(r->params))
		json_object_set_new(r->params, "cleaned", json_array());
	if (bp_disk_stale_scan(p->dir, p->clean, on_stale, r, err, sizeof(err)) < 0)
		bp_warn("%s", err);  /* the run itself then fails with the reason */
}

static int prepare(struct disk_session *s, char *err, size_t errlen)
{
	const struct bp_disk_params *p = s->p;
	int rc = bp_disk_files_init(&s->files, p->dir, s->plan.wl.layout.nfiles, err, errlen);

	if (!rc)
		rc = bp_disk_files_prepare(&s->files, &s->plan.wl.layout,
					   s->plan.wl.mode != BP_DISK_SEQWR, show_prepare, s,
					   err, errlen);
	bp_disk_progress_clear(&s->bar);
	if (!rc)
		rc = bp_disk_files_open(&s->files, p->direct, err, errlen);
	if (!rc && bp_stop_requested()) {
		snprintf(err, errlen, "stopped by signal %d before the run", bp_stop_signal());
		rc = -EINTR;
	}
	return rc;
}

static int measure(struct disk_session *s, char *err, size_t errlen)
{
	const struct bp_disk_params *p = s->p;
	struct bp_disk_shared sh = {
		.wl = &s->plan.wl,
		.engine = p->engine == BP_DISK_ENGINE_URING ? &bp_disk_engine_uring :
							      &bp_disk_engine_sync,
		.fds = s->files.fds,
		.depth = s->plan.depth,
		.datasync = p->fsync_mode == BP_DISK_CALL_FDATASYNC,
		.direct = p->direct,
		.time_ns = p->time_ns,
		.requests = (uint64_t)p->requests,
		.nworkers = s->plan.nworkers,
		.seed = bp_now_ns() ^ ((uint64_t)getpid() << 32),
	};
	struct bp_disk_run_config cfg = { .sh = &sh, .interval_ns = p->interval_ns,
					  .progress = show_run, .interval = show_interval,
					  .progress_arg = s };
	int rc;

	s->cached_share = bp_disk_files_cached_share(&s->files, s->plan.wl.layout.file_size);
	rc = bp_disk_run(&cfg, &s->res, err, errlen);
	bp_disk_progress_clear(&s->bar);
	return rc;
}

static int warn(struct bp_result *r, const struct disk_session *s)
{
	struct bp_memory_info mi;
	struct bp_disk_facts f = {
		.dev = &s->dev, .dir = s->p->dir, .mode = s->plan.wl.mode, .direct = s->p->direct,
		.syncs = s->plan.wl.sync_freq || s->plan.wl.sync_end,
		.working_set = s->plan.total, .mem_total = BP_INT_UNKNOWN,
		.cached_share = s->cached_share,
		.read_rate = bp_disk_read_rate(&s->res), .write_rate = bp_disk_write_rate(&s->res),
	};
	int rc;

	if (!bp_memory_read("/", &mi))
		f.mem_total = mi.total_bytes;
	rc = bp_disk_device_warn(r, &f);
	if (!rc)
		rc = bp_disk_governor_warn(r, "/");
	return rc;
}

/* Measure and report; the files are the caller's to remove. */
static int run_session(struct disk_session *s, struct bp_result *r,
		       const struct bp_test_ctx *ctx, char *err, size_t errlen)
{
	struct bp_cpu_times c0;
	struct bp_sys_cpu s0;
	bool have_sys, have_cpu;
	int rc, rrc;

	find_stale(r, s->p);
	rc = prepare(s, err, errlen);
	record_plan(r, s);
	if (rc)
		return rc;
	/* the files are written: beside other tests (together), start with them from here */
	bp_test_ready(ctx);
	have_sys = !bp_sys_cpu_read("/proc/stat", &s0);
	have_cpu = !bp_cpu_process_times(&c0);
	rc = measure(s, err, errlen);
	/* the whole process over the run, and how busy the machine was meanwhile */
	if (have_cpu)
		bp_result_set_cpu(r, bp_cpu_local_since(&c0, have_sys ? &s0 : NULL));
	record_run(r, s);
	if (!s->res.workers_started)
		return rc;
	rrc = bp_disk_report_run(r, &s->res, bp_disk_mode_reads(s->plan.wl.mode),
				 bp_disk_mode_writes(s->plan.wl.mode));
	if (!rrc)
		rrc = warn(r, s);
	if (rrc && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = rrc;
	}
	return rc;
}

static int disk_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		    char *err, size_t errlen)
{
	struct disk_session s = { .p = params, .cached_share = NAN, .live = ctx->live, .r = r,
				  .files = { .parent_fd = -1, .dir_fd = -1, .marker_fd = -1 } };
	char rm_err[512];
	int rc, rm;

	rc = bp_disk_plan_make(s.p, &s.plan, err, errlen);
	if (rc)
		return rc;
	bp_disk_progress_init(&s.bar);
	if (bp_blockdev_for_path("/", s.p->dir, &s.dev) == 0 && bp_disk_device_record(r, &s.dev)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (s.p->size_for_flash)
		bp_result_add_warning(r, "flash-default-size", "%s is flash (%s): the set is "
				      "256 MiB, not sysbench's 2 GiB (minutes to write, and wear); "
				      "--size 2G compares with sysbench's figures", s.p->dir,
				      s.dev.bus);
	rc = run_session(&s, r, ctx, err, errlen);
	rm = bp_disk_files_remove(&s.files, rm_err, sizeof(rm_err));
	if (rm && !rc) {
		snprintf(err, errlen, "%s", rm_err);
		rc = rm;
	} else if (rm) {
		bp_result_add_warning(r, "cleanup-failed", "%s", rm_err);
	}
	bp_disk_run_result_free(&s.res);
	return rc;
}

const struct bp_test bp_cmd_disk = {
	.name = "disk",
	.summary = "storage I/O as sysbench fileio measures it: reads/s, writes/s, fsyncs/s, "
		   "MiB/s, latency",
	.synopsis = "--dir PATH [--mode rndrw|rndrd|rndwr|seqrd|seqwr|seqrewr] [--size 2G] "
		    "[--files 128] [--block 16K] [--engine sync|io_uring] [--depth N] "
		    "[--direct] [-t S] [--requests N] [--threads N]",
	.opts = disk_opts,
	.params_size = sizeof(struct bp_disk_params),
	.ready_after_setup = true,
	.check = disk_check,
	.run = disk_run,
	.kind = &bp_kind_disk,
};
