/*
 * Connections accepted whose first 37 bytes (the cookie) have not all come yet: they say
 * whether the connection is a test's control connection or one of its data streams. Until
 * then the connection belongs to nobody, so it is bounded here (server_accept.h says how).
 * A stock iperf 2 client sends its test header instead (proto/iperf2_header.h; its bounceback
 * test the head of its first request, proto/iperf2_bounceback.h), told from a cookie by its
 * first byte, read whole under the same bounds and timeout, and handed to server_iperf2.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "proto/iperf2_bounceback.h"
#include "proto/iperf2_header.h"
#include "server/server_accept.h"
#include "server/server_internal.h"
#include "server/server_iperf2.h"

/* Fewer free descriptors than this and each new pending connection replaces the oldest. */
#define FD_HEADROOM 64

struct srv_pending {
	struct bp_flow flow;
	struct srv *srv;
	struct srv_pending *older, *newer;
	unsigned char host[16];        /* the per-address bound's key */
	/* the cookie's bytes, or an iperf 2 header's (up to the 80 bytes of --trip-times') */
	unsigned char first[BP_IPERF2_HEADER_START_LEN];
	size_t have;
	char peer[64];
	struct bp_timer timer;
	uint64_t born_ns;              /* accepted */
};

/* The per-address bound counts by bp_addr_host_key (io/sock.h): an IPv4 address or an
 * IPv6 /64. */
static void unlink_pending(struct srv_pending *p)
{
	struct srv_door *d = &p->srv->door;

	*(p->older ? &p->older->newer : &d->oldest) = p->newer;
	*(p->newer ? &p->newer->older : &d->newest) = p->older;
	d->npending--;
}

/* Out of the loop and the list; the descriptor stays open when the caller hands it on. */
static void pending_free(struct srv_pending *p, bool close_fd)
{
	bp_timer_cancel(p->srv->loop, &p->timer);
	bp_loop_del(&p->flow);
	unlink_pending(p);
	if (close_fd)
		close(p->flow.fd);
	free(p);
}

static void pending_timeout(struct bp_timer *t, uint64_t now_ns)
{
	struct srv_pending *p = t->data;

	(void)now_ns;
	p->srv->door.no_cookie++;
	bp_debug_peer(p->peer, "%s: no cookie within the idle timeout, dropped", p->peer);
	pending_free(p, true);
}

uint64_t srv_pending_oldest_ns(const struct srv *s)
{
	return s->door.oldest ? s->door.oldest->born_ns : UINT64_MAX;
}

void srv_pending_close_all(struct srv *s)
{
	while (s->door.oldest)
		pending_free(s->door.oldest, true);
}

/* Hand a connection whose cookie is read to its session (or start one). */
static void route(struct srv *s, int fd, const char *peer, const char cookie[BP_COOKIE_LEN])
{
	struct srv_session *ss;

	if (!bp_cookie_valid(cookie)) {
		/* A scanner or a flood can send these at any rate. */
		s->door.junk++;
		bp_info_peer(peer,
			     "%s: not a boardperf or iperf3 client (bad cookie), dropped", peer);
		close(fd);
		return;
	}
	ss = srv_session_find(s, cookie);
	/* Control connections are TCP: an SCTP one opens no test (none without the listener). */
	if (!ss && s->sctp_listener.fd > 0 && bp_sock_is_sctp(fd))
		close(fd);
	else if (!ss)
		srv_session_new(s, fd, peer, cookie);
	else if (!srv_session_take_stream(ss, fd))
		close(fd);
}

/* The first n bytes of a cookie: 36 of iperf3's alphabet (a-z, 2-7), then a NUL. */
static bool cookie_prefix(const char *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (i + 1 == BP_COOKIE_LEN ? c[i] != '\0' :
		    !((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '2' && c[i] <= '7')))
			return false;
	return true;
}

/* How many first bytes settle what the connection is: a cookie's 37, an iperf 2 header's. */
static size_t first_len(const unsigned char *b, size_t have)
{
	int len;

	if (have && bp_iperf2_bb_prefix(b, have))
		return BP_IPERF2_BB_HEAD_LEN;  /* iperf 2's bounceback: its first request */
	if (!have || !bp_iperf2_header_prefix(b, have))
		return BP_COOKIE_LEN;
	if (have < 4)
		return 4;
	len = bp_iperf2_header_len(b);
	return len < BP_IPERF2_HEADER_START_LEN ? (size_t)len : BP_IPERF2_HEADER_START_LEN;
}

/*
 * Reads what has come of p's cookie. True when p is gone: routed to its session (the cookie is
 * whole), or closed (junk, an iperf 2 client, the peer went away); false while a valid
 * cookie or header is still coming.
 */
static bool pending_read(struct srv_pending *p)
{
	struct srv *s = p->srv;
	unsigned char first[sizeof(p->first)];
	char cookie[BP_COOKIE_LEN], peer[64];
	int fd = p->flow.fd;
	size_t want = first_len(p->first, p->have), have;
	ssize_t n;

	/*
	 * Read no further than the cookie (or header): what follows belongs to the session. A
	 * header shorter than the bytes the accept read at once has them all already.
	 */
	if (p->have < want) {
		n = recv(fd, p->first + p->have, want - p->have, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			pending_free(p, true);
			return true;
		}
		if (n > 0)
			p->have += (size_t)n;
		want = first_len(p->first, p->have);
	}
	/* The timer is not re-armed: a cookie trickled a byte at a time gains no time. */
	if (p->have < want && (want != BP_COOKIE_LEN ||
			       cookie_prefix((const char *)p->first, p->have)))
		return false;
	have = p->have;
	memcpy(first, p->first, sizeof(first));
	memcpy(peer, p->peer, sizeof(peer));
	/* Out of the loop first: the fd is about to be registered again by its owner. */
	pending_free(p, false);
	if (want != BP_COOKIE_LEN) {
		srv_iperf2_accept(s, fd, peer, first, have);
		return true;
	}
	memcpy(cookie, first, sizeof(cookie));
	route(s, fd, peer, cookie);
	return true;
}

static void pending_readable(struct bp_flow *f, uint32_t events)
{
	(void)events;
	pending_read(f->data);
}

/*
 * Sheds p, unless what has arrived on it settles it first: a flood from a client's own
 * address accepts connections faster than the loop reaches their readable events, so the
 * oldest pending one may be a real client whose cookie is already in its socket buffer
 * (stock iperf3 lost its control connection that way, 1,000 junk connections a second from
 * 127.0.0.1 beside it). One recv tells: a whole cookie goes to its session, junk or a closed
 * peer is dropped as such, and only a connection whose cookie has still not come is shed.
 */
static void shed(struct srv_pending *p, const char *why)
{
	if (pending_read(p))
		return;
	p->srv->door.shed++;
	bp_debug_peer(p->peer, "%s: no cookie yet, shed (%s)", p->peer, why);
	pending_free(p, true);
}

bool srv_pending_shed_oldest(struct srv *s, const char *why)
{
	struct srv_pending *p = s->door.oldest;

	if (!p)
		return false;
	shed(p, why);
	return true;
}

/*
 * Descriptors are handed out lowest first, so a new one numbered fd means every one below it
 * is in use: fewer than FD_HEADROOM free. The pending connections are then held to fewer
 * than they are (a cap that only a flood's end lifts), so that what tests need keeps room.
 */
static void near_fd_limit(struct srv *s, int fd)
{
	struct srv_door *d = &s->door;

	if (fd >= d->fd_limit - FD_HEADROOM && d->npending > 0) {
		d->pressure_cap = d->npending > 8 ? d->npending - 8 : 1;
		bp_warn_peer(NULL,
			     "near the descriptor limit (%d): connections without a cookie "
			     "held to %d, the oldest shed", d->fd_limit, d->pressure_cap);
	} else if (d->pressure_cap && d->npending < d->pressure_cap / 2) {
		d->pressure_cap = 0;
	}
}

/* Make room for one more pending connection from key, shedding the oldest as needed. */
static void make_room(struct srv *s, const unsigned char key[16], int fd)
{
	int max = s->o->max_pending > 0 ? s->o->max_pending : BP_SERVER_MAX_PENDING;
	int per_addr = s->o->max_pending_per_addr > 0 ? s->o->max_pending_per_addr :
		       BP_SERVER_MAX_PENDING_PER_ADDR;
	struct srv_door *d = &s->door;
	struct srv_pending *oldest_here = NULL;
	int here = 0;

	near_fd_limit(s, fd);
	for (struct srv_pending *q = d->oldest; q; q = q->newer)
		if (!memcmp(q->host, key, 16) && here++ == 0)
			oldest_here = q;
	if (oldest_here && here >= per_addr) {
		bp_warn_peer(oldest_here->peer,
			     "%s: %d connections without a cookie from this address "
			     "(--max-pending-per-addr %d): shedding the oldest",
			     oldest_here->peer, here, per_addr);
		shed(oldest_here, "per-address bound");
		return;
	}
	if (d->npending >= max)
		bp_warn_peer(NULL,
			     "%d connections without a cookie (--max-pending %d): "
			     "shedding the oldest", d->npending, max);
	if (d->pressure_cap && d->pressure_cap < max)
		max = d->pressure_cap;
	while (d->npending >= max && srv_pending_shed_oldest(s, "bound"))
		;
}

void srv_pending_accept(struct srv *s, int fd, const struct bp_addr *peer)
{
	struct srv_pending *p;
	char cookie[BP_COOKIE_LEN] = { 0 }, name[64];
	ssize_t n;

	bp_addr_str(peer, name, sizeof(name));
	/*
	 * The cookie usually came with the handshake's last ACK (a client writes it first):
	 * route at once, without an epoll registration, a wait and a timer per connection,
	 * which for crr's thousands of connections a second is most of the server's work.
	 */
	n = recv(fd, cookie, BP_COOKIE_LEN, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(fd);
		return;
	}
	/* Whole, or already not a cookie (junk need not wait for its 37th byte); an iperf 2
	 * header or bounceback request is read on as a pending connection (a bounceback head
	 * already here at the accept, as under load, was taken for junk) */
	if (n == BP_COOKIE_LEN && cookie_prefix(cookie, (size_t)n)) {
		route(s, fd, name, cookie);
		return;
	}
	if (n > 0 && !cookie_prefix(cookie, (size_t)n) &&
	    !bp_iperf2_header_prefix((const unsigned char *)cookie, (size_t)n) &&
	    !bp_iperf2_bb_prefix((const unsigned char *)cookie, (size_t)n)) {
		route(s, fd, name, cookie);
		return;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return;
	}
	p->srv = s;
	p->born_ns = bp_now_ns();
	bp_addr_host_key(peer, p->host);
	make_room(s, p->host, fd);
	snprintf(p->peer, sizeof(p->peer), "%s", name);
	if (n > 0) {
		memcpy(p->first, cookie, (size_t)n);
		p->have = (size_t)n;
	}
	p->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = pending_readable,
				    .data = p };
	p->timer = (struct bp_timer){ .fn = pending_timeout, .data = p };
	if (bp_loop_add(s->loop, &p->flow)) {
		close(fd);
		free(p);
		return;
	}
	p->older = s->door.newest;
	*(p->older ? &p->older->newer : &s->door.oldest) = p;
	s->door.newest = p;
	s->door.npending++;
	bp_timer_arm(s->loop, &p->timer, bp_now_ns() + s->o->idle_timeout_ns);
}
