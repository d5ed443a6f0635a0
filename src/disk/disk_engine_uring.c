/*
 * The io_uring engine (liburing): up to --depth requests in flight per worker, each worker
 * with its own ring. What makes it cheap per request, where the kernel allows it:
 * - the files and buffers are registered once (IORING_REGISTER_FILES/_BUFFERS), so the
 *   kernel neither looks up a descriptor nor pins pages per request (READ_FIXED/
 *   WRITE_FIXED); when registering is refused (an old kernel's memlock limit) plain
 *   requests run, and the result's params say which ran;
 * - every completion available is reaped in one pass, after one wait;
 * - with --direct, each request is submitted the moment it is queued, as fio does by
 *   default: a batch submitted at once is plugged and reaches the device together, which
 *   on a virtio disk measured 8-10 % fewer IOPS at depth 32 (45-48 k against 51-52 k) than
 *   starting each at once; without --direct the requests mostly complete from the page
 *   cache, the system call is the cost, and what was queued together is submitted in the
 *   same call as the wait (548 k against 470 k IOPS there).
 * Latency runs from just before the submitting system call to just after the wake-up
 * that saw the completion; requests submitted together share their start time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <liburing.h>

#include "core/clock.h"
#include "disk/disk_worker.h"

struct uring_state {
	struct io_uring ring;
	bool fixed_files, fixed_bufs;
	bool deferred;      /* DEFER_TASKRUN: completions run when this thread asks */
	unsigned *pending;  /* slots queued since the last submit */
	unsigned npending;
};

static bool register_buffers(struct uring_state *s, const struct bp_disk_worker *w)
{
	unsigned depth = w->sh->depth;
	struct iovec *iov = calloc(depth, sizeof(*iov));
	bool ok;

	if (!iov)
		return false;
	for (unsigned i = 0; i < depth; i++)
		iov[i] = (struct iovec){ .iov_base = w->ios[i].buf,
					 .iov_len = w->sh->wl->layout.block };
	ok = io_uring_register_buffers(&s->ring, iov, depth) == 0;
	free(iov);
	return ok;
}

/*
 * The cheapest ring the kernel offers: task work (the completion side of each request)
 * runs only when this thread asks for completions, not through interrupting IPIs
 * (COOP_TASKRUN, 5.19; DEFER_TASKRUN with SINGLE_ISSUER, 6.1; fio asks for the same). A
 * ring is made and used by its worker's thread alone, as SINGLE_ISSUER requires.
 */
static int setup_ring(struct uring_state *s, unsigned depth)
{
	static const unsigned tries[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int rc = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && rc == -EINVAL; i++) {
		struct io_uring_params p = { .flags = tries[i] };

		rc = io_uring_queue_init_params(depth, &s->ring, &p);
		if (!rc)
			s->deferred = tries[i] & IORING_SETUP_DEFER_TASKRUN;
	}
	return rc;
}

static int uring_init(struct bp_disk_worker *w)
{
	struct uring_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(s->pending = calloc(w->sh->depth, sizeof(*s->pending)))) {
		free(s);
		snprintf(w->err, sizeof(w->err), "io_uring: out of memory");
		return -ENOMEM;
	}
	rc = setup_ring(s, w->sh->depth);
	if (rc) {
		snprintf(w->err, sizeof(w->err), "--engine io_uring: io_uring_setup: %s%s",
			 strerror(-rc), rc == -ENOSYS || rc == -EPERM ?
			 " (the kernel has io_uring off or lacks it; use --engine sync)" : "");
		free(s->pending);
		free(s);
		return rc;
	}
	s->fixed_files = io_uring_register_files(&s->ring, w->sh->fds,
						 w->sh->wl->layout.nfiles) == 0;
	s->fixed_bufs = register_buffers(s, w);
	snprintf(w->engine_note, sizeof(w->engine_note), "%s files, %s buffers%s, %s",
		 s->fixed_files ? "registered" : "plain", s->fixed_bufs ? "registered" : "plain",
		 s->deferred ? ", deferred task work" : "",
		 w->sh->direct ? "each request submitted at once" : "batched submits");
	w->engine_state = s;
	return 0;
}

/* Hands the queued request to the kernel; a signal or a full ring only delays it. */
static int submit_now(struct bp_disk_worker *w, struct uring_state *s)
{
	int rc;

	do
		rc = io_uring_submit(&s->ring);
	while (rc == -EINTR || rc == -EAGAIN);
	if (rc >= 0)
		return 0;
	snprintf(w->err, sizeof(w->err), "io_uring_submit: %s", strerror(-rc));
	return rc;
}

static int uring_queue(struct bp_disk_worker *w, struct bp_disk_io *io)
{
	struct uring_state *s = w->engine_state;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	const struct bp_disk_req *q = &io->req;
	int fd = s->fixed_files ? (int)q->file : w->sh->fds[q->file];

	/* never more in flight than the ring has entries, so there is always one */
	if (!sqe) {
		snprintf(w->err, sizeof(w->err), "io_uring: submission queue full");
		return -EBUSY;
	}
	if (q->op == BP_DISK_SYNC)
		io_uring_prep_fsync(sqe, fd, w->sh->datasync ? IORING_FSYNC_DATASYNC : 0);
	else if (s->fixed_bufs && q->op == BP_DISK_READ)
		io_uring_prep_read_fixed(sqe, fd, io->buf, q->len, q->offset, (int)io->slot);
	else if (s->fixed_bufs)
		io_uring_prep_write_fixed(sqe, fd, io->buf, q->len, q->offset, (int)io->slot);
	else if (q->op == BP_DISK_READ)
		io_uring_prep_read(sqe, fd, io->buf, q->len, q->offset);
	else
		io_uring_prep_write(sqe, fd, io->buf, q->len, q->offset);
	if (s->fixed_files)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, io);
	if (!w->sh->direct) {
		s->pending[s->npending++] = io->slot;
		return 0;
	}
	io->start_ns = bp_now_ns();
	return submit_now(w, s);
}

/* Every completion already posted, stamped with one clock read. */
static unsigned reap(struct bp_disk_worker *w, struct uring_state *s)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;
	uint64_t now = bp_now_ns();

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		bp_disk_worker_complete(w, io_uring_cqe_get_data(cqe), cqe->res, now);
		n++;
	}
	io_uring_cq_advance(&s->ring, n);
	return n;
}

static int uring_wait(struct bp_disk_worker *w, unsigned min)
{
	struct uring_state *s = w->engine_state;
	uint64_t now = bp_now_ns();
	unsigned done = 0;

	for (unsigned i = 0; i < s->npending; i++)
		w->ios[s->pending[i]].start_ns = now;
	s->npending = 0;
	while (done < min) {
		int rc = io_uring_submit_and_wait(&s->ring, min - done);

		/* a signal interrupts the wait, not the requests: wait on for them */
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN) {
			snprintf(w->err, sizeof(w->err), "io_uring_submit_and_wait: %s",
				 strerror(-rc));
			return rc;
		}
		done += reap(w, s);
	}
	return 0;
}

static void uring_exit(struct bp_disk_worker *w)
{
	struct uring_state *s = w->engine_state;

	if (!s)
		return;
	/*
	 * Called once nothing is in flight (the worker drains first), except after the ring
	 * itself failed; registered buffers stay pinned until the kernel lets go of them.
	 */
	io_uring_queue_exit(&s->ring);
	free(s->pending);
	free(s);
	w->engine_state = NULL;
}

const struct bp_disk_engine bp_disk_engine_uring = {
	.name = "io_uring",
	.init = uring_init,
	.queue = uring_queue,
	.wait = uring_wait,
	.exit = uring_exit,
};
