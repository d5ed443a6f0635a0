#include "disk/disk_worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/signals.h"
#include "disk/disk_files.h"
#include "stats/histogram.h"

/* O_DIRECT wants buffers aligned to the logical block; a page covers every device. */
#define BUFFER_ALIGN 4096

int bp_disk_worker_init(struct bp_disk_worker *w, struct bp_disk_shared *sh, uint32_t index,
			uint32_t block)
{
	unsigned depth = sh->depth;
	unsigned char *bufs = NULL;
	int rc;

	memset(w, 0, sizeof(*w));
	w->index = index;
	w->sh = sh;
	if (sh->requests)
		w->limit = sh->requests / sh->nworkers + (index < sh->requests % sh->nworkers);
	w->ios = calloc(depth, sizeof(*w->ios));
	w->free_slots = calloc(depth, sizeof(*w->free_slots));
	for (int i = 0; i < 3; i++)
		w->lat[i] = bp_histo_new();
	rc = -ENOMEM;
	if (!w->ios || !w->free_slots || !w->lat[0] || !w->lat[1] || !w->lat[2] ||
	    posix_memalign((void **)&bufs, BUFFER_ALIGN, (size_t)depth * block))
		goto fail;
	/* random data: a compressing filesystem or SSD must not make writes look cheap */
	bp_disk_fill_random(bufs, (size_t)depth * block, sh->seed ^ index);
	for (unsigned i = 0; i < depth; i++) {
		w->ios[i] = (struct bp_disk_io){ .buf = bufs + (size_t)i * block, .slot = i };
		w->free_slots[i] = depth - 1 - i;
	}
	w->nfree = depth;
	rc = bp_disk_gen_init(&w->gen, sh->wl, index, sh->nworkers,
			      sh->seed + 0x9e3779b97f4a7c15ULL * (index + 1));
	if (rc)
		goto fail;
	return 0;
fail:
	snprintf(w->err, sizeof(w->err), "worker %u: out of memory", index);
	return rc;
}

void bp_disk_worker_free(struct bp_disk_worker *w)
{
	if (w->ios)
		free(w->ios[0].buf);
	free(w->ios);
	free(w->free_slots);
	for (int i = 0; i < 3; i++)
		bp_histo_free(w->lat[i]);
	bp_disk_gen_free(&w->gen);
	memset(w, 0, sizeof(*w));
}

static void publish(struct bp_disk_worker *w, enum bp_disk_count c, uint64_t add)
{
	w->count[c] += add;
	/* one writer: a relaxed store is enough, and costs no locked instruction */
	atomic_store_explicit(&w->live[c], w->count[c], memory_order_relaxed);
}

static const char *op_verb(enum bp_disk_op op)
{
	return op == BP_DISK_READ ? "reading" : op == BP_DISK_WRITE ? "writing" : "syncing";
}

void bp_disk_worker_complete(struct bp_disk_worker *w, struct bp_disk_io *io, int64_t res,
			     uint64_t end_ns)
{
	const struct bp_disk_req *q = &io->req;

	w->inflight--;
	if (q->op == BP_DISK_SYNC)
		w->inflight_syncs--;
	w->free_slots[w->nfree++] = io->slot;
	w->now_ns = end_ns;
	if (res < 0 || res != (int64_t)q->len) {
		if (w->io_rc)
			return;
		w->io_rc = res < 0 ? (int)res : -EIO;
		snprintf(w->err, sizeof(w->err), "%s test_file.%u at offset %llu: %s%s",
			 op_verb(q->op), q->file, (unsigned long long)q->offset,
			 res < 0 ? strerror((int)-res) : "short transfer (the file shrank?)",
			 res == -EINVAL && w->sh->direct ? " (with --direct, --block must be a "
			 "multiple of the device's logical block size)" : "");
		return;
	}
	bp_histo_record(w->lat[q->op], end_ns > io->start_ns ? end_ns - io->start_ns : 0);
	if (q->op == BP_DISK_READ) {
		publish(w, BP_DISK_N_READ_BYTES, q->len);
		publish(w, BP_DISK_N_READS, 1);
	} else if (q->op == BP_DISK_WRITE) {
		publish(w, BP_DISK_N_WRITE_BYTES, q->len);
		publish(w, BP_DISK_N_WRITES, 1);
	} else {
		publish(w, BP_DISK_N_SYNCS, 1);
	}
}

static int submit(struct bp_disk_worker *w, const struct bp_disk_req *req)
{
	struct bp_disk_io *io = &w->ios[w->free_slots[--w->nfree]];

	io->req = *req;
	w->inflight++;
	if (req->op == BP_DISK_SYNC)
		w->inflight_syncs++;
	return w->sh->engine->queue(w, io);
}

/* Time, request share, a failure, a signal or another worker's failure ends the main phase. */
static bool main_phase_over(const struct bp_disk_worker *w, uint64_t deadline)
{
	return (deadline && w->now_ns >= deadline) || (w->limit && w->gen.requests >= w->limit) ||
	       w->io_rc || bp_stop_requested() ||
	       atomic_load_explicit(&w->sh->abort, memory_order_relaxed);
}

/* Tops up the requests in flight; stops at a change between sync round and reads/writes. */
static int fill(struct bp_disk_worker *w, struct bp_disk_req *held, bool *have_held,
		uint64_t deadline)
{
	while (w->nfree) {
		int rc;

		if (!*have_held) {
			if (main_phase_over(w, deadline))
				return 0;
			bp_disk_gen_next(&w->gen, held);
			*have_held = true;
		}
		if (w->inflight && (held->op == BP_DISK_SYNC) != (w->inflight_syncs > 0))
			return 0;
		*have_held = false;
		rc = submit(w, held);
		if (rc)
			return rc;
	}
	return 0;
}

/* Every request in flight completes, whatever happened: the buffers are theirs till then. */
static int drain(struct bp_disk_worker *w)
{
	int rc = 0;

	while (w->inflight && !rc)
		rc = w->sh->engine->wait(w, w->inflight);
	return rc;
}

static int main_phase(struct bp_disk_worker *w)
{
	uint64_t deadline = w->sh->time_ns ? w->start_ns + w->sh->time_ns : 0;
	struct bp_disk_req held;
	bool have_held = false;
	int rc = 0;

	while (!rc) {
		rc = fill(w, &held, &have_held, deadline);
		if (rc || !w->inflight)
			break;
		rc = w->sh->engine->wait(w, 1);
	}
	return rc ? rc : drain(w);
}

/* The final sync round, `depth` files at a time. */
static int final_phase(struct bp_disk_worker *w)
{
	struct bp_disk_req req;
	int rc = 0;

	/* a stop signal also ends this round: the files are removed next, synced or not */
	while (!rc && !w->io_rc && !bp_stop_requested() && bp_disk_gen_final(&w->gen, &req)) {
		if (!w->nfree)
			rc = w->sh->engine->wait(w, 1);
		if (!rc)
			rc = submit(w, &req);
	}
	return rc ? rc : drain(w);
}

static bool stopped(const struct bp_disk_worker *w)
{
	return w->io_rc || bp_stop_requested() || atomic_load(&w->sh->abort);
}

int bp_disk_worker_run(struct bp_disk_worker *w)
{
	uint64_t zero = 0, now = bp_now_ns();
	int rc;

	/* The first worker past the start line sets the clock everyone counts from. */
	atomic_compare_exchange_strong(&w->sh->start_ns, &zero, now);
	w->start_ns = atomic_load(&w->sh->start_ns);
	w->now_ns = now;
	rc = main_phase(w);
	if (!rc && !stopped(w))
		rc = final_phase(w);
	w->end_ns = bp_now_ns();
	if (!rc)
		rc = w->io_rc;
	if (rc)
		atomic_store(&w->sh->abort, true);
	w->rc = rc;
	return rc;
}
