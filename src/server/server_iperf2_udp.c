/*
 * A stock iperf 2 client's UDP test (iperf -c -u): no connection and no control channel.
 * Every datagram carries the test header (proto/iperf2_udp.h); the first one from a client
 * socket, read on the test port's UDP socket, opens a test (or joins its -P siblings: one
 * address, one header), admitted under every limit, and the client's datagrams then come on
 * a socket connected to it, a stream of the pool like iperf3's. The client ends with its
 * FIN (a negated sequence number), repeated until the server's report comes: the report
 * goes out once every stream's FIN came, again for each repeat (ten at most), and the test
 * ends after a quiet spell, as `iperf -s` does.
 *
 * Nothing proves a datagram's source address: the server sends only its report, 128 bytes,
 * to the socket whose FIN asked for it (less than the client sent), and a test that would
 * make it send more (-R, --full-duplex, -d, -r over UDP) is refused (no reflection).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "io/addr_host.h"
#include "side/udp_stream.h"
#include "server/server_iperf2.h"
#include "server/server_iperf2_internal.h"

/* The socket buffer of a stream (as server_udp.c's) */
#define UDP_STREAM_BUFFER (4 << 20)
/* Datagrams of a new client socket already queued on the listener, read with its first */
#define FIRST_SEEDS 64
/* How long a refused client socket's further datagrams are dropped without a line */
#define REFUSED_QUIET_NS (10 * BP_NS_PER_SEC)
/* How often a running test is asked whether every FIN came */
#define FIN_POLL_NS (5 * BP_NS_PER_MS)
/* The report is taken as received after this long without a repeat (iperf -s: 250 ms) */
#define QUIET_NS (250 * BP_NS_PER_MS)
/* Reports sent per client socket at most (iperf -s: 10) */
#define MAX_REPORTS 10

/* One client socket of the test: its stream, and once its FIN came, its report. */
struct iperf2_udp_peer {
	struct bp_addr addr;
	int stream;                    /* index in the session's side */
	struct bp_flow watch;          /* the stream's socket (a second descriptor), for the
					* FIN's repeats once the stream stopped; fd -1 none */
	struct srv_session *ss;
	uint8_t report[BP_IPERF2_UDP_REPORT_LEN];
	int reports;
};

static void send_report(struct iperf2_udp_peer *p)
{
	if (p->reports >= MAX_REPORTS || p->watch.fd < 0)
		return;
	p->reports++;
	if (send(p->watch.fd, p->report, sizeof(p->report), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		bp_debug_peer(p->ss->peer, "%s: iperf 2 server report not sent: %s", p->ss->peer,
			      strerror(errno));
}

/* A repeat of the FIN (or anything) after the report: the report again, and more quiet. */
static void repeat_came(struct bp_flow *f, uint32_t events)
{
	struct iperf2_udp_peer *p = f->data;
	struct srv_session *ss = p->ss;
	uint8_t buf[64];
	int got = 0;

	(void)events;
	while (recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		got++;
	if (got)
		send_report(p);
	bp_timer_arm(ss->srv->loop, &ss->iperf2->end, bp_now_ns() + QUIET_NS);
}

/* The quiet spell after the last report: the test is over. */
static void quiet(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;

	(void)now;
	srv_iperf2_finish(ss, NULL);
	srv_session_reap(ss);
}

/* What the stream of p counted, as the client's "Server Report" shows it. */
static void fill_report(const struct srv_session *ss, struct iperf2_udp_peer *p)
{
	struct bp_udp_stats us;
	struct bp_iperf2_udp_report r;

	bp_udp_stream_stats(ss->side.udp[p->stream], &us);
	r = (struct bp_iperf2_udp_report){
		.bytes = us.bytes, .datagrams = us.top_seq,
		.lost = us.lost > 0 ? (uint64_t)us.lost : 0, .out_of_order = us.out_of_order,
		.stop_s = us.fin_ns > ss->iperf2->first_ns ?
			  (double)(us.fin_ns - ss->iperf2->first_ns) / 1e9 : 0,
		.jitter_s = us.jitter_ns / 1e9,
	};
	/* --trip-times: the client says the clocks agree, the transits are one-way delays */
	if (ss->iperf2->h.trip_times && us.transit.n) {
		r.transit = true;
		r.transit_min_s = us.transit.min / 1e9;
		r.transit_max_s = us.transit.max / 1e9;
		r.transit_sum_s = us.transit.mean * (double)us.transit.n / 1e9;
		r.transit_mean_s = us.transit.mean / 1e9;
		r.transit_m2 = us.transit.m2 / 1e18;
		r.transit_count = us.transit.n > UINT32_MAX ? UINT32_MAX : (uint32_t)us.transit.n;
		r.pps = r.stop_s > 0 && (double)r.datagrams / r.stop_s < UINT32_MAX ?
			(uint32_t)((double)r.datagrams / r.stop_s) : 0;
	}
	bp_iperf2_udp_report_write(p->report, &r);
}

/*
 * --trip-times: the one-way delay over the test's streams, for the log (the client prints
 * each stream's from its report).
 */
static void log_one_way_delay(const struct srv_session *ss)
{
	const struct srv_iperf2 *i2 = ss->iperf2;
	struct bp_welford all;
	struct bp_udp_stats us;

	bp_welford_init(&all);
	for (int i = 0; i < i2->nudp; i++) {
		bp_udp_stream_stats(ss->side.udp[i2->udp_peers[i].stream], &us);
		bp_welford_merge(&all, &us.transit);
	}
	srv_iperf2_log_owd(ss, "udp", &all, "datagrams");
}

/* Every stream's FIN came: the counts end, each client socket gets its report. */
static void report_all(struct srv_session *ss, uint64_t now)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	i2->reporting = true;
	bp_timer_cancel(ss->srv->loop, &ss->tick);
	bp_stream_side_stop(&ss->side, now);
	if (i2->h.trip_times)
		log_one_way_delay(ss);
	for (int i = 0; i < i2->nudp; i++) {
		struct iperf2_udp_peer *p = &i2->udp_peers[i];
		int fd = dup(bp_stream_fd(ss->side.streams[p->stream]));

		fill_report(ss, p);
		p->watch = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = repeat_came,
					     .data = p };
		if (fd >= 0 && bp_loop_add(ss->srv->loop, &p->watch)) {
			close(fd);
			p->watch.fd = -1;
		}
		send_report(p);
	}
	i2->end = (struct bp_timer){ .fn = quiet, .data = ss };
	bp_timer_arm(ss->srv->loop, &i2->end, now + QUIET_NS);
}

static void fin_poll(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;
	struct srv_iperf2 *i2 = ss->iperf2;
	struct bp_udp_stats us;
	bool all = true;

	for (int i = 0; i < i2->nudp && all; i++) {
		bp_udp_stream_stats(ss->side.udp[i2->udp_peers[i].stream], &us);
		all = us.fin;
	}
	if (all)
		report_all(ss, now);
	else
		bp_timer_arm(ss->srv->loop, &i2->end, now + FIN_POLL_NS);
	srv_session_reap(ss);
}

void srv_iperf2_udp_started(struct srv_session *ss, uint64_t now)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	i2->end = (struct bp_timer){ .fn = fin_poll, .data = ss };
	bp_timer_arm(ss->srv->loop, &i2->end, now + FIN_POLL_NS);
}

void srv_iperf2_udp_free(struct srv_session *ss)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	for (int i = 0; i2->udp_peers && i < i2->nudp; i++) {
		struct iperf2_udp_peer *p = &i2->udp_peers[i];

		if (p->watch.fd < 0)
			continue;
		bp_loop_del(&p->watch);
		close(p->watch.fd);
	}
	free(i2->udp_peers);
	i2->udp_peers = NULL;
}

static bool same_socket(const struct bp_addr *a, const struct bp_addr *b)
{
	return a->len == b->len && !memcmp(&a->ss, &b->ss, a->len);
}

/* The test a datagram from exactly this client socket belongs to, and its peer there. */
static struct srv_session *test_of_socket(struct srv *s, const struct bp_addr *from,
					  struct iperf2_udp_peer **peer)
{
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next) {
		struct srv_iperf2 *i2 = ss->iperf2;

		for (int i = 0; i2 && i2->udp && !ss->dead && i < i2->nudp; i++)
			if (same_socket(&i2->udp_peers[i].addr, from)) {
				*peer = &i2->udp_peers[i];
				return ss;
			}
	}
	return NULL;
}

/*
 * The datagrams of this test's client sockets that came on the listener before their
 * connected twins did (the twins take the rest): read now, while no stream has started,
 * so that they count; from's on *seeds (grown as needed), a sibling's seeded on its own
 * stream. Only those next in the listener's queue: another sender's datagram ends the read
 * (the loop takes it); the queue is bounded by the listener's buffer. The number read onto
 * *seeds after its first n, or -ENOMEM.
 */
static int queued(struct srv_session *ss, int listen_fd, const struct bp_addr *from,
		  struct bp_udp_datagram **seeds, int n, int *cap)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	struct bp_udp_datagram d;
	struct bp_addr next;
	int sibling, got0 = n;
	ssize_t got;

	for (;;) {
		next.len = sizeof(next.ss);
		if (recvfrom(listen_fd, d.head, 0, MSG_PEEK | MSG_DONTWAIT,
			     (struct sockaddr *)&next.ss, &next.len) < 0)
			break;
		sibling = -1;
		for (int i = 0; i < i2->nudp && !same_socket(&next, from); i++)
			if (same_socket(&i2->udp_peers[i].addr, &next))
				sibling = i;
		if (sibling < 0 && !same_socket(&next, from))
			break;
		got = recv(listen_fd, d.head, sizeof(d.head), MSG_DONTWAIT | MSG_TRUNC);
		if (got < 0)
			break;
		d.len = (size_t)got;
		d.arrival_ns = bp_now_ns();
		if (sibling >= 0) {
			int k = i2->udp_peers[sibling].stream;

			if (ss->state == SS_STREAMS && k < ss->side.n)
				bp_udp_stream_seed(ss->side.udp[k], d.head, d.len, d.arrival_ns);
			continue;
		}
		if (n == *cap) {
			struct bp_udp_datagram *more = realloc(*seeds, 2 * (size_t)*cap * sizeof(d));

			if (!more)
				return -ENOMEM;
			*seeds = more;
			*cap *= 2;
		}
		(*seeds)[n++] = d;
	}
	return n - got0;
}

/* A new client socket of the test: a socket connected to it, its stream, its first datagrams. */
static void add_socket(struct srv_session *ss, int listen_fd, const struct bp_addr *from,
		       const struct bp_udp_datagram *d)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	struct iperf2_udp_peer *p = &i2->udp_peers[i2->nudp];
	int cap = FIRST_SEEDS, fd, rc, n = 1;
	struct bp_udp_datagram *seeds = malloc((size_t)cap * sizeof(*seeds));
	char who[64];

	if (!seeds) {
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, 0, "server out of memory");
		return;
	}
	if ((rc = bp_udp_twin(listen_fd, from, UDP_STREAM_BUFFER, &fd))) {
		free(seeds);
		srv_session_refuse(ss, SRV_REFUSAL_STREAM_SETUP, 0, "a socket for its datagrams: %s",
				   strerror(-rc));
		return;
	}
	seeds[0] = *d;
	if ((rc = queued(ss, listen_fd, from, &seeds, n, &cap)) < 0) {
		close(fd);
		free(seeds);
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, 0, "server out of memory");
		return;
	}
	n += rc;
	if (!i2->nudp)
		i2->first_ns = d->arrival_ns;
	*p = (struct iperf2_udp_peer){ .addr = *from, .stream = ss->side.n, .ss = ss,
				       .watch = { .fd = -1 } };
	i2->nudp++;
	srv_session_take_udp(ss, fd, bp_addr_str(from, who, sizeof(who)), seeds, n);
	free(seeds);
}

/* A client socket refused in the last REFUSED_QUIET_NS: its datagram is dropped quietly. */
static bool refused_lately(struct srv *s, const struct bp_addr *from)
{
	uint64_t now = bp_now_ns();

	for (int i = 0; i < 16; i++)
		if (s->udp_refused_ns[i] && now - s->udp_refused_ns[i] < REFUSED_QUIET_NS &&
		    same_socket(&s->udp_refused[i], from))
			return true;
	return false;
}

static void note_refused(struct srv *s, const struct bp_addr *from)
{
	int k = s->udp_refused_next++ % 16;

	s->udp_refused[k] = *from;
	s->udp_refused_ns[k] = bp_now_ns();
}

void srv_iperf2_udp_datagram(struct srv *s, int listen_fd, const struct bp_addr *from,
			     const struct bp_udp_datagram *d)
{
	size_t n = d->len < sizeof(d->head) ? d->len : sizeof(d->head);
	struct iperf2_udp_peer *p = NULL;
	struct bp_iperf2_header h;
	struct bp_iperf2_dgram dg;
	struct bp_addr local = { .len = sizeof(local.ss) };
	struct srv_session *ss;
	enum srv_refusal r;
	char why[200], who[64];

	if (bp_iperf2_udp_header_parse(d->head, n, &h, why, sizeof(why)) ||
	    bp_iperf2_dgram_decode(d->head, n, h.flags & BP_IPERF2_HEADER_SEQNO64B, &dg))
		return;  /* no iperf 2 datagram: left unanswered, as before */
	bp_addr_str(from, who, sizeof(who));
	/*
	 * One that came on the listener before its socket's twin existed: counted on the
	 * stream while it has not started, dropped after (it shows as lost).
	 */
	if ((ss = test_of_socket(s, from, &p))) {
		if (ss->state == SS_STREAMS)
			bp_udp_stream_seed(ss->side.udp[p->stream], d->head, d->len,
					   d->arrival_ns);
		return;
	}
	/* a repeat of an ended test's FIN (its report went out), a refused client's */
	if (dg.fin || refused_lately(s, from))
		return;
	if (h.mode != BP_IPERF2_NORMAL) {
		note_refused(s, from);
		srv_iperf2_refuse(s, -1, who, SRV_REFUSAL_NOT_SERVED, "UDP %s is not served: this "
				  "server would send to whatever address a datagram claims (no "
				  "reflection); over TCP it is", srv_iperf2_mode_name(h.mode));
		return;
	}
	if ((r = srv_iperf2_unserved(s, &h, true, why, sizeof(why)))) {
		note_refused(s, from);
		srv_iperf2_refuse(s, -1, who, r, "%s", why);
		return;
	}
	ss = srv_iperf2_test_of(s, from, &h, true);
	if (!ss && !getsockname(listen_fd, (struct sockaddr *)&local.ss, &local.len) &&
	    (ss = srv_iperf2_new_test(s, from, &local, who, &h, false, true)) &&
	    !(ss->iperf2->udp_peers = calloc(h.threads, sizeof(*ss->iperf2->udp_peers))))
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, 0, "server out of memory");
	if (!ss) {
		note_refused(s, from);  /* the limits' line went out with the refusal */
		return;
	}
	if (srv_session_reap(ss))
		return;
	add_socket(ss, listen_fd, from, d);
	srv_session_reap(ss);
}
