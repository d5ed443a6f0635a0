/*
 * Netlink datagrams built in unit tests the way the kernel lays them out: messages, their
 * attributes (struct rtattr and struct nlattr share the layout) and nests, so a test replays
 * an answer the machine it runs on cannot give (a VLAN, a bond, a Wi-Fi link). Each test's
 * msg_open puts its family's header (ifinfomsg, genlmsghdr) after the nlmsghdr.
 */
#ifndef BP_TEST_NL_BUILD_H
#define BP_TEST_NL_BUILD_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>

/* A datagram being built, and where the open nests start */
struct dgram {
	_Alignas(4) unsigned char b[8192];
	size_t len;
	size_t msg;		/* the current message's start */
	size_t nest[4];
	int depth;
};

static inline void *put(struct dgram *d, const void *p, size_t n)
{
	void *at = d->b + d->len;

	memcpy(at, p, n);
	d->len += NLMSG_ALIGN(n);
	return at;
}

static inline void attr(struct dgram *d, unsigned short type, const void *p, size_t n)
{
	struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(n), .rta_type = type };

	memcpy(d->b + d->len, &a, sizeof(a));
	if (n)
		memcpy(d->b + d->len + RTA_LENGTH(0), p, n);
	d->len += RTA_SPACE(n);
}

static inline void attr_u32(struct dgram *d, unsigned short type, uint32_t v) { attr(d, type, &v, 4); }
static inline void attr_str(struct dgram *d, unsigned short type, const char *s)
{
	attr(d, type, s, strlen(s) + 1);
}

static inline void nest_open(struct dgram *d, unsigned short type)
{
	d->nest[d->depth++] = d->len;
	attr(d, type, NULL, 0);
}

static inline void nest_close(struct dgram *d)
{
	struct rtattr *a = (struct rtattr *)(d->b + d->nest[--d->depth]);

	a->rta_len = (unsigned short)(d->len - d->nest[d->depth]);
}

static inline void msg_close(struct dgram *d)
{
	((struct nlmsghdr *)(d->b + d->msg))->nlmsg_len = (uint32_t)(d->len - d->msg);
}

/* A message of the header and one word: NLMSG_DONE's 0, or NLMSG_ERROR's nlmsgerr */
static inline void control(struct dgram *d, unsigned short type, const void *p, size_t n)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(n), .nlmsg_type = type,
			      .nlmsg_flags = NLM_F_MULTI };

	put(d, &h, sizeof(h));
	put(d, p, n);
}

static inline void done(struct dgram *d)
{
	int zero = 0;

	control(d, NLMSG_DONE, &zero, sizeof(zero));
}

#endif
