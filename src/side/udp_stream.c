#include "side/udp_stream.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "core/clock.h"
#include "core/log.h"
#include "io/loop.h"
#include "io/udp_header.h"
#include "io/udp_io.h"
#include "io/pacer.h"
#include "io/pkt_rx.h"
#include "io/pkt_tx.h"
#include "proto/iperf2_udp.h"
#include "side/udp_seq.h"

/* Datagrams per system call: the pacer's cap, so no burst is larger than one batch. */
#define BATCH BP_PACER_MAX_BATCH
/* The largest datagram a receiver accepts (a UDP payload can be up to this). */
#define MAX_PAYLOAD 65507
/* BP_UDP_DRAIN_NS (udp_stream.h), and how long an empty socket ends a drain sooner: the
 * peer's last datagrams follow each other at its pace. */
#define DRAIN_NS BP_UDP_DRAIN_NS
#define DRAIN_IDLE_NS (2 * BP_NS_PER_MS)
/* A drained RX ring: no block came for longer than the kernel takes to hand a part-filled
 * one over (BLOCK_TIMEOUT_MS, 4 ms, in io/pkt_rx.c). */
#define RING_IDLE_NS (6 * BP_NS_PER_MS)
#define RING_PAUSE_NS (500 * BP_NS_PER_US)
/* How long a stopping packet engine may wait for its ring's last frames to leave. */
#define FLUSH_NS (50 * BP_NS_PER_MS)
/*
 * A full qdisc refuses sends with ENOBUFS but leaves the socket writable: a sender waiting
 * for EPOLLOUT is woken at once and spins on refusals (99.9 % of a core behind a 20 Mbit/s
 * tbf, 278,000 refused sends in 2 s). It waits instead: BACKOFF_MIN_NS, twice as long each
 * time the queue is still full, at most BACKOFF_MAX_NS (a qdisc sends a 1500-byte frame
 * every 120 us at 100 Mbit/s, every 12 us at 1 Gbit/s); a batch sent whole starts over.
 */
#define BACKOFF_MIN_NS (10 * BP_NS_PER_US)
#define BACKOFF_MAX_NS (1 * BP_NS_PER_MS)

struct bp_udp_stream {
	struct bp_udp_stream_cfg cfg;
	struct bp_loop *loop;
	struct bp_flow flow;
	struct bp_timer timer;
	struct bp_udp_sender tx;
	struct bp_udp_receiver rx;
	struct bp_pacer pacer;
	struct bp_udp_seq seq;
	bool io_ready, have_first, waiting_out;
	bool finished;               /* sender: its limit_datagrams are out */
	uint64_t backoff_ns;         /* sender: the wait after a full qdisc's refusal; 0 none */
	uint64_t next_seq;           /* sender: the next datagram's number (iperf3 starts at 1) */
	uint64_t now_ns;             /* sender: the batch's send time, for the headers */
	/* iperf 2 sender: the wall clock less the monotonic one, taken at the start: its
	 * datagrams carry the wall clock's time, as iperf -c's (its FIN too, and a server's
	 * transit figures compare them with its own clock) */
	uint64_t wall_offset_ns;
	struct bp_udp_stats st;      /* the worker's own ... */
	struct bp_udp_stats pub;     /* ... published copy, relaxed atomics per field */
};

static void publish(struct bp_udp_stream *u)
{
	const uint64_t *src = (const uint64_t *)&u->st;
	uint64_t *dst = (uint64_t *)&u->pub;

	/* All fields up to mode are 64-bit: copy them one atomic word at a time. */
	for (size_t i = 0; i < offsetof(struct bp_udp_stats, mode) / 8; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

void bp_udp_stream_stats(const struct bp_udp_stream *u, struct bp_udp_stats *out)
{
	const uint64_t *src = (const uint64_t *)&u->pub;
	uint64_t *dst = (uint64_t *)out;

	for (size_t i = 0; i < offsetof(struct bp_udp_stats, mode) / 8; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	memcpy(out->mode, u->pub.mode, sizeof(out->mode));
}

static void free_engines(const struct bp_udp_stream_cfg *cfg)
{
	if (cfg->pkt) {
		bp_pkt_tx_close(cfg->pkt);
		free(cfg->pkt);
	}
	if (cfg->pkt_rx) {
		bp_pkt_rx_close(cfg->pkt_rx);
		free(cfg->pkt_rx);
	}
}

struct bp_udp_stream *bp_udp_stream_new(const struct bp_udp_stream_cfg *cfg)
{
	struct bp_udp_stream *u = calloc(1, sizeof(*u));

	if (u) {
		u->cfg = *cfg;
		u->next_seq = 1;
		bp_welford_init(&u->st.transit);
	} else {
		free_engines(cfg);
	}
	return u;
}

static bool client_warned;

static void fallback(const char *why, bool *warned)
{
	/* A client says it once per process: rfc2544 runs many trials, each a new client. */
	if (!__atomic_exchange_n(warned ? warned : &client_warned, true, __ATOMIC_RELAXED))
		bp_log(BP_LOG_WARN, "%s: using the socket engine", why);
}

struct bp_pkt_tx *bp_udp_packet_engine(int fd, size_t payload_len, bool *warned)
{
	struct bp_pkt_tx *t = calloc(1, sizeof(*t));
	char err[200] = "packet engine: out of memory";
	int rc = t ? bp_pkt_tx_open(t, fd, payload_len, err, sizeof(err)) : -ENOMEM;

	if (!rc)
		return t;
	free(t);
	fallback(err, warned);
	return NULL;
}

struct bp_pkt_rx *bp_udp_packet_receiver(int fd, bool *warned)
{
	struct bp_pkt_rx *r = calloc(1, sizeof(*r));
	char err[200] = "packet engine: out of memory";
	int rc = r ? bp_pkt_rx_open(r, fd, err, sizeof(err)) : -ENOMEM;

	if (!rc)
		return r;
	free(r);
	fallback(err, warned);
	return NULL;
}

const char *const bp_udp_engine_names[] = { "socket", "packet", NULL };

const char *bp_udp_engine_of_mode(const char *mode)
{
	return strcmp(mode, "tx_ring") == 0 || strcmp(mode, "rx_ring") == 0 ? "packet" :
	       "socket";
}

static void fill_header(void *arg, uint8_t *payload, size_t len, int index)
{
	struct bp_udp_stream *u = arg;
	struct bp_udp_header h = { .seq = u->next_seq + (uint64_t)index };

	bp_udp_header_set_time(&h, u->now_ns + (u->cfg.iperf2 ? u->wall_offset_ns : 0));
	if (u->cfg.iperf2 && len >= BP_IPERF2_DGRAM_LEN + u->cfg.iperf2_hdr_len) {
		bp_iperf2_dgram_encode(payload, (int64_t)h.seq, h.sec, h.usec);
		memcpy(payload + BP_IPERF2_DGRAM_LEN, u->cfg.iperf2_hdr, u->cfg.iperf2_hdr_len);
		return;
	}
	bp_udp_header_encode(payload, len, &h, u->cfg.seq64);
}

/* Send what is due now; returns false when the socket is full (wait for EPOLLOUT). */
static bool send_due(struct bp_udp_stream *u)
{
	uint64_t now = bp_now_ns(), due = u->cfg.rate_bps > 0 ? bp_pacer_due(&u->pacer, now) :
					 BATCH;
	int n = due > BATCH ? BATCH : (int)due, sent;

	if (u->cfg.limit_datagrams) {
		uint64_t left = u->cfg.limit_datagrams > u->st.datagrams ?
				u->cfg.limit_datagrams - u->st.datagrams : 0;

		u->finished = !left;
		n = (uint64_t)n > left ? (int)left : n;
	}
	if (n <= 0)
		return true;
	u->now_ns = now;
	if (u->cfg.pkt) {
		/* A full ring stalls like a full socket buffer: nothing is lost, it waits. */
		sent = bp_pkt_tx_send(u->cfg.pkt, n, fill_header, u);
		u->st.stalls = u->cfg.pkt->st.ring_full + u->cfg.pkt->st.kick_errors;
	} else {
		sent = bp_udp_send_batch(&u->tx, n, fill_header, u);
		u->st.stalls = u->tx.st.eagain + u->tx.st.enobufs;
		u->st.unsent = u->tx.st.unsent;
	}
	if (sent < 0)
		sent = 0;
	u->next_seq += (uint64_t)sent;
	u->st.datagrams += (uint64_t)sent;
	u->st.bytes += (uint64_t)sent * u->cfg.payload_len;
	if (u->cfg.rate_bps > 0)
		bp_pacer_sent(&u->pacer, (uint64_t)sent, now);
	publish(u);
	if (sent == n)
		u->backoff_ns = 0;
	return sent == n;
}

static void wait_writable(struct bp_udp_stream *u, bool on)
{
	if (u->waiting_out == on)
		return;
	u->waiting_out = on;
	bp_loop_mod(&u->flow, on ? EPOLLOUT : 0);
}

static void sender_tick(struct bp_timer *t, uint64_t now);

/* The back-off is over: a paced sender sends what is due, an unpaced one waits for room. */
static void backoff_over(struct bp_timer *t, uint64_t now)
{
	struct bp_udp_stream *u = t->data;

	t->fn = sender_tick;
	if (u->cfg.rate_bps > 0)
		sender_tick(t, now);
	else
		wait_writable(u, true);
}

/* Not all was sent: wait for room in the socket (EAGAIN), or back off from a full qdisc. */
static void wait_for_room(struct bp_udp_stream *u)
{
	if (u->cfg.pkt || u->tx.last_errno != ENOBUFS) {
		wait_writable(u, true);
		return;
	}
	u->backoff_ns = !u->backoff_ns ? BACKOFF_MIN_NS :
			u->backoff_ns >= BACKOFF_MAX_NS / 2 ? BACKOFF_MAX_NS : 2 * u->backoff_ns;
	wait_writable(u, false);
	u->timer.fn = backoff_over;
	bp_timer_arm(u->loop, &u->timer, bp_now_ns() + u->backoff_ns);
}

static void sender_tick(struct bp_timer *t, uint64_t now)
{
	struct bp_udp_stream *u = t->data;

	(void)now;
	if (!send_due(u)) {
		wait_for_room(u);
		return;
	}
	if (u->finished) {  /* -k/-n sent: no more ticks, the test's end comes from the peer */
		wait_writable(u, false);
		return;
	}
	bp_timer_arm(u->loop, &u->timer, bp_pacer_next_ns(&u->pacer));
}

/* Writable again (paced), or always ready for more (unpaced: send until the socket is full). */
static void sender_writable(struct bp_flow *f, uint32_t events)
{
	struct bp_udp_stream *u = f->data;

	(void)events;
	if (u->cfg.rate_bps > 0) {
		wait_writable(u, false);
		sender_tick(&u->timer, bp_now_ns());
		return;
	}
	for (int i = 0; i < 16; i++) {  /* a bounded burst, then let other flows run */
		if (!send_due(u)) {
			wait_for_room(u);
			break;
		}
		if (u->finished) {
			wait_writable(u, false);
			break;
		}
	}
}

/*
 * The wall clock less the monotonic one: what turns bp_now_ns() into the wall-clock time
 * iperf 2 stamps its datagrams with. The two differ only by the wall clock's steps (NTP's
 * frequency corrections slew both), so a receiver takes it again at every publish.
 */
static void take_wall_offset(struct bp_udp_stream *u)
{
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	u->wall_offset_ns = (uint64_t)wall.tv_sec * BP_NS_PER_SEC + (uint64_t)wall.tv_nsec -
			    bp_now_ns();
}

/*
 * iperf 2's datagram: its sequence number from 1 (a first one lost is a loss, as iperf -s
 * counts it), the FIN counted once and remembered; its repeats (the client sends it until
 * the server's report comes) only counted.
 */
static void on_iperf2_datagram(struct bp_udp_stream *u, const uint8_t *payload, size_t len,
			       uint64_t arrival_ns)
{
	struct bp_iperf2_dgram d;

	if (bp_iperf2_dgram_decode(payload, len, u->cfg.seq64, &d) < 0)
		return;
	if (u->st.fin) {
		u->st.fin_repeats++;
		return;
	}
	if (!d.fin || !u->cfg.iperf2_fin_not_data)
		u->st.bytes += len;
	if (!u->have_first) {
		bp_udp_seq_init(&u->seq, 1);
		u->have_first = true;
	}
	if (d.fin) {
		u->st.fin = 1;
		u->st.fin_ns = arrival_ns;
	}
	if (d.seq > u->st.top_seq)
		u->st.top_seq = d.seq;
	if (!u->wall_offset_ns)  /* a datagram seeded before the stream started */
		take_wall_offset(u);
	/* the kernel's arrival time where it came with the datagram, on the monotonic clock */
	if (u->rx.stamp_ns > u->wall_offset_ns)
		arrival_ns = u->rx.stamp_ns - u->wall_offset_ns;
	if (!d.fin)
		bp_welford_add(&u->st.transit,
			       (double)((int64_t)(arrival_ns + u->wall_offset_ns) -
					(int64_t)((uint64_t)d.sec * BP_NS_PER_SEC +
						  (uint64_t)d.usec * 1000)));
	bp_udp_seq_add(&u->seq, d.seq, d.sec, d.usec, arrival_ns);
}

static void on_datagram(void *arg, const uint8_t *payload, size_t len, uint64_t arrival_ns)
{
	struct bp_udp_stream *u = arg;
	struct bp_udp_header h;
	uint64_t seq;

	if (u->cfg.iperf2) {
		on_iperf2_datagram(u, payload, len, arrival_ns);
		return;
	}
	u->st.bytes += len;
	if (bp_udp_header_decode(payload, len, u->cfg.seq64, &h) < 0)
		return;
	if (!u->have_first) {
		/* iperf3 numbers from 1; a stream joined late starts where it is found. */
		bp_udp_seq_init(&u->seq, h.seq ? h.seq : 1);
		u->have_first = true;
	}
	seq = u->cfg.seq64 ? h.seq : bp_udp_seq_extend32(&u->seq, (uint32_t)h.seq);
	bp_udp_seq_add(&u->seq, seq, h.sec, h.usec, arrival_ns);
}

/*
 * Publish the receiver's counts. The kernel's drop counter rides along with every datagram
 * (SO_RXQ_OVFL), so the hot path reads no socket option; only the final count asks the
 * kernel (SO_MEMINFO) for drops after the last datagram that arrived.
 */
static void receiver_publish(struct bp_udp_stream *u, bool final)
{
	struct bp_udp_seq_counts c;

	bp_udp_seq_totals(&u->seq, &c);
	if (u->cfg.iperf2 && !u->cfg.sender && !final)
		take_wall_offset(u);
	/* the FIN's number still counts the datagrams lost before it */
	u->st.datagrams = c.received - (u->cfg.iperf2_fin_not_data && u->st.fin && c.received);
	u->st.lost = c.lost;
	u->st.out_of_order = c.out_of_order;
	u->st.duplicates = c.duplicates;
	u->st.implausible = c.implausible + c.jitter_excluded;
	u->st.jitter_ns = c.jitter_ns;
	if (u->cfg.pkt_rx)
		u->st.kernel_drops = bp_pkt_rx_drops(u->cfg.pkt_rx);
	else
		u->st.kernel_drops = final ? bp_udp_receiver_kernel_drops(&u->rx) : u->rx.drops;
	publish(u);
}

void bp_udp_stream_seed(struct bp_udp_stream *u, const uint8_t *payload, size_t len,
			uint64_t arrival_ns)
{
	on_datagram(u, payload, len, arrival_ns);
	receiver_publish(u, false);
}

static int receive(struct bp_udp_stream *u)
{
	return u->cfg.pkt_rx ? bp_pkt_rx_read(u->cfg.pkt_rx, on_datagram, u) :
			       bp_udp_recv_batch(&u->rx, on_datagram, u);
}

static void receiver_readable(struct bp_flow *f, uint32_t events)
{
	struct bp_udp_stream *u = f->data;

	(void)events;
	/* Read until the socket is empty, but give other flows a turn now and then. */
	for (int i = 0; i < 16; i++)
		if (receive(u) <= 0)
			break;
	receiver_publish(u, false);
}

static int udp_start(void *state, struct bp_loop *loop, int fd)
{
	struct bp_udp_stream *u = state;
	const char *mode;
	int rc;

	u->loop = loop;
	if (u->cfg.iperf2)
		take_wall_offset(u);
	if (!u->io_ready) {
		/* GSO only where the caller found that each datagram becomes a packet and the
		 * qdiscs keep the loss count exact (io/udp_path.h); GRO buffers are counted by
		 * their segments (udp_io.c deliver), so receivers may always ask for it - but
		 * an iperf 2 receiver, which takes each datagram's kernel arrival time as
		 * iperf -s does (one-way delay, jitter): a coalesced buffer has one. */
		rc = u->cfg.pkt || u->cfg.pkt_rx ? 0 :
		     u->cfg.sender ? bp_udp_sender_init(&u->tx, fd, u->cfg.payload_len, BATCH,
							u->cfg.gso) :
				     bp_udp_receiver_init(&u->rx, fd, MAX_PAYLOAD, BATCH,
							  !u->cfg.iperf2);
		if (!rc && u->cfg.iperf2 && !u->cfg.sender && !u->cfg.pkt_rx)
			bp_udp_receiver_stamps(&u->rx);  /* without: the read's time, as before */
		if (rc)
			return rc;
		u->io_ready = true;
	}
	if (u->cfg.pkt || u->cfg.pkt_rx)
		mode = u->cfg.pkt ? "tx_ring" : "rx_ring";
	else
		mode = u->cfg.sender ? bp_udp_sender_mode(&u->tx) : bp_udp_receiver_mode(&u->rx);
	snprintf(u->pub.mode, sizeof(u->pub.mode), "%s", mode);
	/* The RX ring's socket tells when a block is ready; the UDP socket gets nothing. */
	u->flow = (struct bp_flow){ .fd = u->cfg.pkt_rx ? u->cfg.pkt_rx->fd : fd, .data = u,
				    .handler = u->cfg.sender ? sender_writable : receiver_readable,
				    .events = u->cfg.sender ? (u->cfg.rate_bps > 0 ? 0 : EPOLLOUT) :
				    EPOLLIN };
	u->waiting_out = u->flow.events == EPOLLOUT;
	rc = bp_loop_add(loop, &u->flow);
	/* every sender's timer: the pacer's ticks, and the back-off of any sender */
	u->timer = (struct bp_timer){ .fn = sender_tick, .data = u };
	if (rc || !u->cfg.sender || u->cfg.rate_bps <= 0)
		return rc;
	bp_pacer_init(&u->pacer, u->cfg.rate_bps, u->cfg.payload_len * 8, bp_now_ns());
	bp_timer_arm(loop, &u->timer, bp_now_ns());
	return 0;
}

/* The ring's last blocks: the kernel hands over a part-filled one after its timeout. */
static void drain_ring(struct bp_udp_stream *u, uint64_t until)
{
	uint64_t idle_since = 0, now;

	while ((now = bp_now_ns()) < until) {
		struct timespec ts = { .tv_nsec = RING_PAUSE_NS };

		if (bp_pkt_rx_read(u->cfg.pkt_rx, on_datagram, u) > 0) {
			idle_since = 0;
			continue;
		}
		if (!idle_since)
			idle_since = now;
		else if (now - idle_since > RING_IDLE_NS)
			break;
		nanosleep(&ts, NULL);
	}
}

static void udp_stop(void *state, struct bp_loop *loop)
{
	struct bp_udp_stream *u = state;

	bp_timer_cancel(loop, &u->timer);
	bp_loop_del(&u->flow);
	/*
	 * The receiver's last counts. What is queued in the socket arrived before the end and
	 * is counted: an nft counter on the input sees it (test_udp_count), and a receiver
	 * behind its sender holds up to its buffer (thousands of datagrams at -w 4M). Read
	 * until the socket stayed empty for DRAIN_IDLE_NS, for at most DRAIN_NS: the peer's
	 * senders stop a control message after this end, and their last datagrams are the
	 * test's. What the drain leaves is the tail, counted lost once the sender's final
	 * count is known (proto/results.h, bp_net_results_add_tail).
	 */
	if (u->cfg.pkt) {
		/* Frames still in the ring at the end never left: not sent, so not lost. */
		uint64_t left = bp_pkt_tx_flush(u->cfg.pkt, bp_now_ns() + FLUSH_NS);

		u->st.datagrams -= left;
		u->st.bytes -= left * u->cfg.payload_len;
		u->st.unsent += left;
		publish(u);
	}
	if (!u->cfg.sender) {
		uint64_t until = bp_now_ns() + DRAIN_NS;

		if (u->cfg.pkt_rx)
			drain_ring(u, until);
		else
			bp_udp_drain(&u->rx, on_datagram, u, until, DRAIN_IDLE_NS);
		receiver_publish(u, true);
	}
}

static void udp_release(void *state)
{
	struct bp_udp_stream *u = state;

	if (u->cfg.pkt || u->cfg.pkt_rx)
		free_engines(&u->cfg);
	else if (u->io_ready && u->cfg.sender)
		bp_udp_sender_free(&u->tx);
	else if (u->io_ready)
		bp_udp_receiver_free(&u->rx);
	free(u);
}

const struct bp_stream_ops bp_udp_stream_ops = {
	.start = udp_start,
	.stop = udp_stop,
	.release = udp_release,
};
