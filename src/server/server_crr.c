/*
 * crr on the server: each connection carries the session's cookie, one request and the
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
#include "rr/rr_responder.h"
#include "server/server_internal.h"

struct crr_conn {
	struct bp_rr_responder *r;
	struct srv_session *ss;
	struct crr_conn *prev, *next;
};

static void unlink_conn(struct crr_conn *c)
{
	struct srv_session *ss = c->ss;

	if (c->prev)
		c->prev->next = c->next;
	else
		ss->crr_open = c->next;
	if (c->next)
		c->next->prev = c->prev;
	ss->crr_served += bp_rr_responder_served(c->r);
	ss->crr_bytes += bp_rr_responder_bytes(c->r);
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
	c->ss = ss;
	c->next = ss->crr_open;
	if (c->next)
		c->next->prev = c;
	ss->crr_open = c;
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
	ss->crr_conns++;
}

/* Close every connection still open (the test ended). */
static void close_all(struct srv_session *ss)
{
	while (ss->crr_open) {
		struct crr_conn *c = ss->crr_open;
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
	uint64_t n = ss->crr_served;

	for (const struct crr_conn *c = ss->crr_open; c; c = c->next)
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
	(void)now;
	ss->loop_cpu0_ns = thread_cpu_ns();
}

/* Transactions answered and connections taken: a connect alone shows the client is there. */
static uint64_t progress(const struct srv_session *ss)
{
	return served(ss) + ss->crr_conns;
}

/*
 * What the server answered, as one iperf3-shaped stream (packets are transactions, bytes
 * the requests read), so the client can set it beside its own.
 */
static void finish(struct srv_session *ss)
{
	struct bp_net_results *r = ss->side.res;

	close_all(ss);
	r->nstreams = 1;
	r->streams[0] = (struct bp_net_stream_result){
		.id = 1, .bytes = ss->crr_bytes, .packets = ss->crr_served,
		.retransmits = -1, .end_s = (double)(ss->side.stop_ns - ss->side.start_ns) / 1e9,
	};
	/* crr's work is done on the server's loop thread: its share of a core. */
	if (ss->side.stop_ns > ss->side.start_ns)
		r->busy_max = (double)(thread_cpu_ns() - ss->loop_cpu0_ns) /
			      (double)(ss->side.stop_ns - ss->side.start_ns);
}

/* Requests read and answers written, of ended connections and open ones. */
static void moved(const struct srv_session *ss, uint64_t *received, uint64_t *sent)
{
	uint64_t bytes = ss->crr_bytes;

	for (const struct crr_conn *c = ss->crr_open; c; c = c->next)
		bytes += bp_rr_responder_bytes(c->r);
	*received = bytes;
	*sent = served(ss) * (uint64_t)ss->np.rr_response;
}

/* No streams: the connections come while the test runs, each with the cookie. */
const struct srv_kind srv_kind_crr = {
	.kind = BP_NET_KIND_CRR,
	.take_running = take_running,
	.start = start,
	.progress = progress,
	.finish = finish,
	.moved = moved,
	.log = srv_rr_log,
	.close = close_all,
};
