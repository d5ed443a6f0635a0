#include "io/udp_path.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* Room for one reply datagram of a qdisc dump (the kernel fills up to about 32 KiB). */
#define NL_BUF 32768
/* Reply datagrams one dump may take; a host with more qdiscs than this is not a board. */
#define NL_MAX_READS 64

/*
 * Qdiscs that enqueue or drop a GSO skb as one: a drop then refuses every datagram in it
 * (ENOBUFS with IP_RECVERR), so the sender's count stays exact. tbf, cake, netem and taprio
 * segment skbs themselves and may drop some of the pieces unseen; anything not listed is
 * taken to be one of those. ingress and clsact only see what arrives.
 */
static const char *const whole_kinds[] = {
	"pfifo_fast", "pfifo", "bfifo", "noqueue", "fq_codel", "fq", "fq_pie", "codel", "pie",
	"sfq", "mq", "prio", "ingress", "clsact",
};

bool bp_qdisc_keeps_gso_whole(const char *kind)
{
	for (size_t i = 0; i < sizeof(whole_kinds) / sizeof(whole_kinds[0]); i++)
		if (strcmp(kind, whole_kinds[i]) == 0)
			return true;
	return false;
}

int bp_nl_route_open(void)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	/* The kernel answers at once; the timeout only bounds a broken sandbox. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The attribute of type want among the len bytes at a, or NULL. */
static struct rtattr *find_attr(struct rtattr *a, int len, unsigned short want)
{
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == want)
			return a;
	return NULL;
}

/* dst as the key of a route request: family, address bytes and their length. */
static int route_key(const struct sockaddr *dst, int *family, const void **addr, size_t *alen)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (dst->sa_family == AF_INET) {
		*family = AF_INET;
		*addr = &((const struct sockaddr_in *)(const void *)dst)->sin_addr;
		*alen = 4;
	} else if (dst->sa_family == AF_INET6) {
		const uint8_t *b = ((const struct sockaddr_in6 *)(const void *)dst)->sin6_addr.s6_addr;

		/* A dual-stack socket's IPv4 peer is routed by the IPv4 table. */
		bool v4 = memcmp(b, mapped, sizeof(mapped)) == 0;

		*family = v4 ? AF_INET : AF_INET6;
		*addr = v4 ? b + 12 : b;
		*alen = v4 ? 4 : 16;
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}

static int route_reply(int fd, char *ifname, size_t iflen)
{
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);
	struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
	struct rtattr *oif;
	int idx;

	if (n < 0)
		return -errno;
	if (!NLMSG_OK(h, (size_t)n))
		return -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(h);

		/* error 0 would be an acknowledgement, which a route request does not get */
		return e->error ? e->error : -ENETUNREACH;
	}
	if (h->nlmsg_type != RTM_NEWROUTE)
		return -EBADMSG;
	oif = find_attr(RTM_RTA(NLMSG_DATA(h)), (int)RTM_PAYLOAD(h), RTA_OIF);
	if (!oif || RTA_PAYLOAD(oif) < sizeof(int))
		return -ENETUNREACH;
	memcpy(&idx, RTA_DATA(oif), sizeof(idx));
	if (iflen && !if_indextoname((unsigned)idx, ifname))
		snprintf(ifname, iflen, "if%d", idx);
	return idx;
}

int bp_route_out_dev(const struct sockaddr *dst, char *ifname, size_t iflen)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(16)];
	} req;
	struct rtattr *a = (struct rtattr *)(void *)req.attrs;
	const void *addr;
	size_t alen;
	int family, fd, rc = route_key(dst, &family, &addr, &alen);

	if (rc)
		return rc;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(req.rt)) + RTA_SPACE(alen));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	a->rta_type = RTA_DST;
	a->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(a), addr, alen);
	fd = bp_nl_route_open();
	if (fd < 0)
		return fd;
	rc = send(fd, &req, req.nh.nlmsg_len, 0) < 0 ? -errno : route_reply(fd, ifname, iflen);
	close(fd);
	return rc;
}

/*
 * Walk one reply datagram of a qdisc dump. Returns 1 at the dump's end, 0 for more to
 * come, -errno on an error; the first qdisc of ifindex that splits GSO goes into bad.
 */
static int qdisc_part(char *buf, size_t n, int ifindex, char *bad, size_t badlen)
{
	for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		struct tcmsg *tc = NLMSG_DATA(h);
		struct rtattr *kind;

		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			int e = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;

			return e ? e : -EBADMSG;
		}
		if (h->nlmsg_type != RTM_NEWQDISC || tc->tcm_ifindex != ifindex || bad[0] ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
			continue;
		kind = find_attr((struct rtattr *)(void *)((char *)tc + NLMSG_ALIGN(sizeof(*tc))),
				 (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc))), TCA_KIND);
		if (kind && !bp_qdisc_keeps_gso_whole(RTA_DATA(kind)))
			snprintf(bad, badlen, "%.*s", (int)RTA_PAYLOAD(kind), (const char *)RTA_DATA(kind));
	}
	return 0;
}

/* The first qdisc on ifindex that splits GSO skbs, into bad ("" when none). 0 or -errno. */
static int qdisc_splitter(int ifindex, char *bad, size_t badlen)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
			  .nlmsg_type = RTM_GETQDISC, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		  .tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex } };
	char *buf = malloc(NL_BUF);
	int fd = bp_nl_route_open(), rc = buf ? 0 : -ENOMEM;

	bad[0] = '\0';
	if (fd < 0) {
		free(buf);
		return fd;
	}
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		rc = -errno;
	for (int i = 0; !rc && i < NL_MAX_READS; i++) {
		ssize_t n = recv(fd, buf, NL_BUF, 0);

		rc = n < 0 ? -errno : qdisc_part(buf, (size_t)n, ifindex, bad, badlen);
	}
	free(buf);
	close(fd);
	/* rc 1: the dump ended; 0: it did not within NL_MAX_READS, so the list is incomplete */
	return rc == 1 ? 0 : rc < 0 ? rc : -E2BIG;
}

bool bp_udp_gso_safe(int fd, const char *sys_root, char *why, size_t whylen)
{
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	char dev[IF_NAMESIZE + 8] = "", path[256], bad[32];
	int idx;

	if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0) {
		snprintf(why, whylen, "peer unknown: %s", strerror(errno));
		return false;
	}
	idx = bp_route_out_dev((const struct sockaddr *)&peer, dev, sizeof(dev));
	if (idx < 0) {
		snprintf(why, whylen, "route unknown: %s", strerror(-idx));
		return false;
	}
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", sys_root, dev);
	if (access(path, F_OK) != 0) {
		snprintf(why, whylen, "%s: not a physical NIC", dev);
		return false;
	}
	if (qdisc_splitter(idx, bad, sizeof(bad)) < 0) {
		snprintf(why, whylen, "%s: qdiscs unknown", dev);
		return false;
	}
	if (bad[0]) {
		snprintf(why, whylen, "%s: qdisc %s splits GSO sends", dev, bad);
		return false;
	}
	snprintf(why, whylen, "%s: physical NIC", dev);
	return true;
}
