/*
 * The request streams of sysbench's fileio modes: which requests, in which order, and how
 * many syncs. Counts are checked against what sysbench 1.0.20 does (sb_fileio.c), e.g.
 * `sysbench fileio --file-test-mode=rndwr --events=1000` (1 thread): 488 writes and 640
 * fsyncs (4 rounds of 128 files after writes 100..400, then 128 at the end).
 */
#include <stdlib.h>

#include "disk/disk_workload.h"
#include "tap.h"

struct tally {
	uint64_t reads, writes, syncs, final_syncs, rounds;
	uint64_t bad;  /* requests outside the set, or unaligned */
};

static void check_req(const struct bp_disk_workload *w, const struct bp_disk_req *q,
		      struct tally *t)
{
	const struct bp_disk_layout *l = &w->layout;

	if (q->file >= l->nfiles || (q->op != BP_DISK_SYNC &&
	    (q->offset % l->block || q->offset + q->len > l->file_size || q->len != l->block)))
		t->bad++;
}

/* Drives one generator as a worker does: n reads and writes, then the final round. */
static void drive(const struct bp_disk_workload *w, uint32_t worker, uint32_t nworkers,
		  uint64_t n, struct tally *t)
{
	struct bp_disk_gen g;
	struct bp_disk_req q;
	bool in_round = false;

	CHECK(bp_disk_gen_init(&g, w, worker, nworkers, 42) == 0);
	while (g.requests < n) {
		bp_disk_gen_next(&g, &q);
		check_req(w, &q, t);
		if (q.op == BP_DISK_SYNC) {
			t->syncs++;
			t->rounds += !in_round;
			in_round = true;
			continue;
		}
		in_round = false;
		if (q.op == BP_DISK_READ)
			t->reads++;
		else
			t->writes++;
	}
	while (bp_disk_gen_final(&g, &q)) {
		check_req(w, &q, t);
		t->final_syncs += q.op == BP_DISK_SYNC;
	}
	bp_disk_gen_free(&g);
}

static struct bp_disk_workload sysbench_defaults(enum bp_disk_mode mode)
{
	return (struct bp_disk_workload){
		.mode = mode,
		.layout = { .nfiles = 128, .block = 16384, .file_size = 16 << 20 },
		.rw_ratio = 1.5, .sync_freq = 100, .sync_end = true, .scope = BP_DISK_SYNC_ALL,
	};
}

static void test_modes(void)
{
	CHECK_STR(bp_disk_mode_name(BP_DISK_SEQWR), "seqwr");
	CHECK_STR(bp_disk_mode_name(BP_DISK_RNDRW), "rndrw");
	CHECK(bp_disk_mode_reads(BP_DISK_RNDRW) && bp_disk_mode_writes(BP_DISK_RNDRW));
	CHECK(!bp_disk_mode_writes(BP_DISK_SEQRD) && !bp_disk_mode_writes(BP_DISK_RNDRD));
	CHECK(!bp_disk_mode_reads(BP_DISK_SEQREWR) && bp_disk_mode_sequential(BP_DISK_SEQREWR));
	CHECK(!bp_disk_mode_sequential(BP_DISK_RNDRD));
}

/* sysbench's own count for --events=1000: the rounds sync all 128 files. */
static void test_rndwr_like_sysbench(void)
{
	struct bp_disk_workload w = sysbench_defaults(BP_DISK_RNDWR);
	struct tally t = { 0 };

	drive(&w, 0, 1, 488, &t);
	CHECK_INT(t.writes, 488);
	CHECK_INT(t.rounds, 4);
	CHECK_INT(t.syncs, 4 * 128);
	CHECK_INT(t.final_syncs, 128);
	CHECK_INT(t.bad, 0);
}

/* The article's ratio: (reads + writes) / 100 x 128 fsyncs, more fsyncs than requests. */
static void test_rndrw_ratio_and_syncs(void)
{
	struct bp_disk_workload w = sysbench_defaults(BP_DISK_RNDRW);
	struct tally t = { 0 };

	drive(&w, 0, 1, 10000, &t);
	CHECK_INT(t.reads, 6000);
	CHECK_INT(t.writes, 4000);
	CHECK_INT(t.syncs, 99 * 128);
	CHECK_INT(t.final_syncs, 128);
	CHECK_INT(t.bad, 0);
}

/* sysbench's rule read when (reads + 1) / (writes + 1) < 1.5: R W R W R R W R W R ... */
static void test_rndrw_order(void)
{
	struct bp_disk_workload w = sysbench_defaults(BP_DISK_RNDRW);
	static const char want[] = "RWRWRRWRWRRW";
	char got[sizeof(want)] = "";
	struct bp_disk_gen g;
	struct bp_disk_req q;

	w.sync_freq = 0;
	bp_disk_gen_init(&g, &w, 0, 1, 7);
	for (size_t i = 0; i + 1 < sizeof(want); i++) {
		bp_disk_gen_next(&g, &q);
		got[i] = q.op == BP_DISK_READ ? 'R' : 'W';
	}
	CHECK_STR(got, want);
	bp_disk_gen_free(&g);
}

/* Read-only modes never sync, not even at the end. */
static void test_read_modes_never_sync(void)
{
	for (int m = BP_DISK_SEQRD; m <= BP_DISK_RNDRD; m++) {
		struct bp_disk_workload w = sysbench_defaults((enum bp_disk_mode)m);
		struct tally t = { 0 };

		drive(&w, 0, 1, 5000, &t);
		CHECK_INT(t.reads, 5000);
		CHECK_INT(t.syncs + t.final_syncs, 0);
	}
}

/* Sequential: block after block, file after file, back to the first at the end. */
static void test_sequential_walk(void)
{
	struct bp_disk_workload w = {
		.mode = BP_DISK_SEQREWR,
		.layout = { .nfiles = 3, .block = 4096, .file_size = 4 * 4096 },
		.sync_freq = 0, .sync_end = true,
	};
	struct bp_disk_gen g;
	struct bp_disk_req q;
	int ok = 1;

	bp_disk_gen_init(&g, &w, 0, 1, 1);
	for (uint64_t i = 0; i < 30; i++) {
		uint64_t b = i % 12;

		bp_disk_gen_next(&g, &q);
		ok &= q.op == BP_DISK_WRITE && q.file == b / 4 && q.offset == (b % 4) * 4096;
	}
	CHECK(ok);
	bp_disk_gen_free(&g);
	/* two workers share the sequence: worker 1 takes blocks 1, 3, 5, ... */
	bp_disk_gen_init(&g, &w, 1, 2, 1);
	bp_disk_gen_next(&g, &q);
	CHECK(q.file == 0 && q.offset == 4096);
	bp_disk_gen_next(&g, &q);
	CHECK(q.file == 0 && q.offset == 3 * 4096);
	bp_disk_gen_next(&g, &q);
	CHECK(q.file == 1 && q.offset == 4096);
	bp_disk_gen_free(&g);
}

/* Random picks cover the set evenly (each of 8 files within 10 % of its share). */
static void test_random_spread(void)
{
	struct bp_disk_workload w = {
		.mode = BP_DISK_RNDRD,
		.layout = { .nfiles = 8, .block = 16384, .file_size = 1 << 20 },
	};
	uint64_t per_file[8] = { 0 }, per_block0 = 0;
	struct bp_disk_gen g;
	struct bp_disk_req q;
	int even = 1;

	bp_disk_gen_init(&g, &w, 0, 1, 12345);
	for (int i = 0; i < 80000; i++) {
		bp_disk_gen_next(&g, &q);
		per_file[q.file < 8 ? q.file : 0]++;
		per_block0 += q.offset == 0;
	}
	for (int f = 0; f < 8; f++)
		even &= per_file[f] > 9000 && per_file[f] < 11000;
	CHECK(even);
	/* 64 blocks per file: the first block of each gets about 1/64 */
	CHECK(per_block0 > 1000 && per_block0 < 1500);
	bp_disk_gen_free(&g);
}

/* fsync-freq 0: no rounds, the final one still syncs every file (sysbench >= 1.0.15). */
static void test_no_periodic_sync(void)
{
	struct bp_disk_workload w = sysbench_defaults(BP_DISK_RNDWR);
	struct tally t = { 0 };

	w.sync_freq = 0;
	drive(&w, 0, 1, 1000, &t);
	CHECK_INT(t.syncs, 0);
	CHECK_INT(t.final_syncs, 128);
	w.sync_end = false;
	t = (struct tally){ 0 };
	drive(&w, 0, 1, 1000, &t);
	CHECK_INT(t.final_syncs, 0);
}

/*
 * The plain scope syncs only what was written: a sequential writer touches one file per
 * round here, so fsyncs = writes / freq, plus the final one.
 */
static void test_scope_written(void)
{
	struct bp_disk_workload w = {
		.mode = BP_DISK_SEQWR,
		.layout = { .nfiles = 4, .block = 4096, .file_size = 64 * 4096 },
		.sync_freq = 16, .sync_end = true, .scope = BP_DISK_SYNC_WRITTEN,
	};
	struct tally t = { 0 };

	drive(&w, 0, 1, 1000, &t);
	CHECK_INT(t.writes, 1000);
	CHECK_INT(t.syncs, (1000 - 1) / 16);
	CHECK_INT(t.final_syncs, 1);
	/* random writes over 4 files: a round syncs each written file once, no more */
	w.mode = BP_DISK_RNDWR;
	w.sync_freq = 100;
	t = (struct tally){ 0 };
	drive(&w, 0, 1, 1000, &t);
	CHECK_INT(t.rounds, 9);
	CHECK_INT(t.syncs, 9 * 4);
	CHECK_INT(t.final_syncs, 4);
	CHECK_INT(t.bad, 0);
}

/* Two workers: each counts its own requests, so the rounds add up as with one. */
static void test_two_workers(void)
{
	struct bp_disk_workload w = sysbench_defaults(BP_DISK_RNDWR);
	struct tally a = { 0 }, b = { 0 };

	drive(&w, 0, 2, 500, &a);
	drive(&w, 1, 2, 500, &b);
	CHECK_INT(a.rounds + b.rounds, 8);
	CHECK_INT(a.final_syncs + b.final_syncs, 2 * 128);
}

static void test_fill_random(void)
{
	uint64_t state = 1, a = bp_disk_random_next(&state), b = bp_disk_random_next(&state);
	struct bp_disk_layout l = { .nfiles = 3, .block = 512, .file_size = 1024 };

	CHECK(a != b);
	CHECK_INT(bp_disk_total_bytes(&l), 3072);
}

int main(void)
{
	test_modes();
	test_rndwr_like_sysbench();
	test_rndrw_ratio_and_syncs();
	test_rndrw_order();
	test_read_modes_never_sync();
	test_sequential_walk();
	test_random_spread();
	test_no_periodic_sync();
	test_scope_written();
	test_two_workers();
	test_fill_random();
	return tap_done();
}
