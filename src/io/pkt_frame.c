#include "io/pkt_frame.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6_ 0x86dd
#define IP_TTL_DEFAULT 64
#define IP_FLAG_DF 0x4000

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t bp_pkt_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	/* 32 bits hold 65535 words of carries: far more than any frame has. */
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

uint16_t bp_pkt_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IPv4 header: DF set and ID 0, as Linux sends unfragmentable datagrams (RFC 6864). */
static void ip4(const struct bp_pkt_path *p, uint8_t *h, size_t ip_len)
{
	memset(h, 0, BP_PKT_IP4_LEN);
	h[0] = 0x45;
	h[1] = p->tos;
	put16(h + 2, (uint16_t)ip_len);
	put16(h + 6, IP_FLAG_DF);
	h[8] = IP_TTL_DEFAULT;
	h[9] = IPPROTO_UDP;
	memcpy(h + 12, p->src, 4);
	memcpy(h + 16, p->dst, 4);
	put16(h + 10, bp_pkt_csum_fold(bp_pkt_csum_add(0, h, BP_PKT_IP4_LEN)));
}

static void ip6(const struct bp_pkt_path *p, uint8_t *h, size_t udp_len)
{
	memset(h, 0, BP_PKT_IP6_LEN);
	h[0] = (uint8_t)(0x60 | p->tos >> 4);
	h[1] = (uint8_t)(p->tos << 4);
	put16(h + 4, (uint16_t)udp_len);
	h[6] = IPPROTO_UDP;
	h[7] = IP_TTL_DEFAULT;
	memcpy(h + 8, p->src, 16);
	memcpy(h + 24, p->dst, 16);
}

/* The pseudo-header's sum (RFC 768, RFC 8200 8.1): addresses, protocol, UDP length. */
static uint32_t pseudo_sum(const struct bp_pkt_path *p, size_t udp_len)
{
	size_t alen = p->family == AF_INET ? 4 : 16;
	uint32_t sum = bp_pkt_csum_add(0, p->src, alen);

	sum = bp_pkt_csum_add(sum, p->dst, alen);
	return sum + IPPROTO_UDP + (uint32_t)udp_len;
}

int bp_pkt_frame_build(const struct bp_pkt_path *p, size_t payload_len, uint8_t *buf,
		       size_t buflen, struct bp_pkt_frame *f)
{
	size_t ip_hdr = p->family == AF_INET ? BP_PKT_IP4_LEN : BP_PKT_IP6_LEN;
	size_t udp_len = BP_PKT_UDP_LEN + payload_len, ip_len = ip_hdr + udp_len;
	uint8_t *u;

	if (p->family != AF_INET && p->family != AF_INET6)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->len = BP_PKT_ETH_LEN + ip_len;
	f->payload_len = payload_len;
	f->udp_off = BP_PKT_ETH_LEN + ip_hdr;
	f->payload_off = f->udp_off + BP_PKT_UDP_LEN;
	if (ip_len > 65535 || ip_len > (size_t)(p->mtu > 0 ? p->mtu : 0) || f->len > buflen)
		return -EMSGSIZE;
	memset(buf, 0, f->len);
	memcpy(buf, p->dst_mac, 6);
	memcpy(buf + 6, p->src_mac, 6);
	put16(buf + 12, p->family == AF_INET ? ETH_P_IPV4 : ETH_P_IPV6_);
	if (p->family == AF_INET)
		ip4(p, buf + BP_PKT_ETH_LEN, ip_len);
	else
		ip6(p, buf + BP_PKT_ETH_LEN, udp_len);
	u = buf + f->udp_off;
	put16(u, p->sport);
	put16(u + 2, p->dport);
	put16(u + 4, (uint16_t)udp_len);
	/* The payload is zero but for each datagram's header: the template sums to this. */
	f->csum_base = bp_pkt_csum_add(pseudo_sum(p, udp_len), u, BP_PKT_UDP_LEN);
	return 0;
}

void bp_pkt_frame_csum(const struct bp_pkt_frame *f, uint8_t *buf, size_t hdr_len)
{
	uint32_t sum = bp_pkt_csum_add(f->csum_base, buf + f->payload_off, hdr_len);
	uint16_t c = bp_pkt_csum_fold(sum);

	/* 0 means "no checksum" in IPv4 and is invalid in IPv6: send its other form. */
	put16(buf + f->udp_off + 6, c ? c : 0xffff);
}
