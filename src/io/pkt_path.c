#include "io/pkt_path.h"

#include <errno.h>
#include <linux/if_arp.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/udp_path.h"

/* One reply datagram of a neighbour dump (the kernel fills up to about 32 KiB). */
#define NL_BUF 32768
/* Reply datagrams one dump may take; more neighbours than this is not a test host. */
#define NL_MAX_READS 64

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* The socket's two ends; an IPv4-mapped IPv6 peer would need IPv4 frames on a v6 socket. */
static int endpoints(int fd, struct bp_pkt_path *p, char *err, size_t errlen)
{
	struct sockaddr_storage a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	if (getsockname(fd, (struct sockaddr *)&a, &la) < 0 ||
	    getpeername(fd, (struct sockaddr *)&b, &lb) < 0) {
		int e = errno;

		snprintf(err, errlen, "packet engine: the UDP socket's addresses: %s", strerror(e));
		return -e;
	}
	p->family = b.ss_family;
	if (b.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)&a, *d = (const void *)&b;

		memcpy(p->src, &s->sin_addr, 4);
		memcpy(p->dst, &d->sin_addr, 4);
		p->sport = ntohs(s->sin_port);
		p->dport = ntohs(d->sin_port);
		return 0;
	}
	if (b.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)&a, *d = (const void *)&b;

		/* A dual-stack socket (the server's) talks IPv4 to a mapped peer. */
		bool v4 = IN6_IS_ADDR_V4MAPPED(&d->sin6_addr);

		if (v4 != IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) {
			snprintf(err, errlen, "packet engine: the socket's two ends are of "
				 "different families");
			return -EOPNOTSUPP;
		}
		p->family = v4 ? AF_INET : AF_INET6;
		memcpy(p->src, s->sin6_addr.s6_addr + (v4 ? 12 : 0), v4 ? 4 : 16);
		memcpy(p->dst, d->sin6_addr.s6_addr + (v4 ? 12 : 0), v4 ? 4 : 16);
		p->sport = ntohs(s->sin6_port);
		p->dport = ntohs(d->sin6_port);
		return 0;
	}
	snprintf(err, errlen, "packet engine: address family %d is not IP", b.ss_family);
	return -EOPNOTSUPP;
}

/* RTM_GETROUTE for the peer: the output device and the gateway, if any (hop gets dst). */
static int route(const struct bp_pkt_path *p, uint8_t *hop)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(16)];
	} req;
	char buf[4096];
	struct rtattr *a = (struct rtattr *)(void *)req.attrs;
	int alen = addr_len(p->family), fd = bp_nl_route_open(), oif = -ENETUNREACH, rlen;
	struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
	ssize_t n;

	if (fd < 0)
		return fd;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(req.rt)) + RTA_SPACE(alen));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = (unsigned char)p->family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	a->rta_type = RTA_DST;
	a->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(a), p->dst, (size_t)alen);
	memcpy(hop, p->dst, (size_t)alen);
	n = send(fd, &req, req.nh.nlmsg_len, 0) < 0 ? -1 : recv(fd, buf, sizeof(buf), 0);
	if (n < 0 || !NLMSG_OK(h, (size_t)n) || h->nlmsg_type != RTM_NEWROUTE) {
		close(fd);
		return -ENETUNREACH;
	}
	rlen = (int)RTM_PAYLOAD(h);
	for (a = RTM_RTA(NLMSG_DATA(h)); RTA_OK(a, rlen); a = RTA_NEXT(a, rlen)) {
		if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int))
			memcpy(&oif, RTA_DATA(a), sizeof(int));
		else if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == (size_t)alen)
			memcpy(hop, RTA_DATA(a), (size_t)alen);
	}
	close(fd);
	return oif;
}

/* One neighbour message: 1 with the MAC when it is hop's on ifindex and usable. */
static int neigh_match(struct nlmsghdr *h, const struct bp_pkt_path *p, const uint8_t *hop,
		       uint8_t *mac)
{
	struct ndmsg *nd = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*nd)), alen = addr_len(p->family);
	const uint8_t *dst = NULL, *ll = NULL;

	if (h->nlmsg_type != RTM_NEWNEIGH || nd->ndm_ifindex != p->ifindex ||
	    nd->ndm_family != p->family)
		return 0;
	/* INCOMPLETE and FAILED entries have no MAC worth sending to. */
	if (!(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE |
			       NUD_PERMANENT | NUD_NOARP)))
		return 0;
	for (struct rtattr *a = (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd)));
	     RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == (size_t)alen)
			dst = RTA_DATA(a);
		else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6)
			ll = RTA_DATA(a);
	}
	if (!dst || !ll || memcmp(dst, hop, (size_t)alen))
		return 0;
	memcpy(mac, ll, 6);
	return 1;
}

/* Dump the neighbour table of the family; 0 with the next hop's MAC, or -EHOSTUNREACH. */
static int neighbour(const struct bp_pkt_path *p, const uint8_t *hop, uint8_t *mac)
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
			  .nlmsg_type = RTM_GETNEIGH, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		  .nd = { .ndm_family = (unsigned char)p->family } };
	static char buf[NL_BUF];
	int fd = bp_nl_route_open(), found = 0, done = 0;

	if (fd < 0)
		return fd;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		done = -1;
	/* Read the whole dump, even after a match, so nothing is left half read. */
	for (int r = 0; r < NL_MAX_READS && !done; r++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		size_t left = n > 0 ? (size_t)n : 0;

		if (n <= 0)
			break;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				done = 1;
			else if (!found)
				found = neigh_match(h, p, hop, mac);
		}
	}
	close(fd);
	return found ? 0 : -EHOSTUNREACH;
}

/* The device's type, MAC and MTU. */
static int device(struct bp_pkt_path *p, char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		rc = -errno;
	} else if (ifr.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK) {
		p->loopback = true;
	} else if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		snprintf(err, errlen, "packet engine: %s is not an Ethernet device (type %d)",
			 p->ifname, ifr.ifr_hwaddr.sa_family);
		rc = -EOPNOTSUPP;
	} else {
		memcpy(p->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	}
	if (!rc && ioctl(fd, SIOCGIFMTU, &ifr) < 0)
		rc = -errno;
	if (!rc)
		p->mtu = ifr.ifr_mtu;
	if (rc && rc != -EOPNOTSUPP)
		snprintf(err, errlen, "packet engine: device %s: %s", p->ifname, strerror(-rc));
	close(fd);
	return rc;
}

static void socket_tos(int fd, struct bp_pkt_path *p)
{
	int v = 0;
	socklen_t l = sizeof(v);

	if (p->family == AF_INET ? getsockopt(fd, IPPROTO_IP, IP_TOS, &v, &l) == 0 :
	    getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, &l) == 0)
		p->tos = (uint8_t)(v < 0 ? 0 : v);
}

static bool conf_on(const char *ifname, const char *knob)
{
	char path[96], v = '0';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", ifname, knob);
	f = fopen(path, "r");
	if (f) {
		if (fread(&v, 1, 1, f) != 1)
			v = '0';
		fclose(f);
	}
	return v == '1';
}

/*
 * A frame that did not come from the host's own output carries no route, so IPv4 input
 * routes it like any arriving packet: a local source is a martian there unless
 * accept_local is on, and a 127/8 destination unless route_localnet is (the kernel drops
 * both without a counter: IpInReceives, then nothing). The host's own datagrams over
 * loopback skip that check, which is why the socket engine never meets it.
 */
static int loopback_ok(const struct bp_pkt_path *p, char *err, size_t errlen)
{
	const char *knob = NULL;

	if (p->family != AF_INET)
		return 0;
	if (!conf_on(p->ifname, "accept_local") && !conf_on("all", "accept_local"))
		knob = "accept_local";
	else if (p->dst[0] == 127 && !conf_on(p->ifname, "route_localnet") &&
		 !conf_on("all", "route_localnet"))
		knob = "route_localnet";
	if (!knob)
		return 0;
	snprintf(err, errlen, "packet engine: frames over %s are dropped as martians unless "
		 "net.ipv4.conf.%s.%s=1", p->ifname, p->ifname, knob);
	return -EOPNOTSUPP;
}

int bp_pkt_path_resolve(int fd, struct bp_pkt_path *p, char *err, size_t errlen)
{
	uint8_t hop[16];
	int rc;

	memset(p, 0, sizeof(*p));
	rc = endpoints(fd, p, err, errlen);
	if (rc)
		return rc;
	socket_tos(fd, p);
	p->ifindex = route(p, hop);
	if (p->ifindex < 0 || !if_indextoname((unsigned)p->ifindex, p->ifname)) {
		snprintf(err, errlen, "packet engine: no route to the peer");
		return -ENETUNREACH;
	}
	rc = device(p, err, errlen);
	if (!rc && p->loopback)
		rc = loopback_ok(p, err, errlen);
	if (rc || p->loopback)
		return rc;
	if (neighbour(p, hop, p->dst_mac)) {
		snprintf(err, errlen, "packet engine: no neighbour entry on %s for the next hop",
			 p->ifname);
		return -EHOSTUNREACH;
	}
	return 0;
}
