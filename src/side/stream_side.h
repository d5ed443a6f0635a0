/*
 * One side of a TCP or UDP test (the client's or the server's half of a session): its streams in
 * the shared stream pool, the interval series it records, the omitted start, and the
 * results it reports. Client and server run the same code, so their figures are computed
 * the same way.
 */
#ifndef BP_STREAM_STREAM_SIDE_H
#define BP_STREAM_STREAM_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpuacct.h"
#include "proto/results.h"
#include "io/stream_pool.h"
#include "side/udp_stream.h"

struct bp_stream_side {
	struct bp_stream_pool *pool;
	int n;
	struct bp_stream *streams[BP_NET_MAX_STREAMS];
	bool sender[BP_NET_MAX_STREAMS];
	int ids[BP_NET_MAX_STREAMS];
	uint64_t base_bytes[BP_NET_MAX_STREAMS];   /* at the end of the omitted start */
	uint64_t last_bytes[BP_NET_MAX_STREAMS];   /* at the last interval mark */
	uint32_t base_retrans[BP_NET_MAX_STREAMS];
	uint32_t last_retrans[BP_NET_MAX_STREAMS];
	/* UDP streams (NULL for TCP): their counters come from the stream's stats */
	struct bp_udp_stream *udp[BP_NET_MAX_STREAMS];
	uint64_t base_packets[BP_NET_MAX_STREAMS], last_packets[BP_NET_MAX_STREAMS];
	int64_t base_lost[BP_NET_MAX_STREAMS], last_lost[BP_NET_MAX_STREAMS];
	/*
	 * A TCP stream counts what the kernel says reached the receiving TCP (a sender's
	 * tcpi_bytes_acked, a receiver's tcpi_bytes_received) where TCP_INFO has them, else
	 * what it wrote or read; at the stop those counts are frozen before the streams are
	 * (see bp_stream_side_stop).
	 */
	bool tcp[BP_NET_MAX_STREAMS];            /* a TCP data stream (bp_stream_side_add) */
	bool kernel_count[BP_NET_MAX_STREAMS];
	uint64_t end_bytes[BP_NET_MAX_STREAMS];
	bool frozen;
	uint64_t start_ns, omit_ns, last_mark_ns, counted_from_ns, stop_ns;
	bool omit_done, running;
	bool whole_count;           /* -n/-k: a receiver counts from its first byte */
	/*
	 * Data that stopped moving (a cut link, a server gone): what moved so far (bytes received;
	 * for a TCP sender bytes acknowledged, since its socket buffer takes bytes for a while
	 * after nothing gets through) and when that last grew. A stalled side's totals end then.
	 */
	uint64_t base_acked[BP_NET_MAX_STREAMS];
	uint64_t progress, moved_ns;
	bool stalled;
	struct bp_cpu_times cpu0;
	uint64_t *worker_cpu0;      /* per pool worker, at start */
	struct bp_net_results *res; /* intervals accumulate here; totals at stop */
};

/* 0 or -ENOMEM. omit_ns: the start not counted in the totals. */
int bp_stream_side_init(struct bp_stream_side *s, struct bp_stream_pool *pool, uint64_t omit_ns);
void bp_stream_side_free(struct bp_stream_side *s);

/* Adopt a connected socket as stream number id (fd is owned from now on, closed on failure). */
int bp_stream_side_add(struct bp_stream_side *s, int fd, bool sender, int id,
		    const struct bp_stream_opts *o, char *err, size_t errlen);

/* Adopt a connected UDP socket as stream number id, sending or receiving per cfg. */
int bp_stream_side_add_udp(struct bp_stream_side *s, int fd, const struct bp_udp_stream_cfg *cfg,
			int id, char *err, size_t errlen);

/*
 * Adopt a stream whose data path the caller wrote (request/response flows, responders):
 * fd (-1 for none) and state belong to the pool from now on; *out (may be NULL) is the
 * stream, for its worker index.
 */
int bp_stream_side_add_custom(struct bp_stream_side *s, int fd, const struct bp_stream_ops *ops,
			   void *state, bool sender, int id, struct bp_stream **out, char *err,
			   size_t errlen);

void bp_stream_side_start(struct bp_stream_side *s, uint64_t now_ns);
/* Close the interval that ends now (and the omitted start once it has passed). */
void bp_stream_side_mark(struct bp_stream_side *s, uint64_t now_ns);
/*
 * Stop moving data, close the last interval and fill the totals in s->res. The TCP counts
 * are taken at now_ns, before the streams stop: what their socket buffers hand on after it
 * is outside the span.
 */
void bp_stream_side_stop(struct bp_stream_side *s, uint64_t now_ns);
/*
 * Take the TCP counts that end the span now (bp_stream_side_stop does it if this did not):
 * a client that takes them first can tell the server to end its span before it waits for
 * its own streams to stop.
 */
void bp_stream_side_freeze(struct bp_stream_side *s);
/*
 * Sample what moved (see moved_ns) and return the last moment anything did: now when
 * something moved since the last call, the start when nothing ever did. A side of UDP
 * senders alone cannot tell (their bytes leave whether or not they arrive): always now.
 */
uint64_t bp_stream_side_moved(struct bp_stream_side *s, uint64_t now_ns);
/*
 * bp_stream_side_stop for data that stopped moving: the totals cover the span up to the
 * last movement, and a TCP sender counts what was acknowledged, not what it wrote into a
 * socket buffer that never drained.
 */
void bp_stream_side_stop_stalled(struct bp_stream_side *s, uint64_t now_ns);
/* Bytes moved so far by every stream (received_only: only the receiving ones). */
uint64_t bp_stream_side_total_bytes(const struct bp_stream_side *s, bool received_only);
/*
 * What the side's sending (or receiving) streams moved so far, in -n/-k's units: TCP bytes
 * (a sender's acknowledged where TCP_INFO says), UDP datagrams (a receiver's with those it
 * knows lost, so that the last one arriving completes the count).
 */
void bp_stream_side_counts(const struct bp_stream_side *s, bool sending, uint64_t *tcp_bytes,
			   uint64_t *udp_datagrams);
/*
 * What this side's TCP senders wrote (the pool's count), and whether the peer has yet to
 * acknowledge some of it (TCP_INFO; false where the kernel does not count).
 */
uint64_t bp_stream_side_written(const struct bp_stream_side *s);
bool bp_stream_side_acks_pending(const struct bp_stream_side *s);
/* The first stream error, or 0. */
int bp_stream_side_error(const struct bp_stream_side *s);
/* Hand every stream back to the pool (closes the sockets). */
void bp_stream_side_release(struct bp_stream_side *s);

#endif
