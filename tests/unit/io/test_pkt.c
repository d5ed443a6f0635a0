/*
 * The packet engine (io/pkt_frame.c, io/pkt_tx.c): frame templates and the incremental
 * UDP checksum against a checksum computed from scratch over the whole datagram; then,
 * where CAP_NET_RAW is at hand, datagrams sent through the TX ring over loopback and read
 * back from an ordinary UDP socket, every one in order (the kernel checks the checksum:
 * a wrong one is dropped, so the count is the proof).
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/clock.h"

#include "io/pkt_frame.h"
#include "io/pkt_rx.h"
#include "io/pkt_tx.h"
#include "io/udp_header.h"
#include "tap.h"

/* The RFC 1071 sum written the plain way, word by word over a buffer: the reference. */
static uint16_t ref_csum(const uint8_t *a, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i += 2)
		s += (uint64_t)a[i] << 8 | (i + 1 < n ? a[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The datagram's checksum verified as a receiver does: pseudo-header + UDP sums to ~0. */
static int udp_ok(const struct bp_pkt_path *p, const uint8_t *f, const struct bp_pkt_frame *fr)
{
	uint8_t buf[2048];
	size_t alen = p->family == AF_INET ? 4 : 16, ulen = fr->len - fr->udp_off, n = 0;

	memcpy(buf + n, p->src, alen);
	n += alen;
	memcpy(buf + n, p->dst, alen);
	n += alen;
	buf[n++] = 0;
	buf[n++] = IPPROTO_UDP;
	buf[n++] = (uint8_t)(ulen >> 8);
	buf[n++] = (uint8_t)ulen;
	memcpy(buf + n, f + fr->udp_off, ulen);
	n += ulen;
	return ref_csum(buf, n) == 0xffff && (f[fr->udp_off + 6] | f[fr->udp_off + 7]) != 0;
}

static void path4(struct bp_pkt_path *p)
{
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	inet_pton(AF_INET, "198.18.0.1", p->src);
	inet_pton(AF_INET, "198.18.0.2", p->dst);
	p->sport = 40000;
	p->dport = 5201;
	p->mtu = 1500;
	memcpy(p->src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(p->dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
}

static void test_templates(void)
{
	struct bp_pkt_path p;
	struct bp_pkt_frame fr;
	uint8_t f[2048];
	int all = 1;

	path4(&p);
	CHECK_INT(bp_pkt_frame_build(&p, 18, f, sizeof(f), &fr), 0);
	CHECK_INT(fr.len, 60);  /* a 64-byte frame with its FCS */
	CHECK(f[12] == 0x08 && f[13] == 0x00);
	CHECK(ref_csum(f + 14, 20) == 0xffff);  /* the IPv4 header's checksum */
	CHECK_INT(f[14 + 2] << 8 | f[14 + 3], 46);
	CHECK_INT(f[fr.udp_off] << 8 | f[fr.udp_off + 1], 40000);
	/* Every sequence and time through the incremental checksum, including carries. */
	for (uint64_t s = 0; s < 70000; s += 7) {
		struct bp_udp_header h = { .sec = (uint32_t)(s * 977), .usec = (uint32_t)(s % 999999),
					   .seq = s * 65537 };

		bp_udp_header_encode(f + fr.payload_off, fr.payload_len, &h, s & 1);
		bp_pkt_frame_csum(&fr, f, BP_UDP_HDR_LEN_SEQ64);
		all &= udp_ok(&p, f, &fr);
	}
	CHECK(all);
	CHECK_INT(bp_pkt_frame_build(&p, 1472, f, sizeof(f), &fr), 0);
	CHECK_INT(fr.len, 1514);
	CHECK_INT(bp_pkt_frame_build(&p, 1473, f, sizeof(f), &fr), -EMSGSIZE);
	/* IPv6: 40-byte header, payload length field, the checksum over the v6 pseudo-header. */
	p.family = AF_INET6;
	inet_pton(AF_INET6, "fd00::1", p.src);
	inet_pton(AF_INET6, "fd00::2", p.dst);
	CHECK_INT(bp_pkt_frame_build(&p, 1452, f, sizeof(f), &fr), 0);
	CHECK_INT(fr.len, 1514);
	CHECK(f[12] == 0x86 && f[13] == 0xdd && f[14] >> 4 == 6);
	CHECK_INT(f[18] << 8 | f[19], 1460);
	for (uint32_t s = 1; s < 3000; s++) {
		struct bp_udp_header h = { .sec = s, .usec = s * 333, .seq = 0xffffffffu - s };

		bp_udp_header_encode(f + fr.payload_off, fr.payload_len, &h, false);
		bp_pkt_frame_csum(&fr, f, BP_UDP_HDR_LEN_SEQ64);
		all &= udp_ok(&p, f, &fr);
	}
	CHECK(all);
	CHECK_INT(bp_pkt_frame_build(&p, 1453, f, sizeof(f), &fr), -EMSGSIZE);
	p.family = AF_UNIX;
	CHECK_INT(bp_pkt_frame_build(&p, 100, f, sizeof(f), &fr), -EINVAL);
}

/* The classic BPF the filter uses, run as the kernel runs it (loads past the end: 0). */
static uint32_t run_bpf(const struct sock_filter *p, int n, const uint8_t *pkt, size_t len)
{
	uint32_t a = 0, x = 0;

	for (int pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &p[pc];
		uint32_t k = i->k, o = k;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (o + 4 > len)
				return 0;
			a = (uint32_t)pkt[o] << 24 | (uint32_t)pkt[o + 1] << 16 | pkt[o + 2] << 8 |
			    pkt[o + 3];
			break;
		case BPF_LD | BPF_H | BPF_IND:
			o = x + k;
			/* fall through */
		case BPF_LD | BPF_H | BPF_ABS:
			if (o + 2 > len)
				return 0;
			a = (uint32_t)pkt[o] << 8 | pkt[o + 1];
			break;
		case BPF_LD | BPF_B | BPF_ABS:
			if (o + 1 > len)
				return 0;
			a = pkt[o];
			break;
		case BPF_LDX | BPF_B | BPF_MSH:
			if (o + 1 > len)
				return 0;
			x = 4u * (pkt[o] & 0xf);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return k;
		default:
			return 0xdead;  /* an instruction this test does not know: fails it */
		}
	}
	return 0xdead;  /* ran off the end */
}

/* The path as the peer sees it: what it sends is what our receiver must match. */
static void swapped(const struct bp_pkt_path *p, struct bp_pkt_path *q)
{
	*q = *p;
	memcpy(q->src, p->dst, 16);
	memcpy(q->dst, p->src, 16);
	q->sport = p->dport;
	q->dport = p->sport;
}

/* The RX filter takes the stream's packets (IPv4 with options too) and nothing else. */
static void test_filter(void)
{
	struct sock_filter prog[32];
	struct bp_pkt_path p, q;
	struct bp_pkt_frame fr;
	uint8_t f[2048], g[2048];
	const uint8_t *pl;
	size_t len;
	int n;

	path4(&p);
	swapped(&p, &q);
	n = bp_pkt_rx_filter(&p, 98, prog, 32);
	CHECK(n > 0);
	CHECK_INT(bp_pkt_frame_build(&q, 100, f, sizeof(f), &fr), 0);
	CHECK_INT(run_bpf(prog, n, f, fr.len), 98);
	CHECK(bp_pkt_rx_parse(AF_INET, f, 98, &pl, &len) && pl == f + 42 && len == 100);
	memcpy(g, f, fr.len);
	g[12] = 0x86;                                /* not IPv4 */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[14 + 9] = IPPROTO_TCP;
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[14 + 15] ^= 1;                             /* another source */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[14 + 19] ^= 1;                             /* another target */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[fr.udp_off + 1] ^= 1;                      /* another source port */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[fr.udp_off + 3] ^= 1;                      /* another target port */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	memcpy(g, f, fr.len);
	g[14 + 7] = 185;                             /* a later fragment */
	CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	/* IPv4 with 4 bytes of options: the ports and the payload move along. */
	memcpy(g, f, 34);
	memset(g + 34, 1, 4);
	memcpy(g + 38, f + 34, fr.len - 34);
	g[14] = 0x46;
	CHECK_INT(run_bpf(prog, n, g, fr.len + 4), 98);
	CHECK(bp_pkt_rx_parse(AF_INET, g, 98, &pl, &len) && pl == g + 46 && len == 100);
	/* IPv6: all 128 bits of both addresses count. */
	p.family = AF_INET6;
	inet_pton(AF_INET6, "fd00::1", p.src);
	inet_pton(AF_INET6, "fd00::2", p.dst);
	swapped(&p, &q);
	n = bp_pkt_rx_filter(&p, 78, prog, 32);
	CHECK(n > 0);
	CHECK_INT(bp_pkt_frame_build(&q, 100, f, sizeof(f), &fr), 0);
	CHECK_INT(run_bpf(prog, n, f, fr.len), 78);
	CHECK(bp_pkt_rx_parse(AF_INET6, f, 78, &pl, &len) && pl == f + 62 && len == 100);
	for (int i = 22; i < 54; i += 5) {
		memcpy(g, f, fr.len);
		g[i] ^= 0x10;
		CHECK_INT(run_bpf(prog, n, g, fr.len), 0);
	}
	/* A capture that stops inside the payload header is refused, not read past. */
	CHECK(!bp_pkt_rx_parse(AF_INET6, f, 70, &pl, &len));
	CHECK_INT(bp_pkt_rx_filter(&p, 78, prog, 8), -EINVAL);
}

static uint64_t next_seq = 1;

static void fill(void *arg, uint8_t *payload, size_t len, int index)
{
	struct bp_udp_header h = { .seq = next_seq + (uint64_t)index };

	(void)arg;
	bp_udp_header_set_time(&h, 1);
	bp_udp_header_encode(payload, len, &h, true);
}

/* A receiver on the loopback address of family and a connected sender: the 4-tuple. */
static int pair(int family, int *rx, int *tx)
{
	struct sockaddr_storage a;
	socklen_t l = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	int big = 4 << 20;

	memset(&a, 0, sizeof(a));
	a.ss_family = (sa_family_t)family;
	if (family == AF_INET)
		((struct sockaddr_in *)&a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&a)->sin6_addr = in6addr_loopback;
	*rx = socket(family, SOCK_DGRAM, 0);
	*tx = socket(family, SOCK_DGRAM, 0);
	setsockopt(*rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (bind(*rx, (struct sockaddr *)&a, l) || getsockname(*rx, (void *)&a, &l))
		return -1;
	return connect(*tx, (struct sockaddr *)&a, l);
}

static int set_conf(const char *knob, const char *v)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/lo/%s", knob);
	f = fopen(path, "w");
	return f && fputs(v, f) >= 0 && fclose(f) == 0 ? 0 : -1;
}

/* A network namespace of the test's own with lo up: the frames stay off the host's lo. */
static const char *own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET) < 0)
		return "no network namespace of its own (needs CAP_SYS_ADMIN)";
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return "no lo in the new namespace";
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return "lo will not come up";
	close(fd);
	if (set_conf("accept_local", "0") || set_conf("route_localnet", "0"))
		return "lo's accept_local and route_localnet cannot be set";
	return NULL;
}

/*
 * Over IPv4 loopback the frames would be martians: refused, naming the sysctl, until both
 * are on (then they arrive: see send_count).
 */
static void test_martians(void)
{
	struct bp_pkt_tx t;
	char err[256] = "";
	int rx, tx;

	CHECK(pair(AF_INET, &rx, &tx) == 0);
	CHECK_INT(bp_pkt_tx_open(&t, tx, 64, err, sizeof(err)), -EOPNOTSUPP);
	CHECK(strstr(err, "net.ipv4.conf.lo.accept_local=1") != NULL);
	set_conf("accept_local", "1");
	CHECK_INT(bp_pkt_tx_open(&t, tx, 64, err, sizeof(err)), -EOPNOTSUPP);
	CHECK(strstr(err, "net.ipv4.conf.lo.route_localnet=1") != NULL);
	set_conf("route_localnet", "1");
	close(rx);
	close(tx);
}

/* Datagrams through the ring, read back from the receiver: every one, in order. */
static void send_count(int family)
{
	struct bp_pkt_tx t;
	char err[256] = "";
	uint8_t buf[2048];
	int rx, tx, rc, got = 0, inorder = 1;
	const int batches = 40, per = 50;

	next_seq = 1;
	CHECK(pair(family, &rx, &tx) == 0);
	rc = bp_pkt_tx_open(&t, tx, 64, err, sizeof(err));
	if (rc == -ENOPROTOOPT) {
		/* the ARM builds' unit tests run under qemu-user, which has no PACKET_TX_RING */
		printf("ok %d - # SKIP PACKET_TX_RING refused (%s): qemu-user does not translate it\n",
		       ++tap_n, err);
		close(rx);
		close(tx);
		return;
	}
	CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	CHECK(t.path.loopback && t.path.family == family);
	for (int b = 0; b < batches; b++) {
		/* Fifty at a time: the loopback backlog (netdev_max_backlog) holds a thousand. */
		int sent = bp_pkt_tx_send(&t, per, fill, NULL);
		ssize_t n;

		next_seq += (uint64_t)sent;
		while ((n = recv(rx, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			struct bp_udp_header h;

			inorder &= n == 64 && bp_udp_header_decode(buf, (size_t)n, true, &h) > 0 &&
				   h.seq == (uint64_t)got + 1;
			got++;
		}
	}
	CHECK_INT(bp_pkt_tx_flush(&t, bp_now_ns() + BP_NS_PER_SEC), 0);
	/* What the softirq has not delivered yet: wait for it, a second at most. */
	for (int i = 0; i < 100 && got < batches * per; i++) {
		struct pollfd pf = { .fd = rx, .events = POLLIN };

		if (poll(&pf, 1, 10) > 0 && recv(rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			got++;
	}
	CHECK_INT(t.st.frames, batches * per);
	CHECK_INT(got, batches * per);
	CHECK(inorder);
	bp_pkt_tx_close(&t);
	close(rx);
	close(tx);
}

static void test_loopback(void)
{
	const char *why = own_netns();
	int probe = socket(AF_PACKET, SOCK_RAW, 0);

	if (probe < 0)
		why = "no AF_PACKET socket (needs CAP_NET_RAW)";
	else
		close(probe);
	if (why) {
		printf("ok %d - # SKIP loopback through the TX ring: %s\n", ++tap_n, why);
		return;
	}
	test_martians();
	send_count(AF_INET);
	send_count(AF_INET6);
}

int main(void)
{
	test_templates();
	test_filter();
	test_loopback();
	return tap_done();
}
