/*
 * Whole runs on a small file set in /tmp, with both engines: the counts a run reports are
 * exactly what the workload asks for (fsyncs = files x (rounds + the final one)), the
 * latency histograms hold one value per request, and the interval lines add up to the
 * totals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/disk_files.h"
#include "disk/disk_run.h"
#include "stats/histogram.h"
#include "tap.h"

static const struct bp_disk_layout layout = { .nfiles = 8, .block = 4096,
					      .file_size = 64 * 4096 };

struct fixture {
	struct bp_disk_files files;
	struct bp_disk_workload wl;
	struct bp_disk_shared sh;
	struct bp_disk_run_config cfg;
	struct bp_disk_run_result res;
};

static int run(struct fixture *fx, const char *base, enum bp_disk_mode mode,
	       const struct bp_disk_engine *engine, unsigned depth, uint32_t workers,
	       uint64_t requests, uint64_t time_ns, uint64_t interval_ns)
{
	char err[512] = "";
	int rc;

	memset(fx, 0, sizeof(*fx));
	fx->wl = (struct bp_disk_workload){ .mode = mode, .layout = layout, .rw_ratio = 1.5,
					    .sync_freq = 100, .sync_end = true };
	rc = bp_disk_files_init(&fx->files, base, layout.nfiles, err, sizeof(err));
	if (!rc)
		rc = bp_disk_files_prepare(&fx->files, &layout, true, NULL, NULL, err,
					   sizeof(err));
	if (!rc)
		rc = bp_disk_files_open(&fx->files, false, err, sizeof(err));
	fx->sh = (struct bp_disk_shared){ .wl = &fx->wl, .engine = engine,
					  .fds = fx->files.fds, .depth = depth,
					  .time_ns = time_ns, .requests = requests,
					  .nworkers = workers, .seed = 99 };
	fx->cfg = (struct bp_disk_run_config){ .sh = &fx->sh, .interval_ns = interval_ns };
	if (!rc)
		rc = bp_disk_run(&fx->cfg, &fx->res, err, sizeof(err));
	if (rc)
		printf("# run: %s\n", err);
	return rc;
}

static void done(struct fixture *fx)
{
	char err[512];

	bp_disk_files_remove(&fx->files, err, sizeof(err));
	bp_disk_run_result_free(&fx->res);
}

/* 1000 writes, a round of 8 fsyncs after each 100 but the last, and 8 at the end. */
static void test_counts(const char *base, const struct bp_disk_engine *e, unsigned depth,
			uint32_t workers)
{
	struct fixture fx;

	printf("# %s engine, depth %u, %u worker(s)\n", e->name, depth, workers);
	CHECK_INT(run(&fx, base, BP_DISK_RNDWR, e, depth, workers, 1000, 0, 0), 0);
	CHECK_INT(fx.res.count[BP_DISK_N_WRITES], 1000);
	CHECK_INT(fx.res.count[BP_DISK_N_WRITE_BYTES], 1000 * 4096);
	CHECK_INT(fx.res.count[BP_DISK_N_READS], 0);
	/* each worker: (its 1000/workers - 1) / 100 rounds, then the final one */
	CHECK_INT(fx.res.count[BP_DISK_N_SYNCS],
		  workers * ((1000 / workers - 1) / 100 + 1) * layout.nfiles);
	CHECK_INT(bp_histo_count(fx.res.lat[BP_DISK_WRITE]), 1000);
	CHECK_INT(bp_histo_count(fx.res.lat[BP_DISK_SYNC]), fx.res.count[BP_DISK_N_SYNCS]);
	CHECK(fx.res.elapsed_ns > 0);
	done(&fx);
	CHECK(run(&fx, base, BP_DISK_RNDRW, e, depth, workers, 1000, 0, 0) == 0);
	CHECK_INT(fx.res.count[BP_DISK_N_READS], 600);
	CHECK_INT(fx.res.count[BP_DISK_N_WRITES], 400);
	CHECK_INT(bp_histo_count(fx.res.lat[BP_DISK_READ]), 600);
	done(&fx);
}

static void test_intervals(const char *base)
{
	uint64_t sum[BP_DISK_NCOUNTS] = { 0 };
	struct fixture fx;
	int contiguous = 1;

	CHECK_INT(run(&fx, base, BP_DISK_RNDRD, &bp_disk_engine_sync, 1, 2, 0,
		      300 * 1000000ULL, 50 * 1000000ULL), 0);
	CHECK(fx.res.elapsed_ns >= 300 * 1000000ULL);
	CHECK(fx.res.nintervals >= 5);
	for (size_t i = 0; i < fx.res.nintervals; i++) {
		for (int c = 0; c < BP_DISK_NCOUNTS; c++)
			sum[c] += fx.res.intervals[i].count[c];
		if (i)
			contiguous &= fx.res.intervals[i].start_ns == fx.res.intervals[i - 1].end_ns;
	}
	CHECK(contiguous);
	CHECK_INT(fx.res.intervals[fx.res.nintervals - 1].end_ns, fx.res.elapsed_ns);
	CHECK_INT(sum[BP_DISK_N_READS], fx.res.count[BP_DISK_N_READS]);
	CHECK_INT(sum[BP_DISK_N_READ_BYTES], fx.res.count[BP_DISK_N_READ_BYTES]);
	CHECK(fx.res.count[BP_DISK_N_READS] > 0);
	CHECK_INT(fx.res.count[BP_DISK_N_SYNCS], 0);
	done(&fx);
}

/* io_uring may be missing or off (qemu-user, kernel.io_uring_disabled): then skipped. */
static bool uring_works(const char *base)
{
	struct fixture fx;
	int rc = run(&fx, base, BP_DISK_RNDRD, &bp_disk_engine_uring, 4, 1, 10, 0, 0);

	done(&fx);
	return rc == 0;
}

int main(void)
{
	char base[] = "/tmp/bp-test-disk-run.XXXXXX";

	if (!mkdtemp(base)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_counts(base, &bp_disk_engine_sync, 1, 1);
	test_counts(base, &bp_disk_engine_sync, 1, 2);
	test_intervals(base);
	if (uring_works(base)) {
		test_counts(base, &bp_disk_engine_uring, 8, 1);
		test_counts(base, &bp_disk_engine_uring, 32, 2);
	} else {
		printf("ok %d - io_uring counts # SKIP io_uring unavailable\n", ++tap_n);
	}
	rmdir(base);
	return tap_done();
}
