/* Sockets on loopback only: resolving, listening on IPv4 and dual-stack IPv6, connecting
 * (refused, timed out behind a full accept queue), options and their messages, TCP_INFO. */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/sock.h"
#include "tap.h"

static char err[256];

static void test_resolve(void)
{
	struct bp_addr a;
	char s[64];

	CHECK_INT(bp_resolve("127.0.0.1", 5201, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "127.0.0.1:5201");
	CHECK_INT(bp_resolve("::1", 5201, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "[::1]:5201");
	CHECK_INT(bp_resolve("[::1]", 80, BP_FAMILY_V6, false, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "[::1]:80");
	/* From /etc/hosts: no query leaves the machine. */
	CHECK_INT(bp_resolve("localhost", 7, BP_FAMILY_V4, false, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "127.0.0.1:7");
	CHECK_INT(bp_resolve(NULL, 5201, BP_FAMILY_ANY, true, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "[::]:5201");
	CHECK_INT(bp_resolve(NULL, 5201, BP_FAMILY_V4, true, &a, err, sizeof(err)), 0);
	CHECK_STR(bp_addr_str(&a, s, sizeof(s)), "0.0.0.0:5201");

	CHECK_INT(bp_resolve("::1", 1, BP_FAMILY_V4, false, &a, err, sizeof(err)), -ENOENT);
	CHECK(!strncmp(err, "resolve '::1': ", 15));
	/* Not a valid host name, so the resolver refuses it without asking any DNS server. */
	CHECK_INT(bp_resolve("no..host", 1, BP_FAMILY_ANY, false, &a, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "resolve 'no..host': Name or service not known");
	CHECK_INT(bp_resolve("127.0.0.1", 70000, BP_FAMILY_ANY, false, &a, err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "port 70000: expected 0 to 65535");
}

/*
 * Loopback and every address an interface of this host holds are this host's; an address
 * of the test range that none holds is not. Nothing is sent: only the lists are read.
 */
static void test_this_host(void)
{
	struct ifaddrs *ifs, *i;
	struct bp_addr a;
	int held = 0;

	CHECK_INT(bp_resolve("127.0.0.2", 1, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK(bp_addr_is_this_host(&a));
	CHECK_INT(bp_resolve("::1", 1, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK(bp_addr_is_this_host(&a));
	CHECK_INT(getifaddrs(&ifs), 0);
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		memset(&a, 0, sizeof(a));
		memcpy(&a.ss, i->ifa_addr, sizeof(struct sockaddr_in));
		a.len = sizeof(struct sockaddr_in);
		held += bp_addr_is_this_host(&a) ? 1 : -1000;
	}
	freeifaddrs(ifs);
	CHECK(held > 0);
	/* 198.19.255.254: the benchmark range's last address, held by no interface here */
	CHECK_INT(bp_resolve("198.19.255.254", 1, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK(!bp_addr_is_this_host(&a));
}

static unsigned local_port(int fd)
{
	struct bp_addr a = { .len = sizeof(a.ss) };

	if (getsockname(fd, (struct sockaddr *)&a.ss, &a.len))
		return 0;
	return a.ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&a.ss)->sin_port)
					 : ntohs(((struct sockaddr_in6 *)&a.ss)->sin6_port);
}

/* Accept one connection from a non-blocking listener within 2 s. */
static int accept_one(int lfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	if (poll(&p, 1, 2000) != 1)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

static int pre_calls;

static int pre_ok(int fd, void *arg, char *e, size_t elen)
{
	pre_calls++;
	return bp_sock_set_buffers(fd, *(int *)arg, e, elen);
}

static int pre_fail(int fd, void *arg, char *e, size_t elen)
{
	(void)fd;
	(void)arg;
	snprintf(e, elen, "pre: refused");
	return -EPERM;
}

/* Connect to host:port; returns the connected fd or -1. */
static int connect_to(const char *host, unsigned port)
{
	struct bp_addr a;
	int fd = -1;

	if (bp_resolve(host, port, BP_FAMILY_ANY, false, &a, err, sizeof(err)))
		return -1;
	if (bp_tcp_connect(&a, bp_now_ns() + 3 * BP_NS_PER_SEC, NULL, NULL, &fd, err,
			   sizeof(err)))
		return -1;
	return fd;
}

static void test_info(int fd)
{
	struct bp_tcp_info ti;
	char buf[4096] = { 0 };

	struct tcp_info raw;
	socklen_t len = sizeof(raw);

	CHECK_INT(write(fd, buf, sizeof(buf)), (int)sizeof(buf));
	CHECK_INT(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &raw, &len), 0);
	CHECK_INT(bp_tcp_info_read(fd, &ti), 0);
	if (len < offsetof(struct tcp_info, tcpi_total_retrans) + 4) {
		/* qemu-user fills 4 bytes: nothing may be read from the rest. */
		CHECK(!ti.valid);
		CHECK_INT(ti.snd_mss + ti.rtt_us + ti.snd_cwnd, 0);
		printf("ok %d - # SKIP TCP_INFO answered with %u bytes only\n", ++tap_n,
		       (unsigned)len);
	} else {
		CHECK(ti.valid);
		CHECK(ti.snd_mss > 0);
		CHECK(ti.snd_cwnd > 0);
		CHECK(ti.rtt_us > 0);
	}
	printf("# tcp_info: %u bytes, mss %u cwnd %u rtt %u us acked %llu\n", (unsigned)len,
	       ti.snd_mss, ti.snd_cwnd, ti.rtt_us, (unsigned long long)ti.bytes_acked);
	CHECK_INT(bp_tcp_info_read(0, &ti), -ENOTSOCK);
	CHECK(!ti.valid);
}

static void test_v4(void)
{
	struct bp_addr a;
	int lfd = -1, cfd = -1, sfd, bytes = 256 * 1024;
	unsigned port;

	CHECK_INT(bp_resolve("127.0.0.1", 0, BP_FAMILY_ANY, true, &a, err, sizeof(err)), 0);
	CHECK_INT(bp_tcp_listen(&a, 16, &lfd, err, sizeof(err)), 0);
	port = local_port(lfd);
	CHECK(port > 0);
	CHECK(fcntl(lfd, F_GETFL) & O_NONBLOCK);
	CHECK_INT(bp_resolve("127.0.0.1", port, BP_FAMILY_ANY, false, &a, err, sizeof(err)), 0);
	CHECK_INT(bp_tcp_connect(&a, bp_now_ns() + 3 * BP_NS_PER_SEC, pre_ok, &bytes, &cfd,
				 err, sizeof(err)), 0);
	CHECK_INT(pre_calls, 1);
	/* Handed back blocking, and not inherited by a child that execs. */
	CHECK(!(fcntl(cfd, F_GETFL) & O_NONBLOCK));
	CHECK(fcntl(cfd, F_GETFD) & FD_CLOEXEC);
	sfd = accept_one(lfd);
	CHECK(sfd >= 0);
	test_info(cfd);
	close(sfd);
	close(cfd);
	CHECK_INT(bp_tcp_connect(&a, bp_now_ns() + BP_NS_PER_SEC, pre_fail, NULL, &cfd,
				 err, sizeof(err)), -EPERM);
	CHECK_STR(err, "pre: refused");
	close(lfd);

	/* Nobody listens on the port now: the kernel answers with a reset at once. */
	char want[96];

	CHECK_INT(bp_tcp_connect(&a, bp_now_ns() + 3 * BP_NS_PER_SEC, NULL, NULL, &cfd,
				 err, sizeof(err)), -ECONNREFUSED);
	snprintf(want, sizeof(want), "connect 127.0.0.1:%u: Connection refused", port);
	CHECK_STR(err, want);
}

static void test_v6_dual_stack(void)
{
	struct bp_addr a;
	int lfd = -1, fd, sfd;
	unsigned port;

	CHECK_INT(bp_resolve(NULL, 0, BP_FAMILY_ANY, true, &a, err, sizeof(err)), 0);
	CHECK_INT(bp_tcp_listen(&a, 16, &lfd, err, sizeof(err)), 0);
	port = local_port(lfd);
	CHECK(port > 0);
	/* One listener takes both families (IPv4 only when the kernel lacks IPv6). */
	fd = connect_to("127.0.0.1", port);
	CHECK(fd >= 0);
	sfd = accept_one(lfd);
	CHECK(sfd >= 0);
	close(sfd);
	close(fd);
	fd = connect_to("::1", port);
	if (fd < 0 && strstr(err, "Address family not supported")) {
		printf("ok %d - # SKIP no IPv6 in this kernel\n", ++tap_n);
	} else {
		CHECK(fd >= 0);
		sfd = accept_one(lfd);
		CHECK(sfd >= 0);
		close(sfd);
		close(fd);
	}
	close(lfd);
}

/*
 * A listener with backlog 0 that never accepts: once its queue holds one connection the
 * kernel drops further SYNs, so the next connect can only end at its deadline.
 */
static void test_timeout(void)
{
	struct bp_addr a;
	int lfd = -1, fds[4], nfd = 0, fd = -1, rc = 0;
	uint64_t t0, dt = 0;

	CHECK_INT(bp_resolve("127.0.0.1", 0, BP_FAMILY_ANY, true, &a, err, sizeof(err)), 0);
	CHECK_INT(bp_tcp_listen(&a, 0, &lfd, err, sizeof(err)), 0);
	CHECK_INT(bp_resolve("127.0.0.1", local_port(lfd), BP_FAMILY_ANY, false, &a, err,
			     sizeof(err)), 0);
	while (nfd < 4) {
		t0 = bp_now_ns();
		rc = bp_tcp_connect(&a, t0 + 300 * BP_NS_PER_MS, NULL, NULL, &fd, err,
				    sizeof(err));
		dt = bp_now_ns() - t0;
		if (rc)
			break;
		fds[nfd++] = fd;
	}
	CHECK_INT(rc, -ETIMEDOUT);
	CHECK(nfd >= 1);
	/*
	 * Never before its deadline, and at it rather than when the kernel gives up (its SYN
	 * retries take minutes): the upper bound is seconds, which no busy machine reaches
	 * (was 800 ms). The connect's poll is the real kernel's, so the real clock.
	 */
	CHECK(dt >= 300 * BP_NS_PER_MS && dt < 300 * BP_NS_PER_MS + 5 * BP_NS_PER_SEC);
	CHECK(strstr(err, ": timed out after 0.3 s") != NULL);
	printf("# %s (after %d queued)\n", err, nfd);
	while (nfd)
		close(fds[--nfd]);
	close(lfd);
}

static void test_options(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char want[300], list[200] = "";
	FILE *f;

	CHECK_INT(bp_sock_set_buffers(fd, 131072, err, sizeof(err)), 0);
	CHECK_INT(bp_sock_set_nodelay(fd, err, sizeof(err)), 0);
	CHECK_INT(bp_sock_set_mss(fd, 1200, err, sizeof(err)), 0);
	CHECK_INT(bp_sock_set_mss(fd, -5, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "-M -5: TCP_MAXSEG: Invalid argument");
	CHECK_INT(bp_sock_set_congestion(fd, "reno", err, sizeof(err)), 0);
	CHECK_INT(bp_sock_set_congestion(fd, "bogus", err, sizeof(err)), -ENOENT);
	f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
	if (f && fgets(list, sizeof(list), f))
		list[strcspn(list, "\n")] = '\0';
	if (f)
		fclose(f);
	snprintf(want, sizeof(want),
		 "-C 'bogus': congestion control not available (available: %s)", list);
	CHECK_STR(err, want);
	CHECK_INT(bp_sock_set_nonblocking(fd, true), 0);
	CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK_INT(bp_sock_set_nonblocking(fd, false), 0);
	CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	close(fd);
	CHECK_INT(bp_sock_set_nodelay(-1, err, sizeof(err)), -EBADF);
	CHECK_STR(err, "-N: TCP_NODELAY: Bad file descriptor");
}

/* The pacing rate as the kernel kept it; 0 when this system cannot say (qemu-user). */
static unsigned long pacing_of(int fd)
{
	unsigned long v = 0;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, &len) || len != sizeof(v) ? 0 : v;
}

/*
 * Pacing rates in bytes per second, past 2^32 where unsigned long holds it (64-bit); on
 * 32-bit ARM the kernel cannot pace above 4.29 GB/s, so a faster request means no limit.
 */
static void test_pacing(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc = bp_sock_set_pacing(fd, 8e9, err, sizeof(err));

	/* qemu-user passes SO_MAX_PACING_RATE through getsockopt but refuses it in setsockopt */
	if (rc == -ENOPROTOOPT || !pacing_of(fd)) {
		printf("ok %d - # SKIP SO_MAX_PACING_RATE %s: qemu-user does not translate it\n",
		       ++tap_n, rc ? "refused (ENOPROTOOPT)" : "unreadable");
		close(fd);
		return;
	}
	CHECK_INT(rc, 0);
	CHECK(pacing_of(fd) == 1000000000UL);
	CHECK_INT(bp_sock_set_pacing(fd, 100e9, err, sizeof(err)), 0);
	CHECK(pacing_of(fd) == (sizeof(long) == 8 ? (unsigned long)12500000000ULL : ULONG_MAX));
	/* A figure no link has (a peer may send it): no limit, not a wrapped one. */
	CHECK_INT(bp_sock_set_pacing(fd, 1e30, err, sizeof(err)), 0);
	CHECK(pacing_of(fd) == ULONG_MAX);
	CHECK_INT(bp_sock_set_pacing(fd, 1, err, sizeof(err)), 0);
	CHECK(pacing_of(fd) == 1);
	close(fd);
}

/*
 * SCTP: on a kernel without it (these machines), the one line from every way in; on one
 * with it, a loopback association, its options, and a discarding read that loses nothing.
 */
static void test_sctp(void)
{
	struct bp_addr a;
	int probe = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), e = errno, fd = -1, l = -1, c = -1;
	struct bp_tcp_info ti;
	char buf[64];

	CHECK(bp_sctp_missing(EPROTONOSUPPORT) && !bp_sctp_missing(EINVAL));
	CHECK_INT(bp_resolve("127.0.0.1", 0, BP_FAMILY_V4, false, &a, err, sizeof(err)), 0);
	if (probe < 0) {
		CHECK(bp_sctp_missing(e));
		CHECK_INT(bp_sctp_check(err, sizeof(err)), -EPROTONOSUPPORT);
		CHECK_STR(err, BP_SCTP_MISSING);
		err[0] = '\0';
		CHECK(bp_stream_connect(&a, IPPROTO_SCTP, bp_now_ns() + BP_NS_PER_SEC, NULL, NULL, &fd,
					err, sizeof(err)) < 0);
		CHECK_STR(err, BP_SCTP_MISSING);
		err[0] = '\0';
		CHECK(bp_stream_listen(&a, IPPROTO_SCTP, 4, &fd, err, sizeof(err)) < 0);
		CHECK_STR(err, BP_SCTP_MISSING);
		/* a TCP socket is not SCTP */
		fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
		CHECK(fd >= 0 && !bp_sock_is_sctp(fd));
		close(fd);
		return;
	}
	close(probe);
	CHECK_INT(bp_sctp_check(err, sizeof(err)), 0);
	CHECK_INT(bp_stream_listen(&a, IPPROTO_SCTP, 4, &l, err, sizeof(err)), 0);
	a.len = sizeof(a.ss);
	CHECK_INT(getsockname(l, (struct sockaddr *)&a.ss, &a.len), 0);
	CHECK_INT(bp_stream_connect(&a, IPPROTO_SCTP, bp_now_ns() + BP_NS_PER_SEC, NULL, NULL, &c,
				    err, sizeof(err)), 0);
	CHECK(bp_sock_is_sctp(l) && bp_sock_is_sctp(c));
	CHECK_INT(bp_sctp_set_nodelay(c, err, sizeof(err)), 0);
	CHECK_INT(bp_sctp_set_maxseg(c, 1200, err, sizeof(err)), 0);
	for (int i = 0; i < 50 && (fd = accept(l, NULL, NULL)) < 0; i++)
		poll(NULL, 0, 20);
	CHECK(fd >= 0);
	/* one message of 38 bytes: 37 read as the cookie is, the rest discarded, nothing lost */
	CHECK_INT(send(c, "abcdefghijklmnopqrstuvwxyz0123456789AB", 38, 0), 38);
	CHECK_INT(recv(fd, buf, 37, 0), 37);
	CHECK_INT(bp_recv_discard(fd, 1 << 20, 0, true), 1);
	CHECK_INT(send(c, "x", 1, 0), 1);
	CHECK_INT(bp_recv_discard(fd, 1 << 20, 0, true), 1);
	/* TCP_INFO's figures from SCTP's own: a path with a cwnd and an MTU, no byte counts */
	CHECK_INT(bp_tcp_info_read(c, &ti), 0);
	CHECK(ti.valid && !ti.has_bytes && ti.snd_cwnd > 0 && ti.snd_mss == 1 && ti.pmtu > 0);
	CHECK_INT(bp_tcp_info_read(fd, &ti), 0);
	CHECK(ti.valid && ti.snd_cwnd > 0);
	close(fd);
	close(c);
	close(l);
}

int main(void)
{
	test_sctp();
	test_pacing();
	test_resolve();
	test_this_host();
	test_v4();
	test_v6_dual_stack();
	test_timeout();
	test_options();
	return tap_done();
}
