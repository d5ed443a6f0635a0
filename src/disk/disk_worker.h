/*
 * One disk worker: its request generator, its I/O engine, its buffers, its counters and
 * latency histograms. Nothing is shared between workers on the hot path; the monitor
 * reads each worker's counters (one writer each, relaxed atomics) for interval lines and
 * the progress bar, and the histograms are merged once, after the run.
 *
 * The loop keeps up to `depth` requests in flight (1 for the sync engine). A sync round
 * is a barrier, as in sysbench, where each fsync runs after the writes before it finished:
 * no fsync is started while reads or writes are in flight, and no read or write while
 * fsyncs are. The run ends at the time limit, after its share of --requests, on a stop
 * signal, or when another worker failed; then the requests in flight complete, and the
 * final sync round follows (not after a signal or a failure: the files go anyway).
 */
#ifndef BP_DISK_DISK_WORKER_H
#define BP_DISK_DISK_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "disk/disk_workload.h"

struct bp_histo;
struct bp_disk_worker;

/* What every worker reads; fixed before the workers start, except the two atomics. */
struct bp_disk_shared {
	const struct bp_disk_workload *wl;
	const struct bp_disk_engine *engine;
	const int *fds;          /* one per file, open for the run */
	unsigned depth;          /* requests in flight per worker */
	bool datasync;           /* fdatasync instead of fsync */
	bool direct;             /* files opened with O_DIRECT (for messages) */
	uint64_t time_ns;        /* run length; 0: none */
	uint64_t requests;       /* reads + writes over all workers; 0: no limit */
	uint32_t nworkers;
	uint64_t seed;
	_Atomic uint64_t start_ns; /* set by the first worker past the start line */
	_Atomic bool abort;        /* a worker failed: the others stop too */
};

/* One request in flight: what, since when, in which buffer. */
struct bp_disk_io {
	struct bp_disk_req req;
	uint64_t start_ns;
	unsigned char *buf;
	unsigned slot;
};

/* An I/O engine, as fio has them: one ops table each, chosen by --engine. */
struct bp_disk_engine {
	const char *name;
	/* Per-worker state (w->engine_state); 0 or -errno with a message in w->err. */
	int (*init)(struct bp_disk_worker *w);
	/* Starts io; the sync engine also completes it (bp_disk_worker_complete). */
	int (*queue)(struct bp_disk_worker *w, struct bp_disk_io *io);
	/*
	 * Submits what was queued and reaps until at least min requests completed. Fails
	 * (-errno, message in w->err) only when the engine itself broke and nothing more
	 * will complete; a failed request is reported through bp_disk_worker_complete.
	 */
	int (*wait)(struct bp_disk_worker *w, unsigned min);
	void (*exit)(struct bp_disk_worker *w);
};

extern const struct bp_disk_engine bp_disk_engine_sync;
extern const struct bp_disk_engine bp_disk_engine_uring;

/* The counters the monitor samples, indexed by these. */
enum bp_disk_count {
	BP_DISK_N_READS,
	BP_DISK_N_WRITES,
	BP_DISK_N_SYNCS,
	BP_DISK_N_READ_BYTES,
	BP_DISK_N_WRITE_BYTES,
	BP_DISK_NCOUNTS,
};

struct bp_disk_worker {
	uint32_t index;
	struct bp_disk_shared *sh;
	struct bp_disk_gen gen;
	struct bp_histo *lat[3];      /* per enum bp_disk_op, in ns */
	uint64_t count[BP_DISK_NCOUNTS];
	_Atomic uint64_t live[BP_DISK_NCOUNTS]; /* copies of count for the monitor */
	struct bp_disk_io *ios;       /* depth slots */
	unsigned *free_slots, nfree;
	unsigned inflight, inflight_syncs;
	void *engine_state;
	char engine_note[128];        /* what the engine could use, for the result's params */
	uint64_t limit;               /* this worker's share of --requests; 0: none */
	uint64_t start_ns, end_ns, now_ns;
	int io_rc;                    /* the first failed request's -errno */
	int rc;
	char err[256];
};

/* Buffers, histograms and generator for worker index. 0 or -errno with a message in err. */
int bp_disk_worker_init(struct bp_disk_worker *w, struct bp_disk_shared *sh, uint32_t index,
			uint32_t block);
void bp_disk_worker_free(struct bp_disk_worker *w);

/* The whole run of one worker, start line to final sync. Its result is also in w->rc. */
int bp_disk_worker_run(struct bp_disk_worker *w);

/*
 * An engine reports a finished request: res is what the system call returned (bytes, 0
 * for a sync, or -errno), end_ns when it was seen to finish. A failed or short request
 * is kept in w->io_rc with a message in w->err (the first one only), and ends the run;
 * the engine goes on reaping what is still in flight.
 */
void bp_disk_worker_complete(struct bp_disk_worker *w, struct bp_disk_io *io, int64_t res,
			     uint64_t end_ns);

#endif
