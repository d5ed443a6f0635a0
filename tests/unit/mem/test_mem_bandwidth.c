/* Buffer sizing, rates, the all-core sum and scaling, the median; one short real run. */
#include <math.h>
#include <stdint.h>

#include "mem/mem_bandwidth.h"
#include "mem/mem_samples.h"
#include "tests/unit/tap.h"

#define MIB (1ULL << 20)

static void test_auto_size(void)
{
	static const struct {
		uint64_t llc;
		int64_t avail;
		unsigned nbuf;
		uint64_t want;
	} cases[] = {
		{ 0, -1, 4, 64 * MIB },                  /* nothing known: the floor */
		{ 512 << 10, -1, 4, 64 * MIB },          /* board L2: 8x is below 64 MiB */
		{ 8 * MIB, -1, 4, 64 * MIB },            /* exactly 8x */
		{ 32 * MIB, -1, 4, 256 * MIB },          /* this PC's L3 */
		{ 32 * MIB, 24LL << 30, 4, 256 * MIB },  /* plenty of memory */
		{ 32 * MIB, 1LL << 30, 4, 64 * MIB },    /* 1 GiB free: 256 MiB over 4 */
		{ 1 * MIB, 300 * MIB, 8, 9 * MIB },      /* 512 MiB board: 75 MiB / 8, whole MiB */
		{ 1 * MIB, 2 * MIB, 4, 1 * MIB },        /* never below 1 MiB */
		{ 32 * MIB, 24LL << 30, 0, 256 * MIB },  /* no buffers: no cap */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(bp_mem_bw_auto_size(cases[i].llc, cases[i].avail, cases[i].nbuf),
			  cases[i].want);
}

static void test_rate_scaling(void)
{
	CHECK_NEAR(bp_mem_bw_rate(256 * MIB, 25000000), 256.0 * MIB / 0.025, 1e-3);
	CHECK(isnan(bp_mem_bw_rate(1, 0)));
	CHECK_NEAR(bp_mem_bw_scaling(20e9, 10e9, 2), 100, 1e-9);
	CHECK_NEAR(bp_mem_bw_scaling(15e9, 10e9, 2), 75, 1e-9);
	CHECK_NEAR(bp_mem_bw_scaling(10e9, 10e9, 1), 100, 1e-9);
	CHECK_NEAR(bp_mem_bw_scaling(36e9, 10e9, 4), 90, 1e-9);
	CHECK(isnan(bp_mem_bw_scaling(NAN, 10e9, 2)));
	CHECK(isnan(bp_mem_bw_scaling(20e9, 0, 2)));
	CHECK(isnan(bp_mem_bw_scaling(20e9, 10e9, 0)));
}

static void test_merge(void)
{
	const struct bp_mem_bw_worker w[] = {
		{ .rate = 5e9, .busy_share = 0.99, .cpu = 0 },
		{ .rate = 4e9, .busy_share = 0.72, .cpu = 2 },
		{ .rate = 6e9, .busy_share = NAN, .cpu = 3 },
	};
	const struct bp_mem_bw_worker partial[] = {
		{ .rate = 5e9, .busy_share = 1.0, .cpu = 0 },
		{ .rate = NAN, .busy_share = 0.5, .cpu = 1 },
	};
	struct bp_mem_bw_figure f;

	bp_mem_bw_merge(w, 3, &f);
	CHECK_NEAR(f.rate, 15e9, 1e-3);
	CHECK_INT(f.workers, 3);
	CHECK_NEAR(f.min_busy_share, 0.72, 1e-12);
	CHECK_INT(f.min_worker, 1);
	CHECK_INT(f.min_cpu, 2);
	bp_mem_bw_merge(w, 1, &f);
	CHECK_NEAR(f.rate, 5e9, 1e-3);
	CHECK_INT(f.min_worker, 0);
	/* A worker that measured nothing: no "all cores" figure at all. */
	bp_mem_bw_merge(partial, 2, &f);
	CHECK(isnan(f.rate));
	CHECK_NEAR(f.min_busy_share, 0.5, 1e-12);
	bp_mem_bw_merge(w, 0, &f);
	CHECK(isnan(f.rate));
	CHECK(isnan(f.min_busy_share));
	CHECK_INT(f.min_worker, -1);
}

static void test_median(void)
{
	struct bp_mem_samples s = { 0 };
	int failed = 0;

	CHECK(isnan(bp_mem_samples_median(&s)));
	bp_mem_samples_push(&s, 3);
	CHECK_NEAR(bp_mem_samples_median(&s), 3, 0);
	bp_mem_samples_push(&s, 1);
	CHECK_NEAR(bp_mem_samples_median(&s), 2, 0);
	bp_mem_samples_push(&s, 100); /* a sample a timer tick cut into */
	CHECK_NEAR(bp_mem_samples_median(&s), 3, 0);
	for (int i = 0; i < 1000; i++)
		failed += bp_mem_samples_push(&s, i % 10) != 0;
	CHECK_INT(failed, 0);
	CHECK_INT(s.n, 1003);
	/* 1003 values: the 502nd in order; 0..3 hold 402 of them (with the 1 and the 3). */
	CHECK_NEAR(bp_mem_samples_median(&s), 4, 0);
	bp_mem_samples_free(&s);
	CHECK(s.v == NULL && s.n == 0);
}

/* Two workers started together on a small buffer: each figure measured and summed. */
static void test_run(void)
{
	struct bp_mem_bw_config cfg = { .size = 256 << 10, .time_ns = 20000000, .nthreads = 2 };
	struct bp_mem_bw_figure one[BP_MEM_NOPS], all[BP_MEM_NOPS];
	char err[256] = "";

	CHECK_INT(bp_mem_bw_run(&cfg, one, all, err, sizeof(err)), 0);
	for (int op = 0; op < BP_MEM_NOPS; op++) {
		CHECK(isfinite(one[op].rate) && one[op].rate > 0);
		CHECK_INT(one[op].workers, 1);
		CHECK(isfinite(all[op].rate) && all[op].rate > 0);
		CHECK_INT(all[op].workers, 2);
	}
	/* One worker only: no all-core run. */
	cfg.nthreads = 1;
	CHECK_INT(bp_mem_bw_run(&cfg, one, NULL, err, sizeof(err)), 0);
	CHECK(isfinite(one[BP_MEM_COPY].rate));
	CHECK_STR(bp_mem_op_name(BP_MEM_COPY), "memcpy");
	CHECK_STR(bp_mem_op_name(BP_MEM_SET), "memset");
}

int main(void)
{
	test_auto_size();
	test_rate_scaling();
	test_merge();
	test_median();
	test_run();
	return tap_done();
}
