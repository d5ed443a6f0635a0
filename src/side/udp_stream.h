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

#include "stats/welford.h"

#include "io/stream_pool.h"

/* How long a stopping receiver may go on reading what is still queued in its socket or
 * still arriving (a sender that stops a control message after this end, -R). */
#define BP_UDP_DRAIN_NS (20ULL * 1000000ULL)

struct bp_udp_stream_cfg {
	bool sender;
	size_t payload_len;   /* datagram payload, header included */
	double rate_bps;      /* payload bits per second (as iperf3 -b); 0: as fast as possible */
	bool seq64;           /* 64-bit sequence numbers in the header */
	bool gso;             /* sender: try UDP GSO (only where bp_udp_gso_safe says so) */
	uint64_t limit_datagrams; /* sender: iperf3's -k (or -n in whole datagrams): it stops
				   * after that many and waits for the test's end; 0: none */
	struct bp_pkt_tx *pkt;  /* sender: the packet engine (io/pkt_tx.h), owned by the
				 * stream from bp_udp_stream_new on; NULL: the socket engine */
	struct bp_pkt_rx *pkt_rx;  /* receiver: the packet engine's RX ring (io/pkt_rx.h),
				    * owned likewise; NULL: the socket engine */
	/* iperf 2's datagrams (proto/iperf2_udp.h): a receiver's numbered from 1, the sender's
	 * last one (FIN) counted once and noted in the stats, its repeats only counted; a
	 * sender's carry their number and time in iperf 2's order, then iperf2_hdr (its test
	 * header, iperf2_hdr_len bytes) */
	bool iperf2;
	/* a receiver's FIN is no data (iperf -c -R counts it out; iperf -s counts it in) */
	bool iperf2_fin_not_data;
	uint8_t iperf2_hdr[112];     /* BP_IPERF2_UDP_HEADER_START_LEN at most */
	size_t iperf2_hdr_len;
};

struct bp_udp_stats {
	uint64_t datagrams;     /* sent, or received (duplicates included) */
	uint64_t bytes;         /* payload bytes sent or received */
	uint64_t stalls;        /* sender: calls refused (EAGAIN, ENOBUFS): the tester's limit */
	uint64_t unsent;        /* sender: datagrams due but not accepted by the kernel */
	int64_t lost;           /* receiver: sequence numbers never seen */
	uint64_t out_of_order, duplicates;
	uint64_t implausible;   /* receiver: forged jumps and transits ignored (udp_seq.h) */
	uint64_t kernel_drops;  /* receiver: dropped in this host's socket buffer */
	double jitter_ns;
	/* receiver, iperf 2: its sender's FIN came (1), when (bp_now_ns), the highest sequence
	 * number seen, and how many repeats of the FIN came after it */
	uint64_t fin, fin_ns, top_seq, fin_repeats;
	/*
	 * receiver, iperf 2: its data datagrams' transits (this host's wall clock at arrival
	 * less the send time each carries: the one-way delay when both clocks agree), ns
	 */
	struct bp_welford transit;
	char mode[16];          /* the fast path that ran */
};

struct bp_udp_stream;
struct bp_pkt_tx;
struct bp_pkt_rx;

struct bp_udp_stream *bp_udp_stream_new(const struct bp_udp_stream_cfg *cfg);
/*
 * A receiver's datagram that came before its socket did (a server reads a stock iperf 2
 * client's first datagrams from its listening socket): counted as if it came on the
 * stream. Only before the stream starts (its worker has not touched it yet).
 */
void bp_udp_stream_seed(struct bp_udp_stream *u, const uint8_t *payload, size_t len,
			uint64_t arrival_ns);
extern const struct bp_stream_ops bp_udp_stream_ops;

/*
 * The packet engine for a sending stream on the connected UDP socket fd (io/pkt_tx.h), or
 * NULL when it cannot run here (no CAP_NET_RAW, a device that is not Ethernet, a datagram
 * over the MTU ...): then one line says why and that the socket engine runs instead,
 * once while *warned is false (warned NULL: once per process). The result goes into bp_udp_stream_cfg.pkt.
 */
struct bp_pkt_tx *bp_udp_packet_engine(int fd, size_t payload_len, bool *warned);

/* The same for a receiving stream: an RX ring on the stream's 4-tuple, or NULL (one line). */
struct bp_pkt_rx *bp_udp_packet_receiver(int fd, bool *warned);

/* --engine's names, in the order of enum bp_udp_engine; NULL-terminated. */
enum bp_udp_engine { BP_UDP_ENGINE_SOCKET, BP_UDP_ENGINE_PACKET };
extern const char *const bp_udp_engine_names[];

/* --engine's help line, shared by udp and rfc2544. */
#define BP_UDP_ENGINE_HELP "socket (sendmmsg, through the qdisc and firewall) or packet " \
	"(AF_PACKET TX ring, needs CAP_NET_RAW; bypasses this host's qdisc and firewall)"

/* "packet" when the path named mode is the packet engine's (tx_ring, rx_ring), else "socket". */
const char *bp_udp_engine_of_mode(const char *mode);

/* A consistent-enough snapshot from any thread (each field is read atomically). */
void bp_udp_stream_stats(const struct bp_udp_stream *u, struct bp_udp_stats *out);

#endif
