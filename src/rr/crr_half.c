/*
 * crr's half on the server: each connection carries the session's cookie, one request and the
 * answer, after which the server closes first (its TIME_WAIT stays here, where 4-tuples
 * differ by the client's port, instead of exhausting the client's ports). The work is a
 * read, a write and a close per connection: done on the server's own loop, without a hop
 * to the stream pool. With --concurrent (crr_hold) connections stay open after the first
 * answer; the server closes them after the second (the client's check after the hold).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "rr/rr_half.h"
#include "rr/rr_responder.h"
#include "server/server_internal.h"

struct crr_conn;

/* Connections being answered on the server's loop, and what ended ones served. */
struct crr_state {
	struct crr_conn *open;
	uint64_t served, bytes, conns;
	uint64_t loop_cpu0_ns;  /* the server loop thread's CPU time at the start */
};

struct crr_conn {
	struct bp_rr_responder *r;
	struct crr_state *st;
	struct crr_conn *prev, *next;
};

static void unlink_conn(struct crr_conn *c)
{
	struct crr_state *st = c->st;

	if (c->prev)
		c->prev->next = c->next;
	else
		st->open = c->next;
	if (c->next)
		c->next->prev = c->prev;
	st->served += bp_rr_responder_served(c->r);
	st->bytes += bp_rr_responder_bytes(c->r);
}

/* The responder answered and closed (or the connection broke): count it and forget it. */
static void conn_done(struct bp_rr_responder *r, void *arg)
{
	struct crr_conn *c = arg;

	unlink_conn(c);
	bp_rr_responder_free(r);
	free(c);
}

static void take_running(struct srv_session *ss, int fd)
{
	struct crr_state *st = ss->half_state;
	struct crr_conn *c = calloc(1, sizeof(*c));
	struct bp_rr_responder_cfg cfg = {
		.req_len = (size_t)ss->np.rr_request, .resp_len = (size_t)ss->np.rr_response,
		.sctp = ss->np.sctp, .close_after = ss->np.crr_hold ? 2 : 1, .owns_fd = true, .done = conn_done,
		.done_arg = c,
	};
	int rc;

	if (!c || !(c->r = bp_rr_responder_new(&cfg))) {
		free(c);
		close(fd);
		bp_debug_peer(ss->peer, "%s: crr connection refused: out of memory", ss->peer);
		return;
	}
	/*
	 * Into the list first: attach may answer and close the connection at once (the request
	 * came with the cookie), and then conn_done has unlinked and freed c before it returns.
	 */
	c->st = st;
	c->next = st->open;
	if (c->next)
		c->next->prev = c;
	st->open = c;
	rc = bp_rr_responder_attach(c->r, ss->srv->loop, fd);
	if (rc) {  /* nothing was closed or called back: the connection is still ours */
		unlink_conn(c);
		bp_rr_responder_free(c->r);
		free(c);
		close(fd);
		bp_debug_peer(ss->peer, "%s: crr connection dropped: %s", ss->peer,
			      strerror(-rc));
		return;
	}
	st->conns++;
}

/* Close every connection still open (the test ended). */
static void close_all(struct srv_session *ss)
{
	struct crr_state *st = ss->half_state;

	while (st->open) {
		struct crr_conn *c = st->open;
		int fd = -1;

		unlink_conn(c);
		/* The responder owns the socket; detach and free close nothing, so close it. */
		bp_rr_responder_detach(c->r);
		fd = bp_rr_responder_fd(c->r);
		bp_rr_responder_free(c->r);
		if (fd >= 0)
			close(fd);
		free(c);
	}
}

/* Transactions answered so far (ended connections and open ones). */
static uint64_t served(const struct srv_session *ss)
{
	const struct crr_state *st = ss->half_state;
	uint64_t n = st->served;

	for (const struct crr_conn *c = st->open; c; c = c->next)
		n += bp_rr_responder_served(c->r);
	return n;
}

/* CPU time of the calling thread (the server's loop), ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void start(struct srv_session *ss, uint64_t now)
{
	struct crr_state *st = ss->half_state;

	(void)now;
	st->loop_cpu0_ns = thread_cpu_ns();
}

/* Transactions answered and connections taken: a connect alone shows the client is there. */
static uint64_t progress(const struct srv_session *ss)
{
	const struct crr_state *st = ss->half_state;

	return served(ss) + st->conns;
}

/*
 * What the server answered, as one iperf3-shaped stream (packets are transactions, bytes
 * the requests read), so the client can set it beside its own.
 */
static void finish(struct srv_session *ss)
{
	struct crr_state *st = ss->half_state;
	struct bp_net_results *r = ss->side.res;

	close_all(ss);
	r->nstreams = 1;
	r->streams[0] = (struct bp_net_stream_result){
		.id = 1, .bytes = st->bytes, .packets = st->served,
		.retransmits = -1, .end_s = (double)(ss->side.stop_ns - ss->side.start_ns) / 1e9,
	};
	/* crr's work is done on the server's loop thread: its share of a core. */
	if (ss->side.stop_ns > ss->side.start_ns)
		r->busy_max = (double)(thread_cpu_ns() - st->loop_cpu0_ns) /
			      (double)(ss->side.stop_ns - ss->side.start_ns);
}

/* Requests read and answers written, of ended connections and open ones. */
static void moved(const struct srv_session *ss, uint64_t *received, uint64_t *sent)
{
	const struct crr_state *st = ss->half_state;
	uint64_t bytes = st->bytes;

	for (const struct crr_conn *c = st->open; c; c = c->next)
		bytes += bp_rr_responder_bytes(c->r);
	*received = bytes;
	*sent = served(ss) * (uint64_t)ss->np.rr_response;
}

/* No streams: the connections come while the test runs, each with the cookie. */
const struct srv_half srv_half_crr = {
	.state_size = sizeof(struct crr_state),
	.take_running = take_running,
	.start = start,
	.progress = progress,
	.finish = finish,
	.moved = moved,
	.log = srv_rr_log,
	.close = close_all,
};
