/*
 * The data plane of the TCP tests: a pool of worker threads, one per core (or fewer), each
 * running its own bp_loop; streams (connected TCP sockets) are spread across them and
 * either send as fast as the socket takes data or receive and discard. A stream's counters
 * are written only by its worker and read by the reporter with relaxed atomic loads: no
 * lock and no shared hot cache line on the data path.
 *
 * Life of a stream: bp_stream_add (idle, owned by a worker) -> bp_stream_start (moves data)
 * -> bp_stream_stop (stops moving data; the socket stays open for the final TCP_INFO)
 * -> bp_stream_release (closes and frees). All four may be called from any thread; the work
 * is done on the stream's worker, and stop/release wait until it has happened.
 */
#ifndef BP_IO_STREAM_POOL_H
#define BP_IO_STREAM_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_stream_pool;
struct bp_stream;

enum bp_stream_role {
	BP_STREAM_SEND,
	BP_STREAM_RECV,
	BP_STREAM_CUSTOM,  /* the owner's own handlers (UDP): see bp_stream_add_custom */
};

/*
 * A stream whose data path the owner writes (UDP senders and receivers), run on a pool
 * worker like the TCP streams. Every hook runs on that worker's thread, with its loop.
 */
struct bp_loop;
struct bp_stream_ops {
	int (*start)(void *state, struct bp_loop *loop, int fd);  /* register flows, timers */
	void (*stop)(void *state, struct bp_loop *loop);          /* unregister them */
	void (*release)(void *state);                             /* free state; fd is closed */
};

struct bp_stream_opts {
	size_t write_len;    /* bytes per send() for senders (iperf3 -l; default 128 KiB) */
	bool zerocopy;       /* try MSG_ZEROCOPY for senders, fall back to plain send */
	double pace_bps;     /* TCP -b per stream, bit/s (the caller sets the kernel's pacing
				on the socket too); the sender never writes ahead of it; 0: as
				fast as it goes */
	/* iperf3's -n and -k for a sender: it stops once it has written limit_bytes (whole
	 * writes: the last may pass it, as iperf3's does), then waits for the test's end; 0:
	 * no limit */
	uint64_t limit_bytes;
	/*
	 * A receiver: every byte it reads is handed to inspect(inspect_arg, bytes, n) on the
	 * stream's worker, in order (read into a buffer, never discarded unseen: an iperf 2
	 * --trip-times stream's write times, proto/iperf2_burst.h); NULL: none.
	 */
	void (*inspect)(void *arg, const uint8_t *b, size_t n);
	void *inspect_arg;
};

/*
 * The kernel's pacing (SO_MAX_PACING_RATE) for a stream paced at pace_bps: 10 % above it, so
 * that the sender's own budget (pace_bps) sets the rate and the kernel only spaces the
 * segments of each write. At the rate itself the kernel, counting what it sends its own
 * way, held the payload 1-2 % under it (loopback -b 1M: 98.3 %, veth -b 1G: 98.1 %).
 */
#define BP_STREAM_KERNEL_PACE(pace_bps) ((pace_bps) * 1.1)

/* nworkers >= 1 threads, started now and idle until streams arrive. NULL on failure. */
struct bp_stream_pool *bp_stream_pool_new(int nworkers, char *err, size_t errlen);
/* Stops the workers; every stream must have been released. */
void bp_stream_pool_free(struct bp_stream_pool *p);
int bp_stream_pool_workers(const struct bp_stream_pool *p);

/*
 * Hand fd (a connected TCP socket; the pool owns it from now on) to the least loaded
 * worker. Returns the stream, or NULL with a message (fd is then closed).
 */
struct bp_stream *bp_stream_add(struct bp_stream_pool *p, int fd, enum bp_stream_role role,
				const struct bp_stream_opts *o, char *err, size_t errlen);
/* fd and state belong to the pool from now on (on failure too: released, closed). */
struct bp_stream *bp_stream_add_custom(struct bp_stream_pool *p, int fd,
				       const struct bp_stream_ops *ops, void *state,
				       char *err, size_t errlen);
void bp_stream_start(struct bp_stream *s);
void bp_stream_stop(struct bp_stream *s);
void bp_stream_release(struct bp_stream *s);
/*
 * The same for n streams of one pool at once (n >= 0): every worker does all of its
 * streams' commands in one go, so 128 streams start or stop within one pass of each
 * worker's loop rather than one pass per stream.
 */
void bp_stream_start_all(struct bp_stream *const *s, int n);
void bp_stream_stop_all(struct bp_stream *const *s, int n);
void bp_stream_release_all(struct bp_stream *const *s, int n);

/* Counters, readable from any thread at any time. */
uint64_t bp_stream_bytes(const struct bp_stream *s);  /* sent or received so far */
int bp_stream_fd(const struct bp_stream *s);
int bp_stream_worker(const struct bp_stream *s);      /* index of its worker */
/* 0, or the negative errno that ended it (-ECONNRESET, -EPIPE, ...). */
int bp_stream_error(const struct bp_stream *s);
/* True once a receiver saw the peer close (EOF). */
bool bp_stream_eof(const struct bp_stream *s);

/* Which fast path ran: "msg_zerocopy" or "send" for senders, "msg_trunc" or "copy" for
 * receivers (MSG_TRUNC discards TCP data in the kernel without copying it). */
const char *bp_stream_mode(const struct bp_stream *s);

/* CPU time (user + system, ns) used so far by worker i's thread. */
uint64_t bp_stream_pool_worker_cpu_ns(const struct bp_stream_pool *p, int i);

#endif
