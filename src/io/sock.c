#include "io/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"

char *bp_addr_str(const struct bp_addr *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&a->ss;

		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&a->ss;

		port = ntohs(sin6->sin6_port);
		/* An IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d: show a.b.c.d. */
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			inet_ntop(AF_INET, &sin6->sin6_addr.s6_addr[12], host, sizeof(host));
			snprintf(buf, len, "%s:%u", host, port);
		} else {
			inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof(host));
			snprintf(buf, len, "[%s]:%u", host, port);
		}
	} else {
		snprintf(buf, len, "(family %d)", a->ss.ss_family);
	}
	return buf;
}

bool bp_addr_is_loopback(const struct bp_addr *a)
{
	if (a->ss.ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr) >> 24) == 127;
	if (a->ss.ss_family == AF_INET6) {
		const struct in6_addr *in6 = &((const struct sockaddr_in6 *)&a->ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(in6) ||
		       (IN6_IS_ADDR_V4MAPPED(in6) && in6->s6_addr[12] == 127);
	}
	return false;
}

/* The wildcard address for listening: IPv6 (dual-stack) unless -4 asked for IPv4. */
static void wildcard(unsigned port, enum bp_family family, struct bp_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (family == BP_FAMILY_V4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&out->ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_port = htons((uint16_t)port);
		out->len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_any;
		sin6->sin6_port = htons((uint16_t)port);
		out->len = sizeof(*sin6);
	}
}

static int gai_errno(int rc)
{
	switch (rc) {
	case EAI_SYSTEM:
		return errno ? -errno : -EIO;
	case EAI_MEMORY:
		return -ENOMEM;
	case EAI_BADFLAGS:
	case EAI_FAMILY:
	case EAI_SERVICE:
	case EAI_SOCKTYPE:
		return -EINVAL;
	default:
		/* EAI_NONAME, EAI_NODATA, EAI_ADDRFAMILY, EAI_AGAIN, EAI_FAIL: no usable address. */
		return -ENOENT;
	}
}

int bp_resolve(const char *host, unsigned port, enum bp_family family, bool passive,
	       struct bp_addr *out, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	struct addrinfo *res = NULL;
	char name[256], serv[8];
	size_t n;
	int rc;

	if (port > 65535) {
		snprintf(err, errlen, "port %u: expected 0 to 65535", port);
		return -EINVAL;
	}
	if (!host && passive) {
		wildcard(port, family, out);
		return 0;
	}
	/* "[::1]" as people write it next to a port: the brackets are not part of the name. */
	n = host ? strlen(host) : 0;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof(name)) {
		memcpy(name, host + 1, n - 2);
		name[n - 2] = '\0';
		host = name;
	}
	hints.ai_family = family == BP_FAMILY_V4 ? AF_INET :
			  family == BP_FAMILY_V6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "resolve '%s': %s", host ? host : "", gai_strerror(rc));
		return gai_errno(rc);
	}
	/* The first answer is the one the system's address selection (gai.conf) prefers. */
	memset(out, 0, sizeof(*out));
	memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Wait for a non-blocking connect to finish; 0 or -errno with the message. */
static int connect_wait(int fd, uint64_t t0, uint64_t deadline_ns, const char *what,
			char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int soerr = 0, rc, timeout;
	socklen_t len = sizeof(soerr);

	for (;;) {
		uint64_t now = bp_now_ns();

		if (!deadline_ns) {
			timeout = -1;
		} else if (now >= deadline_ns) {
			timeout = 0;
		} else {
			uint64_t ms = (deadline_ns - now + BP_NS_PER_MS - 1) / BP_NS_PER_MS;

			timeout = ms > INT_MAX ? INT_MAX : (int)ms;
		}
		rc = poll(&pfd, 1, timeout);
		if (rc > 0)
			break;
		if (rc == 0 && timeout == 0) {
			snprintf(err, errlen, "connect %s: timed out after %.1f s", what,
				 (double)(deadline_ns > t0 ? deadline_ns - t0 : 0) / 1e9);
			return -ETIMEDOUT;
		}
		if (rc < 0 && errno != EINTR) {
			snprintf(err, errlen, "connect %s: poll: %s", what, strerror(errno));
			return -errno;
		}
		if (bp_stop_requested()) {
			snprintf(err, errlen, "connect %s: interrupted", what);
			return -EINTR;
		}
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		soerr = errno;
	if (soerr) {
		snprintf(err, errlen, "connect %s: %s", what, strerror(soerr));
		return -soerr;
	}
	return 0;
}

/*
 * A stream socket of protocol proto; on failure the message names the operation and the
 * address, or says that the kernel has no SCTP (io/sock_sctp.c).
 */
static int stream_socket(const struct bp_addr *a, int proto, const char *op, const char *what,
			 char *err, size_t errlen)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
	int e = errno;

	if (fd >= 0)
		return fd;
	if (proto == IPPROTO_SCTP && bp_sctp_missing(e))
		snprintf(err, errlen, "%s", BP_SCTP_MISSING);
	else
		snprintf(err, errlen, "%s %s: socket: %s", op, what, strerror(e));
	return -e;
}

int bp_tcp_connect(const struct bp_addr *a, uint64_t deadline_ns, bp_sock_pre_fn pre,
		   void *arg, int *fd_out, char *err, size_t errlen)
{
	return bp_stream_connect(a, IPPROTO_TCP, deadline_ns, pre, arg, fd_out, err, errlen);
}

int bp_stream_connect(const struct bp_addr *a, int proto, uint64_t deadline_ns,
		      bp_sock_pre_fn pre, void *arg, int *fd_out, char *err, size_t errlen)
{
	uint64_t t0 = bp_now_ns();
	char what[INET6_ADDRSTRLEN + 16];
	int fd, rc;

	bp_addr_str(a, what, sizeof(what));
	fd = stream_socket(a, proto, "connect", what, err, errlen);
	if (fd < 0)
		return fd;
	if (pre) {
		rc = pre(fd, arg, err, errlen);
		if (rc)
			goto error;
	}
	/* Non-blocking, so that the deadline, not the kernel's SYN retries, bounds the wait. */
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len)) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			snprintf(err, errlen, "connect %s: %s", what, strerror(errno));
			goto error;
		}
		rc = connect_wait(fd, t0, deadline_ns, what, err, errlen);
		if (rc)
			goto error;
	}
	rc = bp_sock_set_nonblocking(fd, false);
	if (rc) {
		snprintf(err, errlen, "connect %s: fcntl: %s", what, strerror(-rc));
		goto error;
	}
	*fd_out = fd;
	return 0;
error:
	close(fd);
	return rc;
}

static bool is_v6_wildcard(const struct bp_addr *a)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&a->ss;

	return a->ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&sin6->sin6_addr);
}

static int listen_on(const struct bp_addr *a, int proto, int backlog, bool reuseport,
		     int *fd_out, char *err, size_t errlen)
{
	char what[INET6_ADDRSTRLEN + 16];
	int fd, one = 1, zero = 0, rc;

	bp_addr_str(a, what, sizeof(what));
	fd = stream_socket(a, proto, "listen", what, err, errlen);
	if (fd < 0)
		return fd;
	/* Dual-stack where allowed; a kernel that refuses keeps an IPv6-only listener. */
	if (is_v6_wildcard(a))
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/* A restarted server must not wait out TIME_WAIT of its previous run's connections. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) {
		rc = -errno;
		snprintf(err, errlen, "listen %s: SO_REUSEADDR: %s", what, strerror(errno));
		goto error;
	}
	/* Listeners of one server on one port, one per worker (the kernel spreads the load). */
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) {
		rc = -errno;
		snprintf(err, errlen, "listen %s: SO_REUSEPORT: %s", what, strerror(errno));
		goto error;
	}
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len)) {
		rc = -errno;
		snprintf(err, errlen, "bind %s: %s", what, strerror(errno));
		goto error;
	}
	if (listen(fd, backlog)) {
		rc = -errno;
		snprintf(err, errlen, "listen %s: %s", what, strerror(errno));
		goto error;
	}
	*fd_out = fd;
	return 0;
error:
	close(fd);
	return rc;
}

int bp_tcp_listen(const struct bp_addr *a, int backlog, int *fd_out, char *err, size_t errlen)
{
	return bp_stream_listen(a, IPPROTO_TCP, backlog, fd_out, err, errlen);
}

int bp_stream_listen(const struct bp_addr *a, int proto, int backlog, int *fd_out, char *err,
		     size_t errlen)
{
	int rc = listen_on(a, proto, backlog, false, fd_out, err, errlen);

	/* A kernel without IPv6 still serves IPv4 on the wildcard. */
	if ((rc == -EAFNOSUPPORT || rc == -EADDRNOTAVAIL) && is_v6_wildcard(a)) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&a->ss;
		struct bp_addr v4;

		wildcard(ntohs(sin6->sin6_port), BP_FAMILY_V4, &v4);
		rc = listen_on(&v4, proto, backlog, false, fd_out, err, errlen);
	}
	return rc;
}

int bp_tcp_listen_shared(const struct bp_addr *a, int backlog, int *fd_out, char *err,
			 size_t errlen)
{
	return listen_on(a, IPPROTO_TCP, backlog, true, fd_out, err, errlen);
}

int bp_sock_set_buffers(int fd, int bytes, char *err, size_t errlen)
{
	int rc;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes))) {
		rc = -errno;
		snprintf(err, errlen, "-w %d: SO_SNDBUF: %s", bytes, strerror(errno));
		return rc;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes))) {
		rc = -errno;
		snprintf(err, errlen, "-w %d: SO_RCVBUF: %s", bytes, strerror(errno));
		return rc;
	}
	return 0;
}

int bp_sock_set_nodelay(int fd, char *err, size_t errlen)
{
	int one = 1, rc;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		rc = -errno;
		snprintf(err, errlen, "-N: TCP_NODELAY: %s", strerror(errno));
		return rc;
	}
	return 0;
}

int bp_sock_set_mss(int fd, int mss, char *err, size_t errlen)
{
	int rc;

	if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss))) {
		rc = -errno;
		snprintf(err, errlen, "-M %d: TCP_MAXSEG: %s", mss, strerror(errno));
		return rc;
	}
	return 0;
}

/* A one-line /proc list ("reno cubic") into buf, "unknown" when it cannot be read. */
static void read_proc_list(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(buf, (int)len, f)) {
		n = strcspn(buf, "\n");
		buf[n] = '\0';
	}
	fclose(f);
}

int bp_sock_set_congestion(int fd, const char *algo, char *err, size_t errlen)
{
	char list[256];
	int e;

	if (!setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algo, (socklen_t)strlen(algo)))
		return 0;
	e = errno;
	if (e == ENOENT) {
		read_proc_list("/proc/sys/net/ipv4/tcp_available_congestion_control",
			       list, sizeof(list));
		snprintf(err, errlen, "-C '%s': congestion control not available (available: %s)",
			 algo, list);
	} else if (e == EPERM) {
		/* Unprivileged users may only pick from the allowed list. */
		read_proc_list("/proc/sys/net/ipv4/tcp_allowed_congestion_control",
			       list, sizeof(list));
		snprintf(err, errlen, "-C '%s': congestion control not permitted (allowed: %s)",
			 algo, list);
	} else {
		snprintf(err, errlen, "-C '%s': TCP_CONGESTION: %s", algo, strerror(e));
	}
	return -e;
}

int bp_sock_set_nonblocking(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	if (fcntl(fd, F_SETFL, fl))
		return -errno;
	return 0;
}

/* True when the kernel's answer of len bytes fully covers field. */
#define TI_HAS(len, field) \
	((size_t)(len) >= offsetof(struct tcp_info, field) + sizeof(((struct tcp_info *)0)->field))

/* tcpi_state's values that matter here (the kernel's include/net/tcp_states.h, ABI) */
enum { ST_FIN_WAIT2 = 5, ST_TIME_WAIT = 6, ST_CLOSE = 7, ST_CLOSE_WAIT = 8, ST_LAST_ACK = 9,
       ST_CLOSING = 11 };

/*
 * The kernel counts a FIN as a byte in bytes_received and bytes_acked (it takes a sequence
 * number): a receiver whose peer closed had one byte more than came (iperf -n 10M counted
 * 10,485,761), a sender whose FIN was acknowledged one more than it sent. Payload only:
 * where the kernel says what it sent (bytes_sent less bytes_retrans, payload alone, Linux
 * 4.19), acknowledged is at most that, and more means this side's FIN was acknowledged;
 * the peer's FIN came in the states that follow it, and in CLOSE after LAST_ACK (this
 * side's FIN acknowledged; a reset there after FIN_WAIT2 is miscounted by a byte).
 * Without bytes_sent, the states alone.
 */
static void payload_only(const struct tcp_info *k, socklen_t len, struct bp_tcp_info *ti)
{
	uint8_t st = k->tcpi_state;
	bool fin_acked = st == ST_FIN_WAIT2 || st == ST_TIME_WAIT, fin_in;

	if (TI_HAS(len, tcpi_bytes_retrans) && k->tcpi_bytes_sent >= k->tcpi_bytes_retrans) {
		uint64_t sent = k->tcpi_bytes_sent - k->tcpi_bytes_retrans;

		fin_acked = ti->bytes_acked > sent;
		if (fin_acked)
			ti->bytes_acked = sent;
	} else if (fin_acked && ti->bytes_acked) {
		ti->bytes_acked--;
	}
	fin_in = st == ST_CLOSE_WAIT || st == ST_LAST_ACK || st == ST_CLOSING ||
		 st == ST_TIME_WAIT || (st == ST_CLOSE && fin_acked);
	if (fin_in && ti->bytes_received)
		ti->bytes_received--;
}

int bp_tcp_info_read(int fd, struct bp_tcp_info *ti)
{
	struct tcp_info k;
	socklen_t len = sizeof(k);

	memset(ti, 0, sizeof(*ti));
	memset(&k, 0, sizeof(k));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &k, &len))
		return errno == ENOPROTOOPT || errno == EOPNOTSUPP ? bp_sctp_info_read(fd, ti) : -errno;
	/* qemu-user answers with 4 bytes; old kernels stop before the newer fields. */
	if (!TI_HAS(len, tcpi_total_retrans))
		return 0;
	ti->valid = true;
	ti->total_retrans = k.tcpi_total_retrans;
	ti->snd_cwnd = k.tcpi_snd_cwnd;
	ti->snd_mss = k.tcpi_snd_mss;
	ti->rtt_us = k.tcpi_rtt;
	ti->rttvar_us = k.tcpi_rttvar;
	if (TI_HAS(len, tcpi_bytes_acked))
		ti->bytes_acked = k.tcpi_bytes_acked;
	if (TI_HAS(len, tcpi_bytes_received)) {
		ti->bytes_received = k.tcpi_bytes_received;
		ti->has_bytes = true;
		payload_only(&k, len, ti);
	}
	if (TI_HAS(len, tcpi_delivery_rate))
		ti->delivery_rate = k.tcpi_delivery_rate;
	if (TI_HAS(len, tcpi_pmtu))
		ti->pmtu = k.tcpi_pmtu;
	return 0;
}

/* The interface that holds local address src. */
static int ifname_of(const struct sockaddr_storage *src, char *ifname, size_t iflen)
{
	struct ifaddrs *ifs, *i;
	int rc = -ENOENT;

	if (getifaddrs(&ifs))
		return -errno;
	for (i = ifs; i && rc; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != src->ss_family)
			continue;
		if ((src->ss_family == AF_INET &&
		     ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
		     ((const struct sockaddr_in *)src)->sin_addr.s_addr) ||
		    (src->ss_family == AF_INET6 &&
		     !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			     &((const struct sockaddr_in6 *)src)->sin6_addr, 16))) {
			snprintf(ifname, iflen, "%s", i->ifa_name);
			rc = 0;
		}
	}
	freeifaddrs(ifs);
	return rc;
}

bool bp_addr_is_this_host(const struct bp_addr *a)
{
	char ifname[IF_NAMESIZE];

	return bp_addr_is_loopback(a) || !ifname_of(&a->ss, ifname, sizeof(ifname));
}

int bp_link_speed_toward(const struct bp_addr *a, double *bps, char *ifname, size_t iflen)
{
	struct sockaddr_storage src;
	socklen_t len = sizeof(src);
	char path[128];
	long mbps = -1;
	int fd, rc;
	FILE *f;

	/* connect() on a UDP socket only asks the kernel for a route: nothing is sent. */
	fd = socket(a->ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)&a->ss, a->len) ||
	     getsockname(fd, (struct sockaddr *)&src, &len) ? -errno : 0;
	close(fd);
	if (!rc)
		rc = ifname_of(&src, ifname, iflen);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", ifname);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &mbps) != 1)
			mbps = -1;
		fclose(f);
	}
	if (mbps <= 0)
		return -ENOENT;
	*bps = (double)mbps * 1e6;
	return 0;
}

void bp_addr_host_key(const struct bp_addr *a, unsigned char key[16])
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(key, 0, 16);
	if (a->ss.ss_family == AF_INET) {
		memcpy(key, mapped, sizeof(mapped));
		memcpy(key + 12, &((const struct sockaddr_in *)&a->ss)->sin_addr, 4);
	} else if (a->ss.ss_family == AF_INET6) {
		const unsigned char *b = ((const struct sockaddr_in6 *)&a->ss)->sin6_addr.s6_addr;

		memcpy(key, b, !memcmp(b, mapped, sizeof(mapped)) ? 16 : 8);
	}
}

void bp_sock_reset_on_close(int fd)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
}
