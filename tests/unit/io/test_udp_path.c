/* Where UDP GSO keeps one packet per datagram: the route's device, on loopback only (plus a
 * fixture /sys that dresses lo up as a physical NIC, to reach the qdisc check). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/udp_path.h"
#include "tap.h"

static void test_qdisc_kinds(void)
{
	CHECK(bp_qdisc_keeps_gso_whole("pfifo_fast"));
	CHECK(bp_qdisc_keeps_gso_whole("fq_codel"));
	CHECK(bp_qdisc_keeps_gso_whole("noqueue"));
	CHECK(bp_qdisc_keeps_gso_whole("mq"));
	/* These segment GSO skbs themselves and may drop pieces unseen. */
	CHECK(!bp_qdisc_keeps_gso_whole("tbf"));
	CHECK(!bp_qdisc_keeps_gso_whole("cake"));
	CHECK(!bp_qdisc_keeps_gso_whole("netem"));
	CHECK(!bp_qdisc_keeps_gso_whole("some_new_qdisc"));
}

static void test_route(void)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	struct sockaddr un = { .sa_family = AF_UNIX };
	char dev[32] = "";

	inet_pton(AF_INET, "127.0.0.1", &v4.sin_addr);
	CHECK(bp_route_out_dev((struct sockaddr *)&v4, dev, sizeof(dev)) > 0);
	CHECK_STR(dev, "lo");
	/* Any 127/8 address, not only 127.0.0.1, is local. */
	inet_pton(AF_INET, "127.3.4.5", &v4.sin_addr);
	dev[0] = '\0';
	CHECK(bp_route_out_dev((struct sockaddr *)&v4, dev, sizeof(dev)) > 0);
	CHECK_STR(dev, "lo");
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr);
	dev[0] = '\0';
	CHECK(bp_route_out_dev((struct sockaddr *)&v6, dev, sizeof(dev)) > 0);
	CHECK_STR(dev, "lo");
	inet_pton(AF_INET6, "::1", &v6.sin6_addr);
	dev[0] = '\0';
	/* A host without IPv6 has no route to ::1 at all. */
	if (bp_route_out_dev((struct sockaddr *)&v6, dev, sizeof(dev)) > 0)
		CHECK_STR(dev, "lo");
	CHECK_INT(bp_route_out_dev(&un, dev, sizeof(dev)), -EAFNOSUPPORT);
}

static int udp_to_loopback(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	/* connect only picks the route: nothing is sent */
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Whether this system answers a qdisc dump at all: qemu-user translates only some rtnetlink
 * messages (links, addresses, routes) and fails RTM_GETQDISC, so under it the qdisc check
 * cannot be reached (bp_udp_gso_safe then says "qdiscs unknown", the safe answer). 0, or
 * the errno of the failed step.
 */
static int qdisc_dump_errno(void)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = { .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
			  .nlmsg_type = RTM_GETQDISC, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		  .tc = { .tcm_family = AF_UNSPEC } };
	static char buf[32768];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), e = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0 || (n = recv(fd, buf, sizeof(buf), 0)) < 0)
		e = errno;
	else if (n < (ssize_t)sizeof(struct nlmsghdr))
		e = EPROTO;
	else if (((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
		e = -((struct nlmsgerr *)NLMSG_DATA(buf))->error;
	close(fd);
	return e;
}

static void test_gso_safe(void)
{
	char why[64], root[] = "/tmp/test_udp_path.XXXXXX", path[128];
	int fd = udp_to_loopback(), unconnected = socket(AF_INET, SOCK_DGRAM, 0);
	FILE *f;

	CHECK(fd >= 0);
	CHECK(!bp_udp_gso_safe(fd, "", why, sizeof(why)));
	CHECK_STR(why, "lo: not a physical NIC");
	CHECK(!bp_udp_gso_safe(unconnected, "", why, sizeof(why)));
	CHECK(!strncmp(why, "peer unknown: ", 14));
	/* A /sys where lo has a bus device: then its qdisc (noqueue) decides. */
	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/sys/class/net/lo", root);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = '\0';
		mkdir(path, 0755);
	}
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/net/lo/device", root);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	if (qdisc_dump_errno()) {
		printf("ok %d - # SKIP qdisc dump refused (%s): qemu-user does not translate "
		       "RTM_GETQDISC\n", ++tap_n, strerror(qdisc_dump_errno()));
	} else {
		CHECK(bp_udp_gso_safe(fd, root, why, sizeof(why)));
		CHECK_STR(why, "lo: physical NIC");
	}
	unlink(path);
	CHECK(!bp_udp_gso_safe(fd, root, why, sizeof(why)));
	for (int i = 0; i < 4; i++) {  /* lo, net, class, sys */
		snprintf(path, sizeof(path), "%s/sys%s", root,
			 i == 0 ? "/class/net/lo" : i == 1 ? "/class/net" : i == 2 ? "/class" : "");
		rmdir(path);
	}
	rmdir(root);
	close(fd);
	close(unconnected);
}

int main(void)
{
	test_qdisc_kinds();
	test_route();
	test_gso_safe();
	return tap_done();
}
