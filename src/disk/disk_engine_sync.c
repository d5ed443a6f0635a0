/*
 * The sync engine: one request at a time with pread/pwrite/fsync, as sysbench's default
 * --file-io-mode=sync and fio's psync do it. Each request is timed from just before the
 * system call to just after it.
 */
#include <errno.h>
#include <unistd.h>

#include "core/clock.h"
#include "disk/disk_worker.h"

static int sync_init(struct bp_disk_worker *w)
{
	(void)w;
	return 0;
}

/* The call itself; a signal without SA_RESTART may cut it short before any byte moved. */
static int64_t do_request(const struct bp_disk_worker *w, const struct bp_disk_io *io)
{
	const struct bp_disk_req *q = &io->req;
	int fd = w->sh->fds[q->file];
	ssize_t n;

	do {
		switch (q->op) {
		case BP_DISK_READ:
			n = pread(fd, io->buf, q->len, (off_t)q->offset);
			break;
		case BP_DISK_WRITE:
			n = pwrite(fd, io->buf, q->len, (off_t)q->offset);
			break;
		default:
			n = w->sh->datasync ? fdatasync(fd) : fsync(fd);
			break;
		}
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (int64_t)n;
}

static int sync_queue(struct bp_disk_worker *w, struct bp_disk_io *io)
{
	int64_t res;

	io->start_ns = bp_now_ns();
	res = do_request(w, io);
	bp_disk_worker_complete(w, io, res, bp_now_ns());
	return 0;
}

/* Everything completed in queue: nothing to wait for. */
static int sync_wait(struct bp_disk_worker *w, unsigned min)
{
	(void)w;
	(void)min;
	return 0;
}

static void sync_exit(struct bp_disk_worker *w)
{
	(void)w;
}

const struct bp_disk_engine bp_disk_engine_sync = {
	.name = "sync",
	.init = sync_init,
	.queue = sync_queue,
	.wait = sync_wait,
	.exit = sync_exit,
};
