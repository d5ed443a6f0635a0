/*
 * The socket options iperf3 clients may ask a server for on its data streams: the IP TOS
 * byte (or IPv6 traffic class), a pacing rate the kernel enforces, and don't-fragment.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "io/sock.h"

static int family_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &len) ? AF_UNSPEC : ss.ss_family;
}

int bp_sock_set_tos(int fd, int tos, char *err, size_t errlen)
{
	int v6 = family_of(fd) == AF_INET6, rc;

	/* A dual-stack socket may carry IPv4 (mapped addresses): set both where allowed. */
	rc = setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	if (v6)
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
	if (!rc)
		return 0;
	rc = errno;
	snprintf(err, errlen, "TOS 0x%02x: %s: %s", tos, v6 ? "IPV6_TCLASS" : "IP_TOS",
		 strerror(rc));
	return -rc;
}

int bp_sock_set_pacing(int fd, double bits_per_s, char *err, size_t errlen)
{
	/*
	 * The kernel counts bytes per second (TCP paces its payload, fq whole packets) in an
	 * unsigned long: 32 bits on 32-bit ARM, where 4.29 GB/s (34 Gbit/s) is the most it
	 * takes, and ~0UL means no limit. A rate beyond that (a peer's figure may be anything)
	 * asks for no limit: converting a double that does not fit is undefined, and wrapped
	 * it would pace a 40 Gbit/s request at a fraction of that.
	 */
	double b = bits_per_s / 8;
	unsigned long bytes = !(b >= 1) ? 1 : b >= (double)ULONG_MAX ? ULONG_MAX : (unsigned long)b;
	int e;

	if (!setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes, sizeof(bytes)))
		return 0;
	e = errno;
	snprintf(err, errlen, "pacing at %.0f bit/s: SO_MAX_PACING_RATE: %s", bits_per_s,
		 strerror(e));
	return -e;
}

int bp_sock_set_dont_fragment(int fd, char *err, size_t errlen)
{
	int v6 = family_of(fd) == AF_INET6, on = IP_PMTUDISC_DO, rc;

	rc = setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &on, sizeof(on));
	if (v6) {
		on = IPV6_PMTUDISC_DO;
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &on, sizeof(on));
	}
	if (!rc)
		return 0;
	rc = errno;
	snprintf(err, errlen, "don't-fragment: %s", strerror(rc));
	return -rc;
}
