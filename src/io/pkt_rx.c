#include "io/pkt_rx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/pkt_frame.h"

/*
 * 32 blocks of 256 KiB (8 MiB of locked memory per stream: -P 8 on a 512 MB board is
 * already a seventh of it): ~1,300 captures each, 40,000 in all (40 ms at a million
 * packets/s). A block not yet full is handed over after BLOCK_TIMEOUT_MS, so at low rates
 * each block holds that long's packets and the ring 32 times that: many small blocks, not
 * a few big ones, or a reader held off the CPU for a few ms loses packets at a trickle
 * (8 blocks of 2 ms dropped 135 of 8,600 datagrams/s under ASan).
 */
#define BLOCK_SIZE (1u << 18)
#define NBLOCKS 32
#define FRAME_SIZE 2048
#define BLOCK_TIMEOUT_MS 4
/* Headers copied per datagram: Ethernet, IPv4 with options or IPv6, UDP, payload header. */
#define SNAP_V4 (BP_PKT_ETH_LEN + 60 + BP_PKT_UDP_LEN + BP_PKT_RX_SNAP_PAYLOAD)
#define SNAP_V6 (BP_PKT_ETH_LEN + BP_PKT_IP6_LEN + BP_PKT_UDP_LEN + BP_PKT_RX_SNAP_PAYLOAD)
#define MAX_PROG 32
#define DROP 0xff  /* a jump's placeholder: patched to the final "return 0" */

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct prog {
	struct sock_filter *f;
	int n, max;
};

static void emit(struct prog *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
	if (p->n < p->max)
		p->f[p->n] = (struct sock_filter){ .code = code, .jt = jt, .jf = jf, .k = k };
	p->n++;
}

/* Load the field (size BPF_B/H/W at off), go on only if it equals want. */
static void match(struct prog *p, uint16_t size, uint32_t off, uint32_t want)
{
	emit(p, BPF_LD | size | BPF_ABS, off, 0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, want, 0, DROP);
}

static void match_addr(struct prog *p, uint32_t off, const uint8_t *a, int words)
{
	for (int i = 0; i < words; i++)
		match(p, BPF_W, off + 4 * (uint32_t)i, be32_at(a + 4 * i));
}

int bp_pkt_rx_filter(const struct bp_pkt_path *pp, unsigned snap, struct sock_filter *f,
		     int max)
{
	struct prog p = { .f = f, .max = max };
	bool v4 = pp->family == AF_INET;

	if (pp->family != AF_INET && pp->family != AF_INET6)
		return -EINVAL;
	/* Received: the peer (path's dst) is the source, this socket (path's src) the target. */
	match(&p, BPF_H, 12, v4 ? ETH_P_IP : ETH_P_IPV6);
	if (v4) {
		match(&p, BPF_B, 23, IPPROTO_UDP);
		match_addr(&p, 26, pp->dst, 1);
		match_addr(&p, 30, pp->src, 1);
		/* A fragment other than the first has no UDP header where one is expected. */
		emit(&p, BPF_LD | BPF_H | BPF_ABS, 20, 0, 0);
		emit(&p, BPF_JMP | BPF_JSET | BPF_K, 0x1fff, DROP, 0);
		emit(&p, BPF_LDX | BPF_B | BPF_MSH, BP_PKT_ETH_LEN, 0, 0);
		emit(&p, BPF_LD | BPF_H | BPF_IND, BP_PKT_ETH_LEN, 0, 0);
		emit(&p, BPF_JMP | BPF_JEQ | BPF_K, pp->dport, 0, DROP);
		emit(&p, BPF_LD | BPF_H | BPF_IND, BP_PKT_ETH_LEN + 2, 0, 0);
		emit(&p, BPF_JMP | BPF_JEQ | BPF_K, pp->sport, 0, DROP);
	} else {
		/* Next header UDP straight after the fixed header: no extension headers. */
		match(&p, BPF_B, 20, IPPROTO_UDP);
		match_addr(&p, 22, pp->dst, 4);
		match_addr(&p, 38, pp->src, 4);
		match(&p, BPF_H, 54, pp->dport);
		match(&p, BPF_H, 56, pp->sport);
	}
	emit(&p, BPF_RET | BPF_K, snap, 0, 0);
	emit(&p, BPF_RET | BPF_K, 0, 0, 0);
	if (p.n > max)
		return -EINVAL;
	for (int i = 0; i < p.n; i++) {
		if (f[i].jt == DROP)
			f[i].jt = (uint8_t)(p.n - 2 - i);
		if (f[i].jf == DROP)
			f[i].jf = (uint8_t)(p.n - 2 - i);
	}
	return p.n;
}

static int fail(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "packet engine: %s: %s%s", what, strerror(e),
		 e == EPERM ? " (it needs CAP_NET_RAW)" : "");
	return -e;
}

/* The filter first, then the ring, then bind: no packet of another flow ever gets in. */
static int setup(struct bp_pkt_rx *r, char *err, size_t errlen)
{
	struct sock_filter prog[MAX_PROG];
	struct sock_fprog fp = { .filter = prog };
	int v = TPACKET_V3, n = bp_pkt_rx_filter(&r->path, r->path.family == AF_INET ?
						   SNAP_V4 : SNAP_V6, prog, MAX_PROG);
	struct tpacket_req3 req = { .tp_block_size = BLOCK_SIZE, .tp_block_nr = NBLOCKS,
				    .tp_frame_size = FRAME_SIZE,
				    .tp_frame_nr = BLOCK_SIZE / FRAME_SIZE * NBLOCKS,
				    .tp_retire_blk_tov = BLOCK_TIMEOUT_MS };
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
				 .sll_ifindex = r->path.ifindex };

	if (n < 0)
		return fail(err, errlen, "filter", EINVAL);
	fp.len = (unsigned short)n;
	if (setsockopt(r->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0)
		return fail(err, errlen, "attaching the filter", errno);
	if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		return fail(err, errlen, "TPACKET_V3 RX ring", errno);
	r->block_size = BLOCK_SIZE;
	r->nblocks = NBLOCKS;
	r->ring_len = (size_t)BLOCK_SIZE * NBLOCKS;
	r->ring = mmap(NULL, r->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->ring == MAP_FAILED) {
		r->ring = NULL;
		return fail(err, errlen, "mapping the RX ring", errno);
	}
	if (bind(r->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail(err, errlen, "binding to the device", errno);
	return 0;
}

/* The UDP socket gets the same packets from the IP stack: let UDP drop them at once. */
static int mute_udp(int udp_fd, char *err, size_t errlen)
{
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog fp = { .len = 1, .filter = &none };

	if (setsockopt(udp_fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0)
		return fail(err, errlen, "muting the UDP socket", errno);
	return 0;
}

int bp_pkt_rx_open(struct bp_pkt_rx *r, int udp_fd, char *err, size_t errlen)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (r->fd < 0)
		return fail(err, errlen, "AF_PACKET socket", errno);
	/* The next hop does not matter to a receiver: a missing neighbour entry is fine. */
	rc = bp_pkt_path_resolve(udp_fd, &r->path, err, errlen);
	if (rc == -EHOSTUNREACH)
		rc = 0;
	if (!rc && r->path.loopback) {
		/* lo's tap sees each packet twice (out and in), and frames no route. */
		snprintf(err, errlen, "packet engine: no RX ring over loopback");
		rc = -EOPNOTSUPP;
	}
	if (!rc)
		rc = setup(r, err, errlen);
	if (!rc)
		rc = mute_udp(udp_fd, err, errlen);
	if (rc)
		bp_pkt_rx_close(r);
	return rc;
}

void bp_pkt_rx_close(struct bp_pkt_rx *r)
{
	if (r->ring)
		munmap(r->ring, r->ring_len);
	if (r->fd >= 0)
		close(r->fd);
	r->ring = NULL;
	r->fd = -1;
}

bool bp_pkt_rx_parse(int family, const uint8_t *f, size_t snap, const uint8_t **payload,
		     size_t *len)
{
	size_t off, udp_len, got;

	if (snap < BP_PKT_ETH_LEN + BP_PKT_IP4_LEN)
		return false;
	off = BP_PKT_ETH_LEN + (family == AF_INET ? (size_t)(f[14] & 0xf) * 4 : BP_PKT_IP6_LEN);
	if (snap < off + BP_PKT_UDP_LEN)
		return false;
	udp_len = (size_t)f[off + 4] << 8 | f[off + 5];
	if (udp_len < BP_PKT_UDP_LEN)
		return false;
	*len = udp_len - BP_PKT_UDP_LEN;
	*payload = f + off + BP_PKT_UDP_LEN;
	got = snap - off - BP_PKT_UDP_LEN;
	/* What the handler reads (the payload header) must have been captured. */
	return got >= (*len < BP_PKT_RX_SNAP_PAYLOAD ? *len : BP_PKT_RX_SNAP_PAYLOAD);
}

/*
 * The kernel stamps each packet with CLOCK_REALTIME; moved to the monotonic clock by the
 * two clocks' difference now (a test's few seconds of NTP slew are far below a µs).
 */
static int64_t realtime_offset(uint64_t mono_now)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)((uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec) -
	       (int64_t)mono_now;
}

static int read_block(struct bp_pkt_rx *r, struct tpacket_block_desc *bd,
		      bp_udp_handler_fn handler, void *arg, uint64_t now, int64_t off)
{
	uint32_t n = bd->hdr.bh1.num_pkts;
	struct tpacket3_hdr *h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
	int count = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct sockaddr_ll *ll = (const void *)((uint8_t *)h + TPACKET_ALIGN(
						   sizeof(struct tpacket3_hdr)));
		uint64_t t = (uint64_t)h->tp_sec * BP_NS_PER_SEC + h->tp_nsec;
		const uint8_t *payload;
		size_t len;

		if (ll->sll_pkttype == PACKET_OUTGOING) {
			/* ours going out: not received */
		} else if (bp_pkt_rx_parse(r->path.family, (uint8_t *)h + h->tp_mac, h->tp_snaplen,
					   &payload, &len)) {
			int64_t a = (int64_t)t - off;

			handler(arg, payload, len, a > 0 && (uint64_t)a < now ? (uint64_t)a : now);
			count++;
		} else {
			r->st.malformed++;
		}
		h = (void *)((uint8_t *)h + h->tp_next_offset);
	}
	return count;
}

int bp_pkt_rx_read(struct bp_pkt_rx *r, bp_udp_handler_fn handler, void *arg)
{
	uint64_t now = bp_now_ns();
	int64_t off = realtime_offset(now);
	int total = 0;

	for (unsigned k = 0; k < r->nblocks; k++) {
		struct tpacket_block_desc *bd = (void *)(r->ring + (size_t)r->cur * r->block_size);

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		total += read_block(r, bd, handler, arg, now, off);
		r->st.blocks++;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->cur = r->cur + 1 == r->nblocks ? 0 : r->cur + 1;
	}
	r->st.datagrams += (uint64_t)total;
	return total;
}

uint64_t bp_pkt_rx_drops(struct bp_pkt_rx *r)
{
	struct tpacket_stats_v3 s;
	socklen_t l = sizeof(s);

	if (getsockopt(r->fd, SOL_PACKET, PACKET_STATISTICS, &s, &l) == 0)
		r->drops += s.tp_drops;
	return r->drops;
}
