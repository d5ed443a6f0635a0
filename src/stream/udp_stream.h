/*
 * A UDP stream on a stream-pool worker (BP_STREAM_CUSTOM): a sender paced by a schedule on
 * the monotonic clock, writing iperf3's datagram header (time, sequence number) into each
 * datagram and sending in batches (UDP GSO or sendmmsg); or a receiver reading in batches
 * (GRO or recvmmsg) that classifies every sequence number and keeps RFC 3550 jitter.
 * Counters are published with relaxed atomics for the reporter thread.
 */
#ifndef BP_STREAM_UDP_STREAM_H
#define BP_STREAM_UDP_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/stream_pool.h"

struct bp_udp_stream_cfg {
	bool sender;
	size_t payload_len;   /* datagram payload, header included */
	double rate_bps;      /* payload bits per second (as iperf3 -b); 0: as fast as possible */
	bool seq64;           /* 64-bit sequence numbers in the header */
	bool gso;             /* sender: try UDP GSO (only where bp_udp_gso_safe says so) */
};

struct bp_udp_stats {
	uint64_t datagrams;     /* sent, or received (duplicates included) */
	uint64_t bytes;         /* payload bytes sent or received */
	uint64_t stalls;        /* sender: calls refused (EAGAIN, ENOBUFS): the tester's limit */
	uint64_t unsent;        /* sender: datagrams due but not accepted by the kernel */
	int64_t lost;           /* receiver: sequence numbers never seen */
	uint64_t out_of_order, duplicates;
	uint64_t kernel_drops;  /* receiver: dropped in this host's socket buffer */
	double jitter_ns;
	char mode[16];          /* the fast path that ran */
};

struct bp_udp_stream;

struct bp_udp_stream *bp_udp_stream_new(const struct bp_udp_stream_cfg *cfg);
extern const struct bp_stream_ops bp_udp_stream_ops;

/* A consistent-enough snapshot from any thread (each field is read atomically). */
void bp_udp_stream_stats(const struct bp_udp_stream *u, struct bp_udp_stats *out);

#endif
