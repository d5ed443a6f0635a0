/*
 * A stock iperf 2 client's TCP test (server_iperf2.h): its header read as the test's
 * parameters, its connections as the session's streams, and the end iperf 2's way. The
 * session (server_session.c) does the rest as for every test: the limits, the stream pool,
 * the watchdogs, --max-rate, the log line and --metrics.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "io/addr_host.h"
#include "io/sock.h"
#include "proto/iperf2_bounceback.h"
#include "proto/iperf2_header.h"
#include "server/server_iperf2.h"
#include "server/server_iperf2_internal.h"

/* iperf 2's -l when the client gives none: TCP's, UDP's */
#define IPERF2_DEFAULT_LEN (128 * 1024)
#define IPERF2_UDP_DEFAULT_LEN 1470
/* The stream pool's (and iperf3's) largest write; a -l above it is refused */
#define IPERF2_MAX_LEN (1 << 20)
/* A -w above this is refused (what boardperf's own clients may ask for) */
#define IPERF2_MAX_WINDOW (1 << 30)
/* A -b above this (bit/s) is refused */
#define IPERF2_MAX_RATE 1000000000000ull
/* How often this side's senders are asked whether their count went out (-R -n) or what
 * they wrote was acknowledged (the drain after the end) */
#define SEND_POLL_NS (2 * BP_NS_PER_MS)

/* Why a locked server takes no iperf 2 test, for its log line */
#define LOCKED_WHY "this server is locked (--psk or --users) and iperf 2 cannot prove a key"
/* A test's length where no -t and no --max-duration bound it */
#define UNCUT_NS (86400 * BP_NS_PER_SEC)

/* Whether this side sends, on any connection, in the test or its second (-r) */
static bool server_sends(const struct bp_iperf2_header *h)
{
	return h->mode != BP_IPERF2_NORMAL;
}

const char *srv_iperf2_mode_name(enum bp_iperf2_mode m)
{
	return m == BP_IPERF2_NORMAL ? "client sends" : m == BP_IPERF2_REVERSE ? "-R" :
	       m == BP_IPERF2_FULL_DUPLEX ? "--full-duplex" : m == BP_IPERF2_DUAL ? "-d" : "-r";
}

/* A refused connection is reset: iperf 2 has no channel for a reason, and a reset makes
 * the client report a failed test rather than one that moved nothing. Counted under test
 * (a kind's name) in --metrics. */
static void refuse_v(struct srv *s, int fd, const char *peer, const char *test,
		     enum srv_refusal why, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));
static void refuse_v(struct srv *s, int fd, const char *peer, const char *test,
		     enum srv_refusal why, const char *fmt, va_list ap)
{
	char line[256];

	vsnprintf(line, sizeof(line), fmt, ap);
	srv_stats_test(&s->stats, srv_half_number(test), SRV_OUTCOME_REFUSED, why, 0, 0);
	bp_info_peer(peer, "%s: iperf 2 client: %s; %s", peer, line,
		     fd < 0 ? "its datagrams dropped" : "connection reset");
	if (fd >= 0) {
		bp_sock_reset_on_close(fd);
		close(fd);
	}
}

void srv_iperf2_refuse(struct srv *s, int fd, const char *peer, enum srv_refusal why,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	refuse_v(s, fd, peer, fd < 0 ? "udp" : "tcp", why, fmt, ap);
	va_end(ap);
}

/* A bounceback client's refusal, counted as the rr test it would have been. */
static void bb_refuse(struct srv *s, int fd, const char *peer, enum srv_refusal why,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void bb_refuse(struct srv *s, int fd, const char *peer, enum srv_refusal why,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	refuse_v(s, fd, peer, "rr", why, fmt, ap);
	va_end(ap);
}

/* Every number is checked in its own domain before it becomes a parameter. */
enum srv_refusal srv_iperf2_unserved(const struct srv *s, const struct bp_iperf2_header *h,
				     bool udp, char *why, size_t len)
{
	if ((h->mode == BP_IPERF2_DUAL || h->mode == BP_IPERF2_TRADEOFF) && !h->port) {
		snprintf(why, len, "%s with the client's listening port 0: nowhere to connect "
			 "back to", srv_iperf2_mode_name(h->mode));
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	if (server_sends(h) && h->trip_times) {
		snprintf(why, len, "%s with --trip-times (timestamps in what this server "
			 "sends) is not served", srv_iperf2_mode_name(h->mode));
		return SRV_REFUSAL_NOT_SERVED;
	}
	if (srv_auth_locked(s->o)) {
		snprintf(why, len, "%s", LOCKED_WHY);
		return SRV_REFUSAL_AUTHENTICATION;
	}
	if (h->buffer_len > IPERF2_MAX_LEN) {
		snprintf(why, len, "-l %u: expected at most %d bytes", h->buffer_len,
			 IPERF2_MAX_LEN);
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	if (server_sends(h) && h->window > IPERF2_MAX_WINDOW) {
		snprintf(why, len, "-w %u: expected at most %d bytes", h->window,
			 IPERF2_MAX_WINDOW);
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	if (!udp && (h->upper & BP_IPERF2_UPPER_UNITS_PPS)) {
		snprintf(why, len, "-b in packets per second: for UDP, this is a TCP test");
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	if (h->rate > IPERF2_MAX_RATE) {
		snprintf(why, len, "-b %llu bit/s: expected at most 1 Tbit/s",
			 (unsigned long long)h->rate);
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	if (h->tos > 255) {
		snprintf(why, len, "TOS %u: expected 0-255", h->tos);
		return SRV_REFUSAL_BAD_PARAMETERS;
	}
	return SRV_REFUSAL_NONE;
}

/*
 * The header as the test's parameters. iperf 2's -n is each connection's, iperf3's (which
 * the stream half divides among the streams) the test's; its -t is cut at --max-duration.
 */
static void params_from(const struct srv *s, const struct srv_iperf2 *i2,
			struct bp_net_params *np, bool *cut)
{
	const struct bp_iperf2_header *h = &i2->h;
	uint64_t max = s->o->max_duration_ns;

	memset(np, 0, sizeof(*np));
	bp_net_params_set_test(np, i2->udp ? "udp" : "tcp");
	np->udp64 = i2->udp && (h->flags & BP_IPERF2_HEADER_SEQNO64B);
	np->parallel = (int)h->threads;
	np->reverse = !i2->recv;
	np->bidir = i2->recv && (i2->send_same || i2->send_back);
	np->len = h->buffer_len ? (int)h->buffer_len :
		  i2->udp ? IPERF2_UDP_DEFAULT_LEN : IPERF2_DEFAULT_LEN;
	/* -b: each stream's pace, as in iperf 2 (and the rate --max-rate admits); UDP's may be
	 * in datagrams per second, of -l bytes (1470 unless set) */
	np->bandwidth = (double)h->rate;
	if (h->upper & BP_IPERF2_UPPER_UNITS_PPS)
		np->bandwidth *= 8.0 * (h->buffer_len ? h->buffer_len : IPERF2_UDP_DEFAULT_LEN);
	/* the client's -w and TOS are for its sockets; iperf 2's server takes them for its
	 * own sending */
	if (server_sends(h)) {
		np->window = (int)h->window;
		np->tos = h->tos;
	}
	*cut = false;
	if (h->timed) {
		np->time_ns = h->duration_ns;
		if (max && np->time_ns > max) {
			np->time_ns = max;
			*cut = true;
		}
	} else {
		np->num_bytes = h->bytes * h->threads;
		np->time_ns = max ? max : UNCUT_NS;
	}
}

static bool same_test(const struct bp_iperf2_header *a, const struct bp_iperf2_header *b)
{
	return a->mode == b->mode && a->threads == b->threads && a->timed == b->timed &&
	       a->duration_ns == b->duration_ns && a->bytes == b->bytes &&
	       a->buffer_len == b->buffer_len && a->window == b->window &&
	       a->upper == b->upper && a->lower == b->lower && a->tos == b->tos &&
	       a->version_u == b->version_u && a->version_l == b->version_l;
}

struct srv_session *srv_iperf2_test_of(struct srv *s, const struct bp_addr *from,
				       const struct bp_iperf2_header *h, bool udp)
{
	struct srv_session *found = NULL;

	/* The list is newest first: the last match is the oldest test. */
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (ss->iperf2 && !ss->iperf2->second && ss->iperf2->udp == udp && !ss->dead &&
		    ss->state == SS_STREAMS &&
		    ss->iperf2->n < (int)ss->iperf2->h.threads &&
		    bp_addr_same_host(&ss->ctl_addr, from) && same_test(&ss->iperf2->h, h))
			found = ss;
	return found;
}

/*
 * The client's FIN came on every receiving connection, so every byte it sent is in this
 * side's socket buffers: whatever the workers have not read yet is read and thrown away
 * once they stopped, so that closing sends a FIN and not a reset (the client waits for it).
 */
static void drain(struct srv_iperf2 *i2)
{
	for (int i = 0; i < i2->n; i++) {
		int fd = i2->conns[i].watch.fd;

		if (fd < 0)
			continue;
		for (int k = 0; k < 4096; k++)
			if (bp_recv_discard(fd, 1 << 20, MSG_DONTWAIT, false) <= 0)
				break;
	}
}

static void open_second(const struct srv_session *first);

/* -r's first test, complete, opens its second. */
void srv_iperf2_finish(struct srv_session *ss, const char *note)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	bp_timer_cancel(ss->srv->loop, &i2->end);
	bp_timer_cancel(ss->srv->loop, &ss->tick);
	bp_stream_side_stop(&ss->side, bp_now_ns());
	if (!note)
		drain(i2);
	if (ss->half->finish)  /* the half's own counts (rr's: the answers), streams still there */
		ss->half->finish(ss);
	if (i2->nbursts)
		srv_iperf2_trip_log(ss);
	bp_stream_side_release(&ss->side);
	ss->state = SS_DONE;  /* --metrics takes what moved from the results */
	ss->completed = !note || i2->cut;
	ss->half->log(ss);
	srv_session_end(ss, note);
	if (!note && i2->h.mode == BP_IPERF2_TRADEOFF && !i2->second)
		open_second(ss);
}

static bool count_written(const struct srv_session *ss);

/*
 * Whether the test is over: where the client sends, its FIN on every connection (it sent
 * all); where this side sends, all it sent acknowledged (the client's close follows; with
 * --full-duplex and -d the client's sending may end before this side's, or after). A -R
 * client that closed before this side's end gave up, unless its -n was all written (a
 * stock -R -n client closes once its count came, before the last ACK is seen here).
 */
static void check_end(struct srv_session *ss)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	bool all = true;

	if (ss->state != SS_RUNNING || ss->dead)
		return;
	for (int i = 0; i < i2->n; i++)
		all &= i2->conns[i].peer_done;
	if ((!i2->recv || all) && (!(i2->send_same || i2->send_back) || i2->drained))
		srv_iperf2_finish(ss, NULL);
	else if (all && !i2->recv && i2->send_same && !i2->h.timed && count_written(ss))
		srv_iperf2_finish(ss, NULL);
	else if (all && !i2->recv && i2->send_same && !i2->sending_done)
		srv_iperf2_finish(ss, "client closed its connections before this side's end: test "
		       "abandoned");
}

static void watch_event(struct bp_flow *f, uint32_t events)
{
	struct iperf2_conn *c = f->data;
	struct srv_session *ss = c->ss;

	(void)events;  /* RDHUP, HUP or ERR: the client sends no more either way */
	c->peer_done = true;
	/* the descriptor stays for the drain; only its events go */
	bp_loop_del(&c->watch);
	c->watch.loop = NULL;
	check_end(ss);
	srv_session_reap(ss);
}

/*
 * -R and --full-duplex: this side's streams stop sending and its FIN follows their bytes;
 * the test goes on until the client acknowledged them (what it counts, as iperf -s's
 * sending side waits for the client's close), the idle timeout at most.
 */
static void stop_sending(struct srv_session *ss, uint64_t now)
{
	struct bp_stream_side *sd = &ss->side;
	struct srv_iperf2 *i2 = ss->iperf2;

	i2->sending_done = true;
	i2->sending_done_ns = now;
	for (int i = 0; i < sd->n; i++)
		if (sd->sender[i]) {
			bp_stream_stop(sd->streams[i]);
			shutdown(bp_stream_fd(sd->streams[i]), SHUT_WR);
		}
}

/* The bytes -n asked of this side's streams were written (count_sent: and acknowledged). */
static bool count_written(const struct srv_session *ss)
{
	const struct bp_net_params *np = &ss->np;
	uint64_t want = bp_net_params_blocks_total(np, bp_net_params_down_streams(np)) *
			(uint64_t)np->len;

	return bp_stream_side_written(&ss->side) >= want;
}

static bool count_sent(const struct srv_session *ss)
{
	return count_written(ss) && !bp_stream_side_acks_pending(&ss->side);
}

static void end_due(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;
	struct srv_iperf2 *i2 = ss->iperf2;
	char line[128];

	if (i2->cut && !i2->send_same && !i2->send_back) {
		snprintf(line, sizeof(line), "cut at the server's --max-duration (%.0f s)",
			 (double)ss->np.time_ns / 1e9);
		srv_iperf2_finish(ss, line);
	} else if (!i2->sending_done && !i2->h.timed && !count_sent(ss)) {
		bp_timer_arm(ss->srv->loop, &i2->end, now + SEND_POLL_NS);
	} else {
		if (!i2->sending_done)
			stop_sending(ss, now);
		if (bp_stream_side_acks_pending(&ss->side) &&
		    now - i2->sending_done_ns < ss->srv->o->idle_timeout_ns) {
			bp_timer_arm(ss->srv->loop, &i2->end, now + SEND_POLL_NS);
		} else {
			i2->drained = true;
			check_end(ss);
		}
	}
	srv_session_reap(ss);
}

void srv_iperf2_started(struct srv_session *ss, uint64_t now)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	if (i2->udp) {
		srv_iperf2_udp_started(ss, now);
		return;
	}
	i2->end = (struct bp_timer){ .fn = end_due, .data = ss };
	if (i2->send_same || i2->send_back || i2->cut)
		bp_timer_arm(ss->srv->loop, &i2->end, i2->h.timed ? now + ss->np.time_ns :
			     now + SEND_POLL_NS);
	check_end(ss);  /* a client may have sent its -n and its FIN before the last came */
}

void srv_iperf2_free(struct srv_session *ss)
{
	struct srv_iperf2 *i2 = ss->iperf2;

	if (!i2)
		return;
	bp_timer_cancel(ss->srv->loop, &i2->end);
	srv_iperf2_udp_free(ss);
	free(i2->bursts);
	for (int i = 0; i < i2->nbacks; i++)
		srv_connect_back_cancel(&i2->backs[i]);
	for (int i = 0; i < i2->n; i++) {
		if (i2->conns[i].watch.loop)
			bp_loop_del(&i2->conns[i].watch);
		if (i2->conns[i].watch.fd >= 0)
			close(i2->conns[i].watch.fd);
	}
	free(i2);
	ss->iperf2 = NULL;
}

/*
 * The server's version back, as iperf -s answers 2.1's clients that ask for no reverse
 * traffic (EXTEND without VERSION2) and those that wait for it (-X, V2PEERDETECT, -R
 * too); with --trip-times the three timestamps of the clock check (the client's send,
 * this side's receipt, this answer). A few bytes into an empty socket, before any data:
 * a short write means the client is gone, and its stream ends.
 */
static void send_ack(int fd, const struct bp_iperf2_header *h)
{
	uint32_t ts[6] = { h->start_sec, h->start_usec };
	uint8_t ack[BP_IPERF2_ACK_TIMES_LEN];
	struct timeval tv;
	size_t len;

	if ((h->flags & BP_IPERF2_HEADER_VERSION2) && !(h->flags & BP_IPERF2_HEADER_V2PEERDETECT))
		return;
	gettimeofday(&tv, NULL);
	ts[2] = ts[4] = (uint32_t)tv.tv_sec;
	ts[3] = ts[5] = (uint32_t)tv.tv_usec;
	len = bp_iperf2_ack_write(ack, h->trip_times && h->has_start, ts);
	if (send(fd, ack, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		bp_debug("iperf 2 client's acknowledgement not sent whole");
}

/* A connection back to the client came up (or not): this side's sending stream. */
static void back_done(struct srv_connect_back *cb, int fd, int err)
{
	struct srv_session *ss = cb->data;
	char who[64];

	if (fd >= 0)
		srv_session_add_tcp(ss, fd, true);
	else
		srv_session_refuse(ss, SRV_REFUSAL_STREAM_SETUP, 0, "connecting back to %s port "
				   "%u (%s): %s", bp_client_key_str(&ss->client, who, sizeof(who)),
				   ss->iperf2->h.port, srv_iperf2_mode_name(ss->iperf2->h.mode), strerror(-err));
	srv_session_reap(ss);
}

/* One more connection to the client's listening port (-d, -r's second test). */
static void connect_back(struct srv_session *ss)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	struct srv_connect_back *cb = &i2->backs[i2->nbacks++];
	char who[64];
	int rc;

	srv_connect_back_init(cb, back_done, ss);
	rc = srv_connect_back_start(cb, ss->srv->loop, &i2->local, &ss->ctl_addr, i2->h.port);
	if (rc)
		srv_session_refuse(ss, SRV_REFUSAL_STREAM_SETUP, 0, "connecting back to %s port "
				   "%u (%s): %s", bp_client_key_str(&ss->client, who, sizeof(who)),
				   i2->h.port, srv_iperf2_mode_name(i2->h.mode), strerror(-rc));
}

/*
 * The client's connection as the test's streams: the one it sends on, the one this side
 * sends on (-R: the same descriptor; --full-duplex: a second one of the connection), and
 * with -d a connection back to the client.
 */
static void add_connection(struct srv_session *ss, int fd)
{
	struct srv_iperf2 *i2 = ss->iperf2;
	struct iperf2_conn *c = &i2->conns[i2->n];
	bool both = i2->recv && i2->send_same;
	int wfd = dup(fd), sfd = both ? dup(fd) : -1;

	*c = (struct iperf2_conn){ .ss = ss };
	c->watch = (struct bp_flow){ .fd = wfd, .events = EPOLLRDHUP, .handler = watch_event,
				     .data = c };
	i2->n++;  /* the watch's descriptor goes with the session */
	if (wfd < 0 || (both && sfd < 0) || bp_loop_add(ss->srv->loop, &c->watch)) {
		c->watch.loop = NULL;
		if (sfd >= 0)
			close(sfd);
		bp_sock_reset_on_close(fd);
		close(fd);
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, 0, "out of descriptors or "
				   "memory for an iperf 2 connection");
		return;
	}
	if (!i2->bb)
		send_ack(fd, &i2->h);
	srv_session_add_tcp(ss, fd, !i2->recv);
	if (sfd >= 0 && !ss->dead)
		srv_session_add_tcp(ss, sfd, true);
	else if (sfd >= 0)
		close(sfd);
	if (i2->send_back && !ss->dead)
		connect_back(ss);
}

struct srv_session *srv_iperf2_new_test(struct srv *s, const struct bp_addr *from,
					const struct bp_addr *local, const char *peer,
					const struct bp_iperf2_header *h, bool second, bool udp)
{
	struct srv_iperf2 *i2 = calloc(1, sizeof(*i2));
	struct srv_session *ss = i2 ? srv_session_headless(s, from, peer, i2) : NULL;

	if (!ss) {
		free(i2);
		return NULL;
	}
	i2->h = *h;
	i2->local = *local;
	i2->second = second;
	i2->udp = udp;
	i2->recv = !second && h->mode != BP_IPERF2_REVERSE;
	i2->send_same = h->mode == BP_IPERF2_REVERSE || h->mode == BP_IPERF2_FULL_DUPLEX;
	i2->send_back = h->mode == BP_IPERF2_DUAL || second;
	params_from(s, i2, &ss->np, &i2->cut);
	srv_session_begin(ss);
	if (ss->dead) {
		srv_session_reap(ss);
		return NULL;
	}
	/* Every byte that came is the test's, the header too, as iperf -s counts it. */
	ss->side.whole_count = true;
	return ss;
}

/* The first connection of a test: the session, admitted or refused (NULL, fd closed). */
static struct srv_session *open_test(struct srv *s, int fd, const struct bp_addr *from,
				     const char *peer, const struct bp_iperf2_header *h)
{
	struct bp_addr local = { .len = sizeof(local.ss) };
	struct srv_session *ss = NULL;

	if (getsockname(fd, (struct sockaddr *)&local.ss, &local.len) ||
	    !(ss = srv_iperf2_new_test(s, from, &local, peer, h, false, false))) {
		bp_sock_reset_on_close(fd);
		close(fd);
	}
	return ss;
}

/*
 * -r: once the client's test is done, this side's: as many connections back to the client
 * as it had, for the same -t or -n, admitted as a test of its own.
 */
static void open_second(const struct srv_session *first)
{
	const struct srv_iperf2 *i2 = first->iperf2;
	struct srv_session *ss = srv_iperf2_new_test(first->srv, &first->ctl_addr, &i2->local,
						     first->peer, &i2->h, true, false);

	for (uint32_t i = 0; ss && i < i2->h.threads && !ss->dead; i++)
		connect_back(ss);
	if (ss)
		srv_session_reap(ss);
}

/* First bytes that looked like iperf 2's but do not parse: dropped as any junk is. */
static void drop_junk(struct srv *s, int fd, const char *peer, const char *what,
		      const char *why)
{
	s->door.junk++;  /* "not-a-client" in --metrics */
	bp_info_peer(peer, "%s: not a boardperf, iperf3 or iperf 2 client (an iperf 2 %s "
		     "unread: %s), dropped", peer, what, why);
	close(fd);
}

/*
 * iperf 2's bounceback (`iperf -c HOST --bounceback`): no header, the first request came
 * instead (its head, read at the door). One connection, a test of rr's kind whose responder
 * sends each request back with this host's times in it (rr/bb_responder.h), until the
 * client's STOP and close; its length unknown here (the client's -t), cut at
 * --max-duration.
 */
static void bb_accept(struct srv *s, int fd, const char *peer, const struct bp_addr *from,
		      const uint8_t *head, size_t len)
{
	struct bp_addr local = { .len = sizeof(local.ss) };
	uint64_t max = s->o->max_duration_ns;
	struct srv_iperf2 *i2;
	struct srv_session *ss;
	struct bp_iperf2_bb bb;
	char why[200];

	if (bp_iperf2_bb_parse(head, len, &bb, why, sizeof(why))) {
		drop_junk(s, fd, peer, "bounceback request", why);
		return;
	}
	if (srv_auth_locked(s->o)) {
		bb_refuse(s, fd, peer, SRV_REFUSAL_AUTHENTICATION, "%s", LOCKED_WHY);
		return;
	}
	if (bb.hold_us) {
		bb_refuse(s, fd, peer, SRV_REFUSAL_NOT_SERVED, "--bounceback-hold %" PRIu32 " us is "
			  "not served: each answer would hold this server's loop", bb.hold_us);
		return;
	}
	if (getsockname(fd, (struct sockaddr *)&local.ss, &local.len) ||
	    !(i2 = calloc(1, sizeof(*i2)))) {
		close(fd);
		return;
	}
	i2->bb = i2->recv = true;
	i2->local = local;
	i2->cut = max != 0;
	i2->h = (struct bp_iperf2_header){ .threads = 1, .timed = true,
					   .duration_ns = max ? max : UNCUT_NS };
	if (!(ss = srv_session_headless(s, from, peer, i2))) {
		free(i2);
		close(fd);
		return;
	}
	memset(&ss->np, 0, sizeof(ss->np));
	bp_net_params_set_test(&ss->np, "rr");
	ss->np.parallel = 1;
	ss->np.rr_request = ss->np.rr_response = (int)bb.size;
	ss->np.rr_bounceback = true;
	ss->np.time_ns = i2->h.duration_ns;
	memcpy(ss->first, head, len);
	ss->first_len = len;
	srv_session_begin(ss);
	if (ss->dead) {
		srv_session_reap(ss);
		bp_sock_reset_on_close(fd);
		close(fd);
		return;
	}
	add_connection(ss, fd);
	srv_session_reap(ss);
}

void srv_iperf2_accept(struct srv *s, int fd, const char *peer, const uint8_t *hdr,
		       size_t len)
{
	struct bp_addr from = { .len = sizeof(from.ss) };
	struct bp_iperf2_header h;
	struct srv_session *ss;
	enum srv_refusal r;
	char why[200];

	if (bp_iperf2_bb_prefix(hdr, len)) {
		if (getpeername(fd, (struct sockaddr *)&from.ss, &from.len))
			close(fd);
		else
			bb_accept(s, fd, peer, &from, hdr, len);
		return;
	}
	if (bp_iperf2_header_parse(hdr, len, &h, why, sizeof(why))) {
		drop_junk(s, fd, peer, "header", why);
		return;
	}
	if (getpeername(fd, (struct sockaddr *)&from.ss, &from.len)) {
		close(fd);
		return;
	}
	if ((r = srv_iperf2_unserved(s, &h, false, why, sizeof(why)))) {
		srv_iperf2_refuse(s, fd, peer, r, "%s", why);
		return;
	}
	ss = srv_iperf2_test_of(s, &from, &h, false);
	if (!ss && !(ss = open_test(s, fd, &from, peer, &h)))
		return;
	add_connection(ss, fd);
	srv_session_reap(ss);
}
