#include "io/udp_io.h"

#include <errno.h>
#include <linux/sock_diag.h> /* SK_MEMINFO_DROPS */
#include <netinet/in.h>
#include <netinet/udp.h>     /* UDP_SEGMENT, UDP_GRO */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "core/clock.h"

/*
 * A GSO send is one IPv4 datagram as far as the length checks go, so its payload obeys
 * the 65535-byte IP limit (65535 - 20 - 8); IPv6 would allow 20 more, not worth a case.
 * Kernels from 4.18 to 6.8 cut at most 64 segments from one send (UDP_MAX_SEGMENTS).
 */
#define GSO_MAX_BYTES 65507
#define GSO_MAX_SEGS 64
#define MAX_PAYLOAD 65507
#define MAX_RECV_PAYLOAD 65535
/* A GRO buffer holds at most 64 KiB of coalesced datagrams (the kernel's own limit). */
#define GRO_SLOT_LEN 65536
/*
 * Our three control messages (SO_RXQ_OVFL, UDP_GRO, SO_TIMESTAMPNS when asked) and room for
 * one we did not ask for (a timestamp another user of the socket switched on), so ours are
 * never cut off.
 */
#define CTRL_LEN (CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int)) + \
		  2 * CMSG_SPACE(2 * sizeof(uint64_t)))
/* ICMP errors queued by IP_RECVERR that one hard error drains; the rest wait for the next. */
#define ERRQUEUE_DRAIN_MAX 64
/* A send helper's *err when sendmmsg stopped early without saying why. */
#define ERR_SHORT (-1)

static const char *const send_mode_names[] = { "gso", "sendmmsg", "send" };

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

/*
 * Without IP_RECVERR, udp_send_skb turns ENOBUFS from a full qdisc into success and only
 * bumps SndbufErrors: the sender would believe datagrams left that the tester dropped.
 * A dual-stack IPv6 socket sending to a mapped IPv4 address follows the IPv4 flag, so set
 * both where they apply; failures just leave the kernel's default.
 */
static void enable_recverr(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
}

static void drain_errqueue(int fd)
{
	char b[256];

	for (int i = 0; i < ERRQUEUE_DRAIN_MAX; i++) {
		struct iovec v = { .iov_base = b, .iov_len = sizeof(b) };
		struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1 };

		if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
	}
}

static void gso_setup(struct bp_udp_sender *s)
{
	size_t fit = GSO_MAX_BYTES / s->payload_len;
	int segs = min_int(fit < GSO_MAX_SEGS ? (int)fit : GSO_MAX_SEGS, s->max_batch);
	int size = (int)s->payload_len;

	/* One datagram per send gains nothing from GSO. */
	if (segs < 2)
		return;
	if (setsockopt(s->fd, IPPROTO_UDP, UDP_SEGMENT, &size, sizeof(size)) < 0)
		return;
	s->gso_segs = segs;
	s->mode = BP_UDP_SEND_GSO;
}

/*
 * Slots, iovecs and messages for one datagram each sit at [0, max_batch); the GSO
 * messages, each spanning several consecutive slots, at [max_batch, 2 * max_batch).
 */
int bp_udp_sender_init(struct bp_udp_sender *s, int fd, size_t payload_len, int max_batch,
		       bool try_gso)
{
	int n = max_batch;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	if (payload_len < 1 || payload_len > MAX_PAYLOAD || n < 1 || n > BP_UDP_MAX_BATCH)
		return -EINVAL;
	s->payload_len = payload_len;
	s->max_batch = n;
	s->buf = calloc((size_t)n, payload_len);
	s->iov = calloc(2 * (size_t)n, sizeof(*s->iov));
	s->msgs = calloc(2 * (size_t)n, sizeof(*s->msgs));
	if (!s->buf || !s->iov || !s->msgs) {
		bp_udp_sender_free(s);
		return -ENOMEM;
	}
	for (int i = 0; i < 2 * n; i++) {
		s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
		s->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	for (int i = 0; i < n; i++) {
		s->iov[i].iov_base = s->buf + (size_t)i * payload_len;
		s->iov[i].iov_len = payload_len;
	}
	s->mmsg_ok = true;
	s->mode = BP_UDP_SEND_MMSG;
	enable_recverr(fd);
	if (try_gso)
		gso_setup(s);
	return 0;
}

void bp_udp_sender_free(struct bp_udp_sender *s)
{
	free(s->buf);
	free(s->iov);
	free(s->msgs);
	s->buf = NULL;
	s->iov = NULL;
	s->msgs = NULL;
}

const char *bp_udp_sender_mode(const struct bp_udp_sender *s)
{
	return send_mode_names[s->mode];
}

static void gso_off(struct bp_udp_sender *s)
{
	int zero = 0;

	setsockopt(s->fd, IPPROTO_UDP, UDP_SEGMENT, &zero, sizeof(zero));
}

int bp_udp_sender_limit_mode(struct bp_udp_sender *s, enum bp_udp_send_mode mode)
{
	if (mode < s->mode || mode > BP_UDP_SEND_PLAIN)
		return -EINVAL;
	if (s->mode == BP_UDP_SEND_GSO && mode != BP_UDP_SEND_GSO)
		gso_off(s);
	if (mode == BP_UDP_SEND_PLAIN)
		s->mmsg_ok = false;
	s->mode = mode;
	return 0;
}

/*
 * Each helper sends from slot off, at most cnt datagrams, and returns how many went; *err
 * is an errno when the kernel refused, ERR_SHORT when sendmmsg did only part of the work.
 */
static int send_gso(struct bp_udp_sender *s, int off, int cnt, int *err)
{
	struct mmsghdr *m = s->msgs + s->max_batch;
	struct iovec *v = s->iov + s->max_batch;
	int nm = 0, r;

	for (int i = 0; i < cnt; i += s->gso_segs, nm++) {
		v[nm].iov_base = s->iov[off + i].iov_base;
		v[nm].iov_len = (size_t)min_int(s->gso_segs, cnt - i) * s->payload_len;
	}
	s->st.calls++;
	if (s->mmsg_ok)
		r = sendmmsg(s->fd, m, (unsigned)nm, 0);
	else
		r = sendmsg(s->fd, &m->msg_hdr, 0) < 0 ? -1 : 1; /* one super-datagram per call */
	if (r < 0) {
		*err = errno;
		return 0;
	}
	if (s->mmsg_ok && r < nm)
		*err = ERR_SHORT;
	return min_int(r * s->gso_segs, cnt);
}

static int send_mmsg(struct bp_udp_sender *s, int off, int cnt, int *err)
{
	int r;

	s->st.calls++;
	r = sendmmsg(s->fd, s->msgs + off, (unsigned)cnt, 0);
	if (r < 0) {
		*err = errno;
		return 0;
	}
	if (r < cnt)
		*err = ERR_SHORT;
	return r;
}

static int send_plain(struct bp_udp_sender *s, int off, int cnt, int *err)
{
	int i;

	for (i = 0; i < cnt; i++) {
		s->st.calls++;
		if (send(s->fd, s->iov[off + i].iov_base, s->payload_len, 0) < 0) {
			*err = errno;
			break;
		}
	}
	return i;
}

static int send_some(struct bp_udp_sender *s, int off, int cnt, int *err)
{
	if (s->mode == BP_UDP_SEND_GSO)
		return send_gso(s, off, cnt, err);
	if (s->mode == BP_UDP_SEND_MMSG)
		return send_mmsg(s, off, cnt, err);
	return send_plain(s, off, cnt, err);
}

/*
 * A fast path the kernel refused: GSO says EINVAL when a segment does not fit the path
 * MTU, EIO under IPsec or without checksum offload, and some sandboxes and emulators
 * answer ENOSYS to sendmmsg. Drop to the next path and let the caller's loop retry.
 */
static bool fall_back(struct bp_udp_sender *s, int err)
{
	if (s->mode == BP_UDP_SEND_GSO && (err == EINVAL || err == EIO || err == EOPNOTSUPP ||
					   err == EMSGSIZE)) {
		gso_off(s);
		s->mode = s->mmsg_ok ? BP_UDP_SEND_MMSG : BP_UDP_SEND_PLAIN;
	} else if (err == ENOSYS && s->mmsg_ok) {
		s->mmsg_ok = false;
		if (s->mode == BP_UDP_SEND_MMSG)
			s->mode = BP_UDP_SEND_PLAIN;
	} else {
		return false;
	}
	s->st.fallbacks++;
	return true;
}

static void note_stop(struct bp_udp_sender *s, int err, int unsent)
{
	s->last_errno = err;
	s->st.unsent += (uint64_t)unsent;
	if (err == EAGAIN || err == EWOULDBLOCK)
		s->st.eagain++;
	else if (err == ENOBUFS)
		s->st.enobufs++;
	else
		drain_errqueue(s->fd);
}

int bp_udp_send_batch(struct bp_udp_sender *s, int n, bp_udp_fill_fn fill, void *arg)
{
	int sent = 0, err = 0;

	if (n < 1 || n > s->max_batch)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		fill(arg, s->iov[i].iov_base, s->payload_len, i);
	s->last_errno = 0;
	while (sent < n) {
		int k;

		err = 0;
		k = send_some(s, sent, n - sent, &err);
		sent += k;
		/*
		 * A sendmmsg that stopped early returns its count and keeps the reason to
		 * itself, though a full qdisc has already counted the refused datagram as
		 * dropped. Count the stop and ask again from that datagram on: the retry
		 * sends it after all or names the error.
		 */
		if (err == ERR_SHORT) {
			s->st.short_calls++;
			continue;
		}
		if (sent == n || (k > 0 && err == 0))
			continue;
		if (err == EINTR || fall_back(s, err))
			continue;
		note_stop(s, err ? err : EIO, n - sent);
		break;
	}
	s->st.datagrams += (uint64_t)sent;
	if (sent == 0 && err != EAGAIN && err != EWOULDBLOCK && err != ENOBUFS)
		return -(err ? err : EIO);
	return sent;
}

/* The kernel's counter is 32 bits and only grows; values older than one seen are ignored. */
static void note_drops(struct bp_udp_receiver *r, uint32_t raw)
{
	int32_t d = (int32_t)(raw - r->drops_raw);

	if (d > 0) {
		r->drops += (uint64_t)d;
		r->drops_raw = raw;
	}
}

static bool meminfo_probe(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	/* qemu-user and old kernels answer ENOPROTOOPT, or a short length: check both. */
	return getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0 &&
	       len >= (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t);
}

static int receiver_alloc(struct bp_udp_receiver *r)
{
	int n = r->batch;

	/* malloc, not calloc: GRO slot pages that nothing reaches stay untouched. */
	r->buf = malloc((size_t)n * r->slot_len);
	r->ctrl = calloc((size_t)n, CTRL_LEN);
	r->iov = calloc((size_t)n, sizeof(*r->iov));
	r->msgs = calloc((size_t)n, sizeof(*r->msgs));
	if (!r->buf || !r->ctrl || !r->iov || !r->msgs)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct msghdr *mh = &r->msgs[i].msg_hdr;

		r->iov[i].iov_base = r->buf + (size_t)i * r->slot_len;
		r->iov[i].iov_len = r->slot_len;
		mh->msg_iov = &r->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = r->ctrl + (size_t)i * CTRL_LEN;
		mh->msg_controllen = CTRL_LEN;
	}
	return 0;
}

int bp_udp_receiver_init(struct bp_udp_receiver *r, int fd, size_t max_payload, int batch,
			 bool try_gro)
{
	int one = 1, rc;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (max_payload < 1 || max_payload > MAX_RECV_PAYLOAD || batch < 1 ||
	    batch > BP_UDP_MAX_BATCH)
		return -EINVAL;
	r->max_payload = max_payload;
	r->batch = batch;
	r->mode = BP_UDP_RECV_MMSG;
	/* Without it the drop count is still read through SO_MEMINFO, where that exists. */
	r->ovfl_ok = setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) == 0;
	r->meminfo_ok = meminfo_probe(fd);
	if (try_gro && setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)) == 0) {
		r->gro = true;
		r->mode = BP_UDP_RECV_GRO;
	}
	r->slot_len = r->gro ? GRO_SLOT_LEN : max_payload;
	rc = receiver_alloc(r);
	if (rc < 0)
		bp_udp_receiver_free(r);
	return rc;
}

void bp_udp_receiver_free(struct bp_udp_receiver *r)
{
	free(r->buf);
	free(r->ctrl);
	free(r->iov);
	free(r->msgs);
	r->buf = NULL;
	r->ctrl = NULL;
	r->iov = NULL;
	r->msgs = NULL;
}

const char *bp_udp_receiver_mode(const struct bp_udp_receiver *r)
{
	if (r->mode == BP_UDP_RECV_GRO)
		return "gro+recvmmsg";
	if (r->mode == BP_UDP_RECV_MMSG)
		return "recvmmsg";
	return r->gro ? "gro+recv" : "recv";
}

int bp_udp_receiver_limit_mode(struct bp_udp_receiver *r, enum bp_udp_recv_mode mode)
{
	int zero = 0;

	if (mode < r->mode || mode > BP_UDP_RECV_PLAIN)
		return -EINVAL;
	if (r->gro && mode != BP_UDP_RECV_GRO) {
		/* Buffers coalesced before this still arrive whole; the slots stay large for them. */
		setsockopt(r->fd, IPPROTO_UDP, UDP_GRO, &zero, sizeof(zero));
		r->gro = false;
	}
	r->mode = mode;
	return 0;
}

int bp_udp_receiver_stamps(struct bp_udp_receiver *r)
{
	int one = 1;

	if (setsockopt(r->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		return -errno;
	r->stamps = true;
	return 0;
}

/* The drop counter, the GRO segment size and the arrival time ride along as control messages. */
static int parse_cmsgs(struct bp_udp_receiver *r, struct msghdr *mh)
{
	int seg = 0;

	r->stamp_ns = 0;
	if (mh->msg_controllen == 0)
		return 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			uint32_t v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			note_drops(r, v);
		} else if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO) {
			memcpy(&seg, CMSG_DATA(c), sizeof(seg));
		} else if (r->stamps && c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SCM_TIMESTAMPNS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			if (ts.tv_sec > 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000)
				r->stamp_ns = (uint64_t)ts.tv_sec * 1000000000u +
					      (uint64_t)ts.tv_nsec;
		}
	}
	return seg;
}

/* Hand one received buffer to the handler, cut into its datagrams when GRO joined several. */
static int deliver(struct bp_udp_receiver *r, struct msghdr *mh, size_t len, uint64_t now,
		   bp_udp_handler_fn handler, void *arg)
{
	const uint8_t *p = mh->msg_iov->iov_base;
	size_t seg = (size_t)parse_cmsgs(r, mh);
	int n = 0;

	if (mh->msg_flags & MSG_TRUNC)
		r->st.truncated++;
	if (seg == 0 || seg >= len) {
		handler(arg, p, len, now);
		return 1;
	}
	r->st.coalesced++;
	/* Every segment has the size the kernel gave, but the last one may be shorter. */
	for (size_t off = 0; off < len; off += seg, n++)
		handler(arg, p + off, len - off < seg ? len - off : seg, now);
	return n;
}

static int recv_plain(struct bp_udp_receiver *r, bp_udp_handler_fn handler, void *arg)
{
	struct msghdr *mh = &r->msgs[0].msg_hdr;
	int total = 0;

	for (int i = 0; i < r->batch; i++) {
		ssize_t n;

		mh->msg_controllen = CTRL_LEN;
		r->st.calls++;
		n = recvmsg(r->fd, mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || total)
				break;
			return -errno;
		}
		total += deliver(r, mh, (size_t)n, bp_now_ns(), handler, arg);
	}
	r->st.datagrams += (uint64_t)total;
	return total;
}

int bp_udp_recv_batch(struct bp_udp_receiver *r, bp_udp_handler_fn handler, void *arg)
{
	int n, total = 0;
	uint64_t now;

	if (r->mode == BP_UDP_RECV_PLAIN)
		return recv_plain(r, handler, arg);
	/* The kernel shrinks msg_controllen to what it wrote; give back the full room. */
	for (int i = 0; i < r->batch; i++)
		r->msgs[i].msg_hdr.msg_controllen = CTRL_LEN;
	r->st.calls++;
	n = recvmmsg(r->fd, r->msgs, (unsigned)r->batch, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		if (errno != ENOSYS)
			return -errno;
		r->mode = BP_UDP_RECV_PLAIN;
		return recv_plain(r, handler, arg);
	}
	now = bp_now_ns();
	for (int i = 0; i < n; i++)
		total += deliver(r, &r->msgs[i].msg_hdr, r->msgs[i].msg_len, now, handler, arg);
	r->st.datagrams += (uint64_t)total;
	return total;
}

uint64_t bp_udp_drain(struct bp_udp_receiver *r, bp_udp_handler_fn handler, void *arg,
		      uint64_t until_ns, uint64_t idle_ns)
{
	uint64_t idle_since = 0, now, got = 0;
	int n;

	while ((now = bp_now_ns()) < until_ns) {
		n = bp_udp_recv_batch(r, handler, arg);
		if (n > 0) {
			got += (uint64_t)n;
			idle_since = 0;
			continue;
		}
		if (!idle_since)
			idle_since = now;
		else if (now - idle_since >= idle_ns)
			break;
		/* the fake clock (core/clock.h) moves on to the deadline instead of sleeping */
		bp_sleep_until_ns(now + idle_ns / 10 + 1 < until_ns ? now + idle_ns / 10 + 1 :
				  until_ns);
	}
	return got;
}

uint64_t bp_udp_receiver_kernel_drops(struct bp_udp_receiver *r)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (r->meminfo_ok && getsockopt(r->fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0 &&
	    len >= (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t))
		note_drops(r, mi[SK_MEMINFO_DROPS]);
	return r->drops;
}

bool bp_udp_receiver_drops_known(const struct bp_udp_receiver *r)
{
	return r->ovfl_ok || r->meminfo_ok;
}

/*
 * Set one buffer; returns the size getsockopt reports (twice the request, or less when
 * capped). Past the sysctl cap only the FORCE variant goes, and only with CAP_NET_ADMIN.
 */
static int set_buffer(int fd, int opt, int force, int bytes, const char *name,
		      const char *sysctl, char *err, size_t errlen)
{
	int got = 0, ferr = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, opt, &got, &len) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s %d: %s", name, bytes, strerror(e));
		return -e;
	}
	if (got / 2 >= bytes)
		return got;
	if (setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof(bytes)) < 0)
		ferr = errno;
	len = sizeof(got);
	if (getsockopt(fd, SOL_SOCKET, opt, &got, &len) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s %d: %s", name, bytes, strerror(e));
		return -e;
	}
	if (got / 2 < bytes && errlen) {
		size_t used = strnlen(err, errlen);

		/* A note, not an error: appended so a capped SO_SNDBUF and SO_RCVBUF both show. */
		snprintf(err + used, errlen - used, "%s%s %d capped at %d by net.core.%s%s",
			 used ? "; " : "", name, bytes, got / 2, sysctl,
			 ferr == EPERM ? " (going past it needs CAP_NET_ADMIN)" : "");
	}
	return got;
}

int bp_udp_set_buffers(int fd, int bytes, char *err, size_t errlen)
{
	int snd, rcv;

	if (errlen)
		err[0] = '\0';
	/* The kernel doubles the value in an int: larger requests cannot be honoured. */
	if (bytes < 1 || bytes > 0x3fffffff) {
		snprintf(err, errlen, "socket buffer size %d: out of range", bytes);
		return -EINVAL;
	}
	snd = set_buffer(fd, SO_SNDBUF, SO_SNDBUFFORCE, bytes, "SO_SNDBUF", "wmem_max", err,
			 errlen);
	if (snd < 0)
		return snd;
	rcv = set_buffer(fd, SO_RCVBUF, SO_RCVBUFFORCE, bytes, "SO_RCVBUF", "rmem_max", err,
			 errlen);
	if (rcv < 0)
		return rcv;
	return min_int(snd, rcv);
}
