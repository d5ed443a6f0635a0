#include "proto/udp_connect.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/udp_header.h"
#include "io/udp_io.h"

/* A hello can be lost like any datagram: resend it this often until the answer comes. */
#define HELLO_RETRY_NS (250 * BP_NS_PER_MS)

static int udp_socket(int family, int buffer, char *err, size_t errlen)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(err, errlen, "udp socket: %s", strerror(errno));
		return -errno;
	}
	/* A UDP receiver needs room for bursts; the result of a cap is not an error here. */
	if (buffer > 0)
		bp_udp_set_buffers(fd, buffer, (char[128]){ 0 }, 128);
	return fd;
}

static bool wait_reply(int fd, uint64_t until_ns)
{
	char buf[64];

	while (bp_now_ns() < until_ns) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t left = until_ns - bp_now_ns();

		if (poll(&p, 1, (int)(left / BP_NS_PER_MS) + 1) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		/* In reverse mode data may overtake the answer: skip it and keep waiting. */
		if (n >= BP_UDP_CONNECT_LEN && bp_udp_is_connect_reply(buf, BP_UDP_CONNECT_LEN))
			return true;
	}
	return false;
}

int bp_udp_connect(const struct bp_addr *a, const char cookie[BP_COOKIE_LEN], int buffer,
		   uint64_t deadline_ns, int *fd_out, char *err, size_t errlen)
{
	char hello[BP_UDP_CONNECT_LEN + BP_COOKIE_LEN], where[64];
	int fd = udp_socket(a->ss.ss_family, buffer, err, errlen);

	if (fd < 0)
		return fd;
	bp_addr_str(a, where, sizeof(where));
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len)) {
		snprintf(err, errlen, "udp connect %s: %s", where, strerror(errno));
		close(fd);
		return -EHOSTUNREACH;
	}
	memcpy(hello, BP_UDP_CONNECT_MSG, BP_UDP_CONNECT_LEN);
	memcpy(hello + BP_UDP_CONNECT_LEN, cookie, BP_COOKIE_LEN);
	while (bp_now_ns() < deadline_ns) {
		uint64_t until = bp_now_ns() + HELLO_RETRY_NS;

		if (send(fd, hello, sizeof(hello), 0) < 0 && errno != ECONNREFUSED)
			break;
		if (wait_reply(fd, until < deadline_ns ? until : deadline_ns)) {
			*fd_out = fd;
			return 0;
		}
	}
	snprintf(err, errlen, "udp stream to %s: no answer from the server", where);
	close(fd);
	return -ETIMEDOUT;
}

int bp_udp_connect_plain(const struct bp_addr *a, int buffer, int *fd_out, char *err,
			 size_t errlen)
{
	int fd = udp_socket(a->ss.ss_family, buffer, err, errlen);
	char where[64];

	if (fd < 0)
		return fd;
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len)) {
		snprintf(err, errlen, "udp connect %s: %s", bp_addr_str(a, where, sizeof(where)),
			 strerror(errno));
		close(fd);
		return -EHOSTUNREACH;
	}
	*fd_out = fd;
	return 0;
}

int bp_udp_listen(const struct bp_addr *a, int *fd_out, char *err, size_t errlen)
{
	int fd = udp_socket(a->ss.ss_family, 0, err, errlen), one = 1, zero = 0;
	char where[64];

	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len)) {
		snprintf(err, errlen, "udp bind %s: %s", bp_addr_str(a, where, sizeof(where)),
			 strerror(errno));
		close(fd);
		return -errno;
	}
	bp_sock_set_nonblocking(fd, true);
	*fd_out = fd;
	return 0;
}

/* A socket on the listener's own address and port, connected to the client. */
static int connected_twin(int listen_fd, const struct bp_addr *peer, int buffer)
{
	struct bp_addr local = { .len = sizeof(local.ss) };
	int one = 1, zero = 0, fd;

	if (getsockname(listen_fd, (struct sockaddr *)&local.ss, &local.len))
		return -errno;
	fd = udp_socket(local.ss.ss_family, buffer, (char[128]){ 0 }, 128);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (local.ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/* A connected socket wins the lookup for its 4-tuple over the unconnected listener. */
	if (bind(fd, (struct sockaddr *)&local.ss, local.len) ||
	    connect(fd, (const struct sockaddr *)&peer->ss, peer->len)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int bp_udp_read_hello(int listen_fd, char cookie[BP_COOKIE_LEN], struct bp_addr *from,
		      struct bp_udp_datagram *raw)
{
	ssize_t n;

	from->len = sizeof(from->ss);
	/* MSG_TRUNC: the datagram's whole length, whatever of it fits */
	n = recvfrom(listen_fd, raw->head, sizeof(raw->head), MSG_DONTWAIT | MSG_TRUNC,
		     (struct sockaddr *)&from->ss, &from->len);
	raw->len = n > 0 ? (size_t)n : 0;
	raw->arrival_ns = bp_now_ns();
	/* The first 4 bytes are iperf3's hello; boardperf's cookie may follow them. */
	if (n < BP_UDP_CONNECT_LEN || !bp_udp_is_connect_msg((const char *)raw->head,
							     BP_UDP_CONNECT_LEN))
		return n < 0 ? -EAGAIN : -EBADMSG;
	memset(cookie, 0, BP_COOKIE_LEN);
	if (n >= BP_UDP_CONNECT_LEN + BP_COOKIE_LEN)
		memcpy(cookie, raw->head + BP_UDP_CONNECT_LEN, BP_COOKIE_LEN);
	return 0;
}

int bp_udp_twin(int listen_fd, const struct bp_addr *peer, int buffer, int *fd_out)
{
	int fd = connected_twin(listen_fd, peer, buffer);

	if (fd < 0)
		return fd;
	*fd_out = fd;
	return 0;
}

int bp_udp_answer_hello(int listen_fd, const struct bp_addr *peer, int buffer, int *fd_out)
{
	int fd = connected_twin(listen_fd, peer, buffer);

	if (fd < 0)
		return fd;
	if (send(fd, BP_UDP_CONNECT_REPLY, BP_UDP_CONNECT_LEN, 0) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}
