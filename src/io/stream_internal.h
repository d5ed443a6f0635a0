/*
 * Shared between stream_pool.c (the worker threads, the commands they take, a stream's life
 * from add to release) and stream_data.c (the data path: what a worker does when a stream's
 * socket is ready). Nothing here is for other folders; they have io/stream_pool.h.
 */
#ifndef BP_IO_STREAM_INTERNAL_H
#define BP_IO_STREAM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "io/loop.h"
#include "io/stream_pool.h"

/* iperf3's limit for -l over TCP. */
#define MAX_WRITE_LEN (1024 * 1024)

enum mode { MODE_SEND, MODE_ZEROCOPY, MODE_TRUNC, MODE_COPY };

struct cmd;

struct worker {
	struct bp_stream_pool *pool;
	int index;
	pthread_t thread;
	clockid_t cpu_clock;
	bool cpu_clock_ok;
	struct bp_loop *loop;
	struct cmd *head;         /* pool->lock */
	int nstreams;             /* pool->lock: added and not yet released */
	bool quit;                /* worker thread only, like everything below */
	char *sendbuf;            /* MAX_WRITE_LEN, only touched up to sendlen */
	size_t sendlen;           /* bytes filled with the pattern, never modified afterwards */
	char *recvbuf;            /* only for the copy fallback */
	int nsenders;             /* worker thread only: sending streams holding sendbuf */
};

struct bp_stream {
	struct bp_flow flow;
	struct worker *w;
	enum bp_stream_role role;
	size_t write_len;
	int burst;                /* sends per writable event */
	bool registered;          /* in the worker's epoll set */
	bool holds_sendbuf;       /* counted in w->nsenders (its OP_ADD got the buffer) */
	bool zc;                  /* sending with MSG_ZEROCOPY */
	bool zc_wait;             /* ENOBUFS: EPOLLOUT off until completions free optmem */
	uint32_t zc_issued, zc_done;
	uint64_t limit_bytes;     /* -n, -k: a sender stops once it wrote this much (0: none) */
	uint64_t total;           /* the worker's own count ... */
	uint64_t bytes;           /* ... published with relaxed atomics */
	int error, mode;          /* relaxed atomics */
	bool eof;                 /* relaxed atomic */
	double pace_rate;         /* TCP -b in bytes per ns, 0: unpaced (stream_data.c) */
	uint64_t pace_t0;         /* the first paced write's bp_now_ns(), 0 before it */
	size_t pace_chunk;        /* the least a paced send waits to have due */
	struct bp_timer pace_timer; /* armed while the rate holds the sender back */
	void (*inspect)(void *arg, const uint8_t *b, size_t n);  /* a receiver's (opts) */
	void *inspect_arg;
	const struct bp_stream_ops *ops; /* BP_STREAM_CUSTOM */
	void *state;
	bool custom_running;
};

/* Data path, called by the pool (stream_data.c). */

/* Socket options and handlers; on the caller's thread, before the worker sees s. */
void bp_stream_data_init(struct bp_stream *s, int fd, enum bp_stream_role role,
			 const struct bp_stream_opts *o);
/* On w's thread: a send buffer of at least len pattern bytes. 0 or -ENOMEM. */
int bp_stream_data_sendbuf(struct worker *w, size_t len);
/* On the stream's worker: into its epoll set (unless it ended) and out of it again. */
void bp_stream_data_start(struct bp_stream *s);
void bp_stream_data_stop(struct bp_stream *s);

#endif
