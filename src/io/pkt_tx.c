#include "io/pkt_tx.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/udp_header.h"

/* Slots in the ring: a few hundred microseconds of line rate at 1 Mpps, ~1 MB at 1518 B. */
#define RING_FRAMES 1024
#define RING_BLOCK 4096
/* The socket's send buffer: each queued frame holds its skb's truesize until it leaves. */
#define SNDBUF_BYTES (4 << 20)
/* How long the end waits between kicks while frames are still queued. */
#define FLUSH_PAUSE_NS (BP_NS_PER_MS)

/* A slot's frame starts after the tpacket header, aligned as the kernel expects it. */
static size_t data_offset(void)
{
	return TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
}

static size_t pow2_at_least(size_t n)
{
	size_t p = 64;

	while (p < n)
		p <<= 1;
	return p;
}

static int ring_setup(struct bp_pkt_tx *t, char *err, size_t errlen)
{
	int v = TPACKET_V2, one = 1, sndbuf = SNDBUF_BYTES;
	struct tpacket_req req;

	t->frame_size = pow2_at_least(data_offset() + t->frame.len);
	memset(&req, 0, sizeof(req));
	req.tp_frame_size = (unsigned)t->frame_size;
	req.tp_block_size = (unsigned)(t->frame_size > RING_BLOCK ? t->frame_size : RING_BLOCK);
	req.tp_frame_nr = RING_FRAMES;
	req.tp_block_nr = (unsigned)((size_t)RING_FRAMES * t->frame_size / req.tp_block_size);
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
	    setsockopt(t->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0) {
		int e = errno;

		snprintf(err, errlen, "packet engine: TX ring of %u x %zu bytes: %s", RING_FRAMES,
			 t->frame_size, strerror(e));
		return -e;
	}
	/* Past the qdisc: the driver's own queue is the only one (older kernels lack it). */
	setsockopt(t->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	if (setsockopt(t->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
		setsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	t->nframes = RING_FRAMES;
	t->ring_len = (size_t)RING_FRAMES * t->frame_size;
	t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->ring == MAP_FAILED) {
		int e = errno;

		t->ring = NULL;
		snprintf(err, errlen, "packet engine: mapping the TX ring: %s", strerror(e));
		return -e;
	}
	return 0;
}

static struct tpacket2_hdr *slot(const struct bp_pkt_tx *t, unsigned i)
{
	return (struct tpacket2_hdr *)(void *)(t->ring + (size_t)i * t->frame_size);
}

/* Every slot gets the template once; per datagram only header and checksum change. */
static void fill_ring(struct bp_pkt_tx *t, const uint8_t *tmpl)
{
	for (unsigned i = 0; i < t->nframes; i++)
		memcpy((uint8_t *)slot(t, i) + t->data_off, tmpl, t->frame.len);
}

int bp_pkt_tx_open(struct bp_pkt_tx *t, int udp_fd, size_t payload_len, char *err,
		   size_t errlen)
{
	/* The largest frame an IP datagram makes; on the heap, not a worker's stack. */
	size_t tmpl_len = 65535 + BP_PKT_ETH_LEN;
	uint8_t *tmpl;
	int rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	/* Protocol 0: a socket that only sends, so the kernel copies no received packet to it. */
	t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (t->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "packet engine: AF_PACKET socket: %s%s", strerror(-rc),
			 rc == -EPERM ? " (it needs CAP_NET_RAW)" : "");
		return rc;
	}
	rc = bp_pkt_path_resolve(udp_fd, &t->path, err, errlen);
	tmpl = rc ? NULL : malloc(tmpl_len);
	if (!rc && !tmpl) {
		snprintf(err, errlen, "packet engine: out of memory");
		rc = -ENOMEM;
	}
	if (!rc) {
		rc = bp_pkt_frame_build(&t->path, payload_len, tmpl, tmpl_len, &t->frame);
		if (rc == -EMSGSIZE)
			snprintf(err, errlen, "packet engine: a %zu-byte datagram does not fit "
				 "%s's MTU of %d", payload_len, t->path.ifname, t->path.mtu);
	}
	t->data_off = data_offset();
	if (!rc)
		rc = ring_setup(t, err, errlen);
	if (!rc)
		fill_ring(t, tmpl);
	free(tmpl);
	if (rc)
		bp_pkt_tx_close(t);
	return rc;
}

void bp_pkt_tx_close(struct bp_pkt_tx *t)
{
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd >= 0)
		close(t->fd);
	t->ring = NULL;
	t->fd = -1;
}

/* Hand the marked slots to the kernel: it sends them all before it returns (no wait). */
static int kick(struct bp_pkt_tx *t)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_ifindex = t->path.ifindex,
				 .sll_protocol = htons(t->path.family == AF_INET ? ETH_P_IP :
						       ETH_P_IPV6) };

	t->st.kicks++;
	if (sendto(t->fd, NULL, 0, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a)) < 0) {
		/* ENOBUFS, EAGAIN: the driver's queue or the send buffer is full; the frames
		 * stay marked and the next kick sends them. */
		t->st.kick_errors++;
		return -errno;
	}
	return 0;
}

int bp_pkt_tx_send(struct bp_pkt_tx *t, int n, bp_udp_fill_fn fill, void *arg)
{
	size_t hl = t->frame.payload_len >= BP_UDP_HDR_LEN_SEQ64 ? BP_UDP_HDR_LEN_SEQ64 :
		    BP_UDP_HDR_LEN_SEQ32;
	int i;

	for (i = 0; i < n; i++) {
		struct tpacket2_hdr *h = slot(t, t->head);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		uint8_t *f = (uint8_t *)h + t->data_off;

		if (st & TP_STATUS_WRONG_FORMAT)
			t->st.bad_format++;
		else if (st != TP_STATUS_AVAILABLE)
			break;
		fill(arg, f + t->frame.payload_off, t->frame.payload_len, i);
		bp_pkt_frame_csum(&t->frame, f, hl);
		h->tp_len = (uint32_t)t->frame.len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
		t->head = t->head + 1 == t->nframes ? 0 : t->head + 1;
	}
	if (i < n)
		t->st.ring_full++;
	if (i > 0 || t->st.ring_full)
		kick(t);
	t->st.frames += (uint64_t)i;
	return i;
}

/* Slots still marked for sending (or being sent). */
static unsigned pending(const struct bp_pkt_tx *t)
{
	unsigned k = 0;

	for (unsigned i = 0; i < t->nframes; i++) {
		uint32_t st = __atomic_load_n(&slot(t, i)->tp_status, __ATOMIC_ACQUIRE);

		if (st & (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING))
			k++;
	}
	return k;
}

uint64_t bp_pkt_tx_flush(struct bp_pkt_tx *t, uint64_t deadline_ns)
{
	unsigned k;

	while ((k = pending(t)) > 0 && bp_now_ns() < deadline_ns) {
		struct timespec ts = { .tv_nsec = FLUSH_PAUSE_NS };

		kick(t);
		if (pending(t))
			nanosleep(&ts, NULL);
	}
	return k;
}
