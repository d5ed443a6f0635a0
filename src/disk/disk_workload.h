/*
 * The request stream of each sysbench fileio mode, one generator per worker. It decides
 * what the next request is (read, write or a sync of one file, which file, which offset)
 * and nothing else: no I/O, no clocks, so the unit tests can replay sysbench's sequences.
 *
 * Facts taken from sysbench 1.0.20 (src/tests/fileio/sb_fileio.c), which this follows:
 * - A file set of F files of S bytes each, S = total / F; requests are one block each.
 * - Sequential modes walk the files in order, block after block, and wrap to the first
 *   file when the last one ends (seqwr writes files created empty, so it first extends them).
 * - Random modes pick a block uniformly over the whole set: offset = uniform(0, total)
 *   rounded down to a block, then file = offset / S.
 * - rndrw: a read when (reads + 1) / (writes + 1) < ratio, else a write (1.5: 60 % reads).
 * - "fsync every N requests" counts reads and writes; when the count is a multiple of N
 *   and something was written since the last sync, a sync round starts, and that round
 *   syncs EVERY file of the set, one fsync per file, before the next request: with the
 *   defaults, 128 fsyncs per 100 requests. BP_DISK_SYNC_WRITTEN syncs only the files
 *   written since their last sync instead (what a database would do).
 * - At the end, unless switched off, every file is synced once more (not in the read-only
 *   modes); sysbench does this in each of its threads, and so does each worker here.
 *
 * With several workers, sysbench hands requests out from one shared generator; here each
 * worker has its own (nothing shared on the hot path): sequential modes stride through
 * the same block sequence (worker i of n takes blocks i, i+n, ...), random modes draw
 * from their own random stream, and each worker counts its own requests for the sync
 * rounds, so the number of rounds over the run is the same as with one shared counter.
 */
#ifndef BP_DISK_DISK_WORKLOAD_H
#define BP_DISK_DISK_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The order of sysbench's --file-test-mode names; the option table lists them so. */
enum bp_disk_mode {
	BP_DISK_SEQWR,
	BP_DISK_SEQREWR,
	BP_DISK_SEQRD,
	BP_DISK_RNDRD,
	BP_DISK_RNDWR,
	BP_DISK_RNDRW,
};

enum bp_disk_sync_scope {
	BP_DISK_SYNC_ALL,     /* every file of the set, as sysbench does */
	BP_DISK_SYNC_WRITTEN, /* only the files written since their last sync */
};

enum bp_disk_op {
	BP_DISK_READ,
	BP_DISK_WRITE,
	BP_DISK_SYNC,
};

struct bp_disk_layout {
	uint32_t nfiles;
	uint32_t block;      /* bytes per request */
	uint64_t file_size;  /* a multiple of block */
};

struct bp_disk_workload {
	enum bp_disk_mode mode;
	struct bp_disk_layout layout;
	double rw_ratio;         /* reads per write in rndrw */
	uint32_t sync_freq;      /* a sync round every this many requests; 0: none */
	bool sync_end;           /* the final round */
	enum bp_disk_sync_scope scope;
};

struct bp_disk_req {
	enum bp_disk_op op;
	uint32_t file;
	uint32_t len;     /* 0 for a sync */
	uint64_t offset;
};

struct bp_disk_gen {
	const struct bp_disk_workload *w;
	uint32_t worker, nworkers;
	uint64_t requests;      /* reads + writes handed out */
	uint64_t reads, writes;
	uint64_t seq_next;      /* next block of the global sequence (sequential modes) */
	uint64_t rng;           /* splitmix64 state */
	bool dirty;             /* written since the last sync round */
	uint8_t *dirty_files;   /* per file, for BP_DISK_SYNC_WRITTEN */
	uint32_t round_next;    /* next file of the sync round under way */
	bool in_round;
	bool final_started;
};

/* The mode's name as sysbench spells it ("rndrw"), and whether it reads or writes. */
const char *bp_disk_mode_name(enum bp_disk_mode mode);
bool bp_disk_mode_reads(enum bp_disk_mode mode);
bool bp_disk_mode_writes(enum bp_disk_mode mode);
bool bp_disk_mode_sequential(enum bp_disk_mode mode);

/*
 * A generator for worker `worker` of `nworkers`; seed makes the random stream (any value;
 * workers should differ). 0 or -ENOMEM. w must outlive the generator.
 */
int bp_disk_gen_init(struct bp_disk_gen *g, const struct bp_disk_workload *w,
		     uint32_t worker, uint32_t nworkers, uint64_t seed);
void bp_disk_gen_free(struct bp_disk_gen *g);

/* The next request: a sync of the round under way, or the next read or write. */
void bp_disk_gen_next(struct bp_disk_gen *g, struct bp_disk_req *req);

/*
 * The final sync round, one file per call: true with a sync in req, false when there is
 * nothing (more) to sync. Start it after the last read or write has completed.
 */
bool bp_disk_gen_final(struct bp_disk_gen *g, struct bp_disk_req *req);

/* splitmix64: the next of a cheap random stream (also fills write buffers). */
uint64_t bp_disk_random_next(uint64_t *state);

/* Bytes of the whole file set. */
uint64_t bp_disk_total_bytes(const struct bp_disk_layout *l);

#endif
