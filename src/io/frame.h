/*
 * Ethernet frame arithmetic for the UDP tests and RFC 2544: which UDP payload makes a frame
 * of a given size, how many bytes a frame occupies on the wire, and the frame rates a link
 * or a tbf qdisc admits.
 *
 * A "frame size" is what RFC 2544 means by it: the Ethernet frame from destination address
 * through FCS (64...1518 bytes without a VLAN tag). On the wire every frame also costs
 * 8 bytes of preamble+SFD and 12 bytes of inter-frame gap, so a 1 Gbit/s link carries at
 * most 10^9 / ((64 + 20) * 8) = 1,488,095 frames of 64 bytes per second.
 *
 * ip_version is 4 or 6 (the values of BP_FAMILY_V4/V6 in io/sock.h). Options and
 * extension headers are never used by the tests, so the IP header is 20 or 40 bytes.
 */
#ifndef BP_IO_FRAME_H
#define BP_IO_FRAME_H

#include <stddef.h>

#define BP_ETH_HDR_LEN	14	/* destination, source, EtherType */
#define BP_ETH_FCS_LEN	4
#define BP_ETH_WIRE_EXTRA 20	/* preamble+SFD 8 + inter-frame gap 12 */
#define BP_IPV4_HDR_LEN	20
#define BP_IPV6_HDR_LEN	40
#define BP_UDP_HDR_LEN	8

#define BP_FRAME_MIN	64	/* shorter frames are runts; the NIC pads up to this */
#define BP_FRAME_MAX	1518	/* 1500-byte MTU + 14 header + 4 FCS */
/* The largest jumbo frame common switches accept (9198-byte MTU); no standard exists. */
#define BP_FRAME_JUMBO_MAX 9216

/* The RFC 2544 §9.1 frame sizes for Ethernet, the default set of `boardperf rfc2544`. */
extern const unsigned bp_frame_rfc2544_sizes[7];

enum bp_frame_flags {
	BP_FRAME_ALLOW_JUMBO = 1 << 0,	/* accept frames above 1518, up to BP_FRAME_JUMBO_MAX */
};

/* Bytes of Ethernet + IP + UDP header and FCS around a UDP payload: 46 (IPv4) or 66 (IPv6). */
size_t bp_frame_overhead(unsigned ip_version);

/*
 * The UDP payload that fills a frame of frame_len bytes (with FCS): frame - 14 - 4 - 20|40 - 8,
 * e.g. 18 for a 64-byte IPv4 frame, 1472 (IPv4) or 1452 (IPv6) for 1518 bytes.
 * min_payload is the smallest payload the test can use (its own datagram header: sequence
 * number and timestamp), so a frame too small to carry it is refused rather than silently
 * grown. Returns 0, or -EINVAL with a message that names the smallest usable frame.
 */
int bp_frame_payload(unsigned frame_len, unsigned ip_version, size_t min_payload,
		     unsigned flags, size_t *payload, char *err, size_t errlen);

/*
 * The frame (with FCS) that carries one UDP datagram of payload bytes; short frames are
 * padded to 64 bytes. Above the link's MTU the datagram is fragmented and this is not the
 * size of any one frame: callers check the MTU themselves.
 */
size_t bp_frame_from_payload(size_t payload, unsigned ip_version);

/* Bytes a frame occupies on the wire, preamble and inter-frame gap included: frame + 20. */
size_t bp_frame_wire_bytes(unsigned frame_len);

/* Theoretical maximum frames/s on a link of link_bps (bit/s): link / ((frame + 20) * 8). */
double bp_frame_max_fps(double link_bps, unsigned frame_len);

/* Line rate (bit/s incl. preamble and gap) that fps frames/s occupy: fps * (frame + 20) * 8. */
double bp_frame_line_bps(double fps, unsigned frame_len);

/* Frame-layer bit rate (frame with FCS, no preamble or gap): fps * frame * 8. */
double bp_frame_bps(double fps, unsigned frame_len);

/*
 * What tc's tbf charges for one frame on a Linux interface: skb->len, which holds the
 * Ethernet header but neither FCS nor preamble and gap (tbf adds those only when told
 * with `overhead`), so frame - 4. This holds for frames that bp_frame_payload accepts,
 * whose payload fills the frame: a driver pads short frames only after the qdisc, and
 * veth never does.
 */
size_t bp_frame_tbf_bytes(unsigned frame_len);

/* Frames/s a tbf rate of tbf_bps (bit/s, as tc counts them) admits: R / ((frame - 4) * 8). */
double bp_frame_tbf_fps(double tbf_bps, unsigned frame_len);

#endif
