/*
 * The packet engine's receiver (issue 22): a stream's datagrams read from an AF_PACKET
 * socket's TPACKET_V3 RX ring instead of its UDP socket.
 *
 * A classic BPF program on the stream's 4-tuple (IPv4 or IPv6, UDP, the peer's address
 * and port to ours, no fragments) runs in the kernel before anything is copied, so only
 * the test's packets reach the ring, and only their first bytes (headers and the payload
 * header: BP_PKT_RX_SNAP_PAYLOAD); the datagram's length comes from its UDP header. The
 * kernel fills whole blocks of packets and hands each over as one, so reading costs no
 * system call per datagram, nor per batch while blocks are ready.
 *
 * The same packets still go up the IP stack to the stream's UDP socket; a filter that
 * refuses everything is attached to that socket (bp_pkt_rx_open), so UDP drops them at
 * once, before any socket buffer (counted in the host's UDP InErrors, not in ours).
 *
 * The ring's own drop counter (PACKET_STATISTICS tp_drops: no room in the ring) is the
 * receiving tester's loss, as a UDP socket's SO_RXQ_OVFL is.
 */
#ifndef BP_IO_PKT_RX_H
#define BP_IO_PKT_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/pkt_path.h"
#include "io/udp_io.h"

/* Payload bytes copied to the ring per datagram: the longest header (64-bit counters). */
#define BP_PKT_RX_SNAP_PAYLOAD 16

struct bp_pkt_rx_stats {
	uint64_t datagrams;  /* handed to the handler */
	uint64_t blocks;     /* ring blocks read */
	uint64_t malformed;  /* packets the filter let through that did not parse (never expected) */
};

struct bp_pkt_rx {
	int fd;
	struct bp_pkt_path path;
	uint8_t *ring;
	size_t ring_len, block_size;
	unsigned nblocks, cur;
	uint64_t drops;      /* tp_drops, summed (the kernel resets it on each read) */
	struct bp_pkt_rx_stats st;
};

/*
 * Open the receiver for the connected UDP socket udp_fd (its 4-tuple and the device its
 * peer is routed through). Returns 0, or -errno with one line in err (-EPERM without
 * CAP_NET_RAW, -EOPNOTSUPP on a loopback or a device that is not Ethernet).
 */
int bp_pkt_rx_open(struct bp_pkt_rx *r, int udp_fd, char *err, size_t errlen);
void bp_pkt_rx_close(struct bp_pkt_rx *r);

/*
 * Hand every datagram in the ready blocks to handler (payload pointing at the captured
 * bytes, len the datagram's real payload length, all of one block with the same arrival
 * time). Returns the datagrams read, 0 when no block was ready.
 */
int bp_pkt_rx_read(struct bp_pkt_rx *r, bp_udp_handler_fn handler, void *arg);

/*
 * The datagram in a captured frame of snap bytes (Ethernet, then IPv4 or IPv6 as family
 * says, then UDP; the filter checked the rest): its payload and the length its UDP header
 * gives. False when the capture is too short for the headers, the UDP length is below 8,
 * or the payload header (min(len, BP_PKT_RX_SNAP_PAYLOAD) bytes) was not captured: so a
 * true answer's payload may be read that far. The bytes come from the peer (fuzz_pkt_rx).
 */
bool bp_pkt_rx_parse(int family, const uint8_t *f, size_t snap, const uint8_t **payload,
		     size_t *len);

/* Datagrams the ring had no room for, since it was opened (one system call). */
uint64_t bp_pkt_rx_drops(struct bp_pkt_rx *r);

/*
 * The classic BPF program for p (received: p->dst is the peer, the source), returning
 * snap bytes of a match and 0 otherwise. Fills up to max instructions; returns how many,
 * or -EINVAL. For the unit tests as much as for the socket.
 */
struct sock_filter;
int bp_pkt_rx_filter(const struct bp_pkt_path *p, unsigned snap, struct sock_filter *prog,
		     int max);

#endif
