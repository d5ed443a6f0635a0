/*
 * The header iperf3 writes at the start of every UDP datagram, and the 4-byte "connect"
 * exchange that opens a UDP stream, so boardperf's UDP streams and a stock iperf3's can
 * read each other.
 *
 * Datagram layout (esnet/iperf src/iperf_udp.c: iperf_udp_send writes it, iperf_udp_recv
 * reads it), every field in network byte order:
 *
 *   offset 0  u32  seconds       \  the sender's clock when it filled the datagram; iperf3
 *   offset 4  u32  microseconds  /  reads CLOCK_MONOTONIC, so only differences mean anything
 *   offset 8  u32  sequence         or u64 when both ends agreed "udp_counters_64bit"
 *
 * The first datagram of a stream carries sequence 1 (the receiver expects "highest seen
 * + 1" and starts from 0). A 32-bit sequence wraps after 2^32 datagrams: 49 minutes at
 * 1.5 Mpps, which is why the 64-bit option exists. Bytes after the header are filler.
 * iperf3 refuses UDP lengths under 16 or over 65507 whichever counter width is in use
 * (MIN_UDP_BLOCKSIZE, MAX_UDP_BLOCKSIZE in src/iperf.h).
 *
 * It is the data plane's wire format, so it sits in io/ with the senders that write it:
 * the packet engine (pkt_tx.c) re-checksums exactly these leading bytes of every frame.
 */
#ifndef BP_IO_UDP_HEADER_H
#define BP_IO_UDP_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_UDP_HDR_LEN_SEQ32 12
#define BP_UDP_HDR_LEN_SEQ64 16
/* iperf3's limits for -l with UDP: 4 + 4 + 8, and 65535 - 8 (UDP) - 20 (IPv4). */
#define BP_UDP_IPERF_MIN_LEN 16
#define BP_UDP_IPERF_MAX_LEN 65507

struct bp_udp_header {
	uint32_t sec;
	uint32_t usec;
	uint64_t seq; /* only the low 32 bits travel when the counters are 32-bit */
};

/* Bytes the header takes: 12 with 32-bit counters, 16 with 64-bit ones. */
size_t bp_udp_header_len(bool seq64);

/*
 * Write h at buf. Returns the header length, or -EMSGSIZE when len cannot hold it.
 * With 32-bit counters the sequence is truncated, as iperf3 does.
 */
int bp_udp_header_encode(void *buf, size_t len, const struct bp_udp_header *h, bool seq64);

/*
 * A 64-bit sequence above 2^62 never comes from a real sender (2^62 datagrams take 97,000
 * years at 1.5 Mpps); refused, the receiver's loss and window arithmetic (side/udp_seq.c)
 * can neither wrap nor overflow on a crafted one.
 */
#define BP_UDP_SEQ64_MAX (1ULL << 62)
#define BP_US_PER_SEC 1000000u

/*
 * Read a header from a received datagram of len bytes: its length, -EMSGSIZE when len
 * cannot hold it, -EBADMSG when a field is outside its domain (microseconds of 10^6 or
 * more, a sequence above BP_UDP_SEQ64_MAX): such a datagram counts as bytes, not as a
 * datagram of the stream.
 */
int bp_udp_header_decode(const void *buf, size_t len, bool seq64, struct bp_udp_header *h);

/* Monotonic ns <-> the header's seconds and microseconds (seconds wrap at 2^32, 136 years). */
void bp_udp_header_set_time(struct bp_udp_header *h, uint64_t ns);
uint64_t bp_udp_header_time_ns(const struct bp_udp_header *h);

/*
 * The UDP "connect" exchange (src/iperf.h UDP_CONNECT_MSG and UDP_CONNECT_REPLY; sent in
 * iperf_udp_connect and iperf_udp_accept, src/iperf_udp.c). The client sends 4 bytes on
 * its data socket so the server learns its address and connects to it; the server then
 * answers with 4 bytes. iperf3 defines these as host-order integers chosen per byte order
 * so that the wire is the same everywhere; we define the wire bytes directly:
 *   client -> server  "9876"  39 38 37 36
 *   server -> client  "6789"  36 37 38 39
 * Before 3.12 the values were the integers 123456789 and 987654321 written in host order.
 * iperf3 (3.12+) clients still accept the legacy reply as a little-endian host wrote it,
 * b1 68 de 3a; iperf3 servers never look at what the client sent. Big-endian iperf3 before
 * 3.17 wrote both textual values byte-swapped; current iperf3 refuses those and so do we.
 * In reverse mode the client skips a few early data datagrams while it waits for the reply
 * (MAX_REVERSE_OUT_OF_ORDER_PACKETS), because the server may start sending at once.
 */
#define BP_UDP_CONNECT_LEN 4
#define BP_UDP_CONNECT_MSG "9876"
#define BP_UDP_CONNECT_REPLY "6789"
#define BP_UDP_LEGACY_CONNECT_MSG 123456789u
#define BP_UDP_LEGACY_CONNECT_REPLY 987654321u

/* A datagram a client sent to open a stream: the textual value, or the legacy one in either order. */
bool bp_udp_is_connect_msg(const void *buf, size_t len);

/* A server's reply, accepted exactly as iperf3 3.17+ clients accept it (len >= 4). */
bool bp_udp_is_connect_reply(const void *buf, size_t len);

#endif
