/*
 * The frame template of the packet engine (pkt_tx.h): Ethernet, IPv4 or IPv6, UDP and a
 * zero payload, built once per stream; and the UDP checksum of one datagram from the
 * template's partial sum plus its payload header (RFC 1071 sums, updated as RFC 1624 says:
 * only the header's words differ from the template, so only they are added).
 */
#ifndef BP_IO_PKT_FRAME_H
#define BP_IO_PKT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "io/pkt_path.h"

#define BP_PKT_ETH_LEN 14
#define BP_PKT_IP4_LEN 20
#define BP_PKT_IP6_LEN 40
#define BP_PKT_UDP_LEN 8

struct bp_pkt_frame {
	size_t len;          /* the whole frame, Ethernet header included, no FCS */
	size_t payload_len;
	size_t udp_off;      /* the UDP header's offset in the frame */
	size_t payload_off;
	uint32_t csum_base;  /* pseudo-header + UDP header + zero payload, not folded */
};

/*
 * Write the template for p and payload_len bytes into buf (buflen bytes). Returns 0, or
 * -EMSGSIZE when the datagram would not fit p's MTU (or buf), -EINVAL for a bad family.
 */
int bp_pkt_frame_build(const struct bp_pkt_path *p, size_t payload_len, uint8_t *buf,
		       size_t buflen, struct bp_pkt_frame *f);

/*
 * Set the UDP checksum of the frame at buf, a copy of the template whose first hdr_len
 * payload bytes (even, the header the caller wrote) are all that differs from it.
 */
void bp_pkt_frame_csum(const struct bp_pkt_frame *f, uint8_t *buf, size_t hdr_len);

/* The 16-bit one's-complement sum of len bytes (an odd tail padded), added to sum. */
uint32_t bp_pkt_csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* Folded and complemented: the checksum field's value in host order. */
uint16_t bp_pkt_csum_fold(uint32_t sum);

#endif
