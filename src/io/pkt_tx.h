/*
 * The packet engine's sender (issue 22): UDP datagrams as whole Ethernet frames through an
 * AF_PACKET socket with a memory-mapped TX ring (TPACKET_V2) and PACKET_QDISC_BYPASS.
 *
 * Why: on a weak board the socket path (a system call, UDP and IP output, the qdisc) costs
 * more per datagram than the link does, so every socket-based tester (iperf3, iperf2, our
 * sendmmsg) tops out at about the same packet rate. Here each frame (Ethernet, IPv4 or
 * IPv6, UDP, payload) is written into every ring slot once, when the ring is made; per
 * datagram only the payload header (time, sequence) and the UDP checksum change, the
 * checksum updated from the template's sum by the header's words (RFC 1624), and one
 * sendto hands a whole batch of slots to the driver.
 *
 * What it skips, and so what the user must know: the sending host's qdisc (tbf, fq ...)
 * and its netfilter output hooks never see these frames, and IP fragmentation is not
 * done (payloads must fit the device's MTU). The receiving host sees ordinary datagrams
 * of the stream's 4-tuple, so any receiver (boardperf's, iperf3's) counts them.
 *
 * Needs CAP_NET_RAW: bp_pkt_tx_open returns -EPERM without it, and the caller keeps the
 * socket engine (udp_io.h).
 */
#ifndef BP_IO_PKT_TX_H
#define BP_IO_PKT_TX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/pkt_frame.h"
#include "io/pkt_path.h"
#include "io/udp_io.h"

struct bp_pkt_tx_stats {
	uint64_t frames;      /* handed to the kernel (marked for sending and kicked) */
	uint64_t kicks;       /* sendto calls */
	uint64_t ring_full;   /* batches cut short because no slot was free: the tester's limit */
	uint64_t kick_errors; /* sendto refusals (ENOBUFS from the driver ...); frames retried */
	uint64_t bad_format;  /* slots the kernel refused as malformed (never expected) */
};

struct bp_pkt_tx {
	int fd;
	struct bp_pkt_path path;
	uint8_t *ring;
	size_t ring_len, frame_size;
	unsigned nframes, head;
	size_t data_off;      /* where a slot's frame starts, after the tpacket header */
	struct bp_pkt_frame frame;
	struct bp_pkt_tx_stats st;
};

/*
 * Open the engine for the connected UDP socket udp_fd (its 4-tuple, route and next hop,
 * pkt_path.h), datagrams of payload_len bytes. Returns 0, or -errno with one line in err:
 * -EPERM without CAP_NET_RAW, -EMSGSIZE when a datagram would not fit the device's MTU,
 * the errors of bp_pkt_path_resolve.
 */
int bp_pkt_tx_open(struct bp_pkt_tx *t, int udp_fd, size_t payload_len, char *err,
		   size_t errlen);
void bp_pkt_tx_close(struct bp_pkt_tx *t);

/*
 * Fill up to n frames (fill writes each payload's header, as bp_udp_send_batch's) and hand
 * them to the kernel. Returns how many were queued, fewer than n when the ring is full;
 * those are sent in order, so the caller's sequence numbers stay as they are.
 */
int bp_pkt_tx_send(struct bp_pkt_tx *t, int n, bp_udp_fill_fn fill, void *arg);

/*
 * At the end: kick until every queued frame has left or deadline_ns (monotonic) passes.
 * Returns the frames that never left (counted in frames, not sent: subtract them).
 */
uint64_t bp_pkt_tx_flush(struct bp_pkt_tx *t, uint64_t deadline_ns);

#endif
