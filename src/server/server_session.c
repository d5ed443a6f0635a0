/*
 * One test on the server: the control connection's state machine from PARAM_EXCHANGE to
 * IPERF_DONE. Every step reacts to what arrived and answers with a few bytes that fit in
 * any socket buffer, so no step waits on a client. What differs between tests is the
 * kind's half (server/half.h), chosen once from the parameters.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "core/be32.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "core/units.h"
#include "proto/iperf3_error.h"
#include "proto/iperf3_text.h"
#include "server/server_auth.h"
#include "server/server_figures.h"
#include "server/server_iperf2.h"
#include "server/server_internal.h"
#include "io/addr_host.h"
#include "io/sock.h"

/* Control answers are a few bytes into an idle socket; this bounds a pathological peer. */
#define SEND_DEADLINE_NS (2 * BP_NS_PER_SEC)
/* A test may overrun its time by this much before the server gives up on TEST_END. */
#define END_GRACE_NS (5 * BP_NS_PER_SEC)

static uint64_t send_deadline(void)
{
	return bp_now_ns() + SEND_DEADLINE_NS;
}

struct srv_session *srv_session_find(struct srv *s, const char *cookie)
{
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (!memcmp(ss->cookie, cookie, BP_COOKIE_LEN))
			return ss;
	return NULL;
}

static void unlink_session(struct srv_session *ss)
{
	for (struct srv_session **pp = &ss->srv->sessions; *pp; pp = &(*pp)->next)
		if (*pp == ss) {
			*pp = ss->next;
			return;
		}
}

/* --metrics: the test's outcome and what its data moved, once, as it closes. */
static void count_test(struct srv_session *ss)
{
	int k = srv_half_number(ss->np.test);
	enum srv_outcome o = ss->refusal ? SRV_OUTCOME_REFUSED :
			     ss->completed ? SRV_OUTCOME_OK : SRV_OUTCOME_FAILED;
	uint64_t received = 0, sent = 0;

	if (ss->admitted && ss->half && ss->side_ready)
		ss->half->moved(ss, &received, &sent);
	srv_stats_test(&ss->srv->stats, k, o, ss->refusal, received, sent);
}

void srv_session_close(struct srv_session *ss, const char *why)
{
	struct srv *s = ss->srv;

	if (ss->params_read)
		count_test(ss);

	/* A refused or a tiny test alike is a line a client can make at any rate. */
	if (why)
		bp_info_peer(ss->peer, "%s: %s", ss->peer, why);
	bp_timer_cancel(s->loop, &ss->idle);
	bp_timer_cancel(s->loop, &ss->tick);
	srv_proof_close_all(ss);
	OPENSSL_cleanse(&ss->auth, sizeof(ss->auth));
	if (ss->half && ss->half->close)
		ss->half->close(ss);
	free(ss->half_state);
	if (ss->side_ready)
		bp_stream_side_free(&ss->side);
	srv_iperf2_free(ss);
	if (ss->flow.fd >= 0) {
		bp_loop_del(&ss->flow);
		close(ss->flow.fd);
	}
	bp_proto_decoder_free(&ss->dec);
	unlink_session(ss);
	if (ss->admitted) {
		s->nsessions--;
		s->finished++;
		if (s->o->max_tests && s->finished >= s->o->max_tests)
			bp_loop_stop(s->loop);
	}
	free(ss);
	/* Give what the test's buffers and results used back to the system between tests. */
	malloc_trim(0);
}

/* Marks the session dead (server_internal.h). */
void srv_session_end(struct srv_session *ss, const char *why)
{
	if (ss->dead)
		return;
	ss->dead = true;
	snprintf(ss->why, sizeof(ss->why), "%s", why ? why : "");
}

/* Closes a dead session (server_internal.h). */
bool srv_session_reap(struct srv_session *ss)
{
	if (!ss->dead)
		return false;
	srv_session_close(ss, ss->why[0] ? ss->why : NULL);
	return true;
}

/*
 * SERVER_ERROR, then the reason in the client's dialect (a stock iperf3 cannot read our
 * line and gets code; the log keeps the line).
 */
void srv_session_refuse(struct srv_session *ss, enum srv_refusal reason, int code,
			const char *fmt, ...)
{
	char why[256];
	va_list ap;

	if (!ss->refusal)
		ss->refusal = reason;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* an iperf 2 client has no channel for it: the log says why, its connections close */
	if (!ss->iperf2)
		bp_iperf3_send_refusal(ss->flow.fd, ss->np.bp_version, code, 0, why,
				       send_deadline());
	srv_session_end(ss, why);
}

/*
 * Admitted, but its streams stopped coming (BP_SERVER_STREAMS_WAIT_NS): the slot goes back
 * to the others, and the client hears why rather than seeing its control connection close.
 */
static void release_waiting(struct srv_session *ss, uint64_t now_ns)
{
	char d[32];

	bp_stallers_note(&ss->srv->stallers, &ss->client, now_ns);
	srv_session_refuse(ss, SRV_REFUSAL_NO_STREAMS, BP_IE_STREAMACCEPT,
			   "streams not connected: %d of %d came, none in the last %s: test "
			   "released, its slot freed", ss->got_streams, ss->expected_streams,
			   bp_format_duration(d, sizeof(d),
					      (double)(now_ns - ss->last_activity_ns)));
}

static void idle_expired(struct bp_timer *t, uint64_t now_ns)
{
	struct srv_session *ss = t->data;
	char msg[128], d[32];

	if (ss->state == SS_STREAMS) {
		release_waiting(ss, now_ns);
		srv_session_reap(ss);
		return;
	}
	snprintf(msg, sizeof(msg), "no progress for %s in %s: dropped (idle timeout)",
		 bp_format_duration(d, sizeof(d), (double)ss->srv->o->idle_timeout_ns),
		 ss->state == SS_PARAMS ? "the parameter exchange" :
		 ss->state == SS_AUTH ? "the key challenge" : "the results exchange");
	srv_session_end(ss, msg);
	srv_session_reap(ss);
}

static void touch(struct srv_session *ss)
{
	ss->last_activity_ns = bp_now_ns();
	if (ss->state == SS_STREAMS)
		bp_timer_arm(ss->srv->loop, &ss->idle,
			     bp_limits_streams_due_ns(ss->srv->o, ss->last_activity_ns));
	else if (ss->state != SS_RUNNING)
		bp_timer_arm(ss->srv->loop, &ss->idle,
			     ss->last_activity_ns + ss->srv->o->idle_timeout_ns);
}

static enum srv_refusal limit_refusal(enum bp_limit l)
{
	switch (l) {
	case BP_LIMIT_CLIENTS: return SRV_REFUSAL_MAX_CLIENTS;
	case BP_LIMIT_PER_CLIENT: return SRV_REFUSAL_MAX_PER_CLIENT;
	case BP_LIMIT_PER_SUBNET: return SRV_REFUSAL_MAX_PER_SUBNET;
	case BP_LIMIT_DURATION: return SRV_REFUSAL_MAX_DURATION;
	case BP_LIMIT_STREAMS: return SRV_REFUSAL_MAX_STREAMS;
	case BP_LIMIT_RATE: return SRV_REFUSAL_MAX_RATE;
	default: return SRV_REFUSAL_NONE;
	}
}

/*
 * A full server's newcomer takes the slot of a test whose streams stalled (server_limits.h,
 * BP_SERVER_STALLED_NS). Another session than the one whose handler runs: closed here.
 */
static void give_up_slot(struct srv_session *st)
{
	char d[32];

	bp_stallers_note(&st->srv->stallers, &st->client, bp_now_ns());
	srv_session_refuse(st, SRV_REFUSAL_NO_STREAMS, BP_IE_STREAMACCEPT,
			   "streams not connected: %d of %d came, none in the last %s, and the "
			   "server is full: test released, its slot given to another client",
			   st->got_streams, st->expected_streams,
			   bp_format_duration(d, sizeof(d),
					      (double)(bp_now_ns() - st->last_activity_ns)));
	srv_session_reap(st);
}

/* Limits (server_limits.h) are checked before anything is allocated for the test. */
static bool admit(struct srv_session *ss)
{
	char why[256], kinds[256];
	struct srv_session *stalled;
	enum bp_limit l;

	if (!ss->half) {
		srv_half_list(kinds, sizeof(kinds));
		srv_session_refuse(ss, SRV_REFUSAL_NOT_SERVED, BP_IE_PROTOCOL,
				   "test '%s' is not served here (%s are)",
				   ss->np.test, kinds);
		return false;
	}
	l = srv_limits_check(ss, why, sizeof(why), &stalled);
	if (stalled)
		give_up_slot(stalled);
	if (l != BP_LIMIT_NONE)
		ss->refusal = limit_refusal(l);
	if (l != BP_LIMIT_NONE && ss->np.bp_version == 0 && !ss->iperf2 && bp_limit_busy(l)) {
		/* A stock iperf3 knows "busy" as ACCESS_DENIED and prints its own line. */
		bp_proto_send_state(ss->flow.fd, BP_ACCESS_DENIED, send_deadline());
		srv_session_end(ss, why);
		return false;
	}
	if (l != BP_LIMIT_NONE) {
		srv_session_refuse(ss, ss->refusal, bp_limit_iperf3_code(l), "%s", why);
		return false;
	}
	ss->admitted = true;
	ss->srv->nsessions++;
	return true;
}

static void start_test(struct srv_session *ss);

/* The parameters were read and the client authenticated: the test itself. */
static void begin_test(struct srv_session *ss)
{
	char err[256];

	const struct srv_half *half = srv_half_find(ss->np.test);

	/* The half's state, before it is the session's: its hooks may count on it. */
	if (half && half->state_size && !(ss->half_state = calloc(1, half->state_size))) {
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, BP_IE_INITTEST,
				   "server out of memory");
		return;
	}
	ss->half = half;
	/* Before admission: a test this kernel cannot run takes no slot. */
	if (ss->half && ss->np.sctp && srv_sctp_open(ss->srv, err, sizeof(err))) {
		srv_session_refuse(ss, SRV_REFUSAL_NOT_SERVED, BP_IE_PROTOCOL, "%s", err);
		return;
	}
	if (!admit(ss))
		return;
	if (bp_stream_side_init(&ss->side, ss->srv->pool, ss->np.omit_ns)) {
		srv_session_refuse(ss, SRV_REFUSAL_OUT_OF_MEMORY, BP_IE_INITTEST,
				   "server out of memory");
		return;
	}
	ss->side_ready = true;
	ss->expected_streams = bp_net_params_up_streams(&ss->np) +
			       bp_net_params_down_streams(&ss->np);
	ss->state = SS_STREAMS;
	touch(ss);  /* the streams get a timeout of their own, BP_SERVER_STREAMS_WAIT_NS */
	if (ss->iperf2)
		return;  /* its streams are the connections that opened it */
	if (bp_proto_send_state(ss->flow.fd, BP_CREATE_STREAMS, send_deadline()))
		srv_session_end(ss, "control connection lost while creating streams");
	else if (ss->expected_streams == 0)
		start_test(ss);  /* crr: its connections come while the test runs */
}

/* The time of a test that -n/-k end: what --max-duration leaves after -O, else a day. */
static uint64_t counted_test_time(uint64_t max_duration_ns, uint64_t omit_ns)
{
	if (!max_duration_ns)
		return 86400 * BP_NS_PER_SEC;
	return max_duration_ns > omit_ns ? max_duration_ns - omit_ns : 1;
}

static void on_params(struct srv_session *ss, json_t *msg)
{
	char err[256];
	int ie;

	ss->params_read = true;
	if (bp_net_params_from_json(msg, &ss->np, &ie, err, sizeof(err))) {
		srv_session_refuse(ss, SRV_REFUSAL_BAD_PARAMETERS, ie, "bad parameters: %s", err);
		return;
	}
	/* A stock iperf3 sends no interval; its server output (-- get-server-output) has 1 s. */
	if (ss->np.bp_version == 0 && !ss->np.interval_ns)
		ss->np.interval_ns = BP_NS_PER_SEC;
	/*
	 * -n/-k with no time ("time": 0): the client ends the test once its bytes or blocks have
	 * moved; the server's --max-duration (else a day) is the wall-clock cut.
	 */
	if (!ss->np.time_ns)
		ss->np.time_ns = counted_test_time(ss->srv->o->max_duration_ns, ss->np.omit_ns);
	/*
	 * Who may test comes before the limits: a stranger learns nothing of the server's load.
	 * A challenge is a step of its own, answered within the idle timeout from now.
	 */
	ss->state = SS_AUTH;
	touch(ss);
	if (srv_auth_params(ss, msg))
		begin_test(ss);
}

/* The next interval mark or the end of the omitted start, whichever comes first. */
static uint64_t next_tick(const struct srv_session *ss, uint64_t now)
{
	const struct bp_stream_side *sd = &ss->side;
	uint64_t due = now + BP_NS_PER_SEC; /* at least once a second, for the watchdogs */

	if (ss->np.interval_ns) {
		uint64_t k = (sd->last_mark_ns - sd->start_ns) / ss->np.interval_ns + 1;

		if (sd->start_ns + k * ss->np.interval_ns < due)
			due = sd->start_ns + k * ss->np.interval_ns;
	}
	if (!sd->omit_done && sd->start_ns + ss->np.omit_ns < due)
		due = sd->start_ns + ss->np.omit_ns;
	return due > now ? due : now + 1;
}


/* Marks, and the watchdogs: data that stopped moving, a test that never ends, the kind's. */
static void tick(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;
	const struct bp_stream_side *sd = &ss->side;
	uint64_t idle = ss->srv->o->idle_timeout_ns;
	uint64_t bytes = ss->half->progress(ss);
	bool mark = ss->np.interval_ns &&
		    (now - sd->start_ns) / ss->np.interval_ns >
		    (sd->last_mark_ns - sd->start_ns) / ss->np.interval_ns;

	if (mark || (!sd->omit_done && now - sd->start_ns >= ss->np.omit_ns))
		bp_stream_side_mark(&ss->side, now);
	if (bytes != ss->last_total_bytes) {
		ss->last_total_bytes = bytes;
		ss->last_progress_ns = now;
	}
	if (ss->half->tick)
		ss->half->tick(ss, now);
	if (now - ss->last_progress_ns > idle)
		srv_session_end(ss, "no data moved within the idle timeout: client gone, dropped");
	else if ((ss->np.num_bytes || ss->np.num_blocks) &&
		 now - sd->start_ns > ss->np.omit_ns + ss->np.time_ns)
		/* -n/-k: the client ends the test; the time is the server's wall-clock cut */
		srv_session_refuse(ss, SRV_REFUSAL_MAX_DURATION, BP_IE_DURATION,
				   "-n/-k test still running at the server's time limit (%.0f s, "
				   "--max-duration): stopped",
				   (double)(ss->np.omit_ns + ss->np.time_ns) / 1e9);
	else if (now - sd->start_ns > ss->np.omit_ns + ss->np.time_ns + END_GRACE_NS + idle)
		srv_session_end(ss, "client never ended its test: dropped");
	if (!srv_session_reap(ss))
		bp_timer_arm(ss->srv->loop, &ss->tick, next_tick(ss, now));
}

static void start_test(struct srv_session *ss)
{
	uint64_t now;

	if (!ss->iperf2 &&
	    (bp_proto_send_state(ss->flow.fd, BP_TEST_START, send_deadline()) ||
	     bp_proto_send_state(ss->flow.fd, BP_TEST_RUNNING, send_deadline()))) {
		srv_session_end(ss, "control connection lost at the start");
		return;
	}
	bp_timer_cancel(ss->srv->loop, &ss->idle);
	srv_proof_close_all(ss);  /* every stream is in: what still proves is not one */
	ss->state = SS_RUNNING;
	now = bp_now_ns();
	bp_stream_side_start(&ss->side, now);
	if (ss->half->start)
		ss->half->start(ss, now);
	ss->last_progress_ns = now;
	bp_timer_arm(ss->srv->loop, &ss->tick, next_tick(ss, now));
	if (ss->iperf2)
		srv_iperf2_started(ss, now);
}

/* A stream was opened (ie 0) or refused: count it, and start the test once all are in. */
static void stream_opened(struct srv_session *ss, int ie, const char *what, int id,
			  const char *err)
{
	if (ie) {
		srv_session_refuse(ss, SRV_REFUSAL_STREAM_SETUP, ie, "%s %d: %s", what, id, err);
		return;
	}
	ss->got_streams++;
	touch(ss);
	if (ss->got_streams == ss->expected_streams)
		start_test(ss);
}

/* iperf3 numbers streams 1, 3, 4, ...; the client opens its sending streams first. */
static int stream_id(int index)
{
	return index == 0 ? 1 : index + 2;
}

static bool stream_sender(const struct srv_session *ss, int index)
{
	return index >= bp_net_params_up_streams(&ss->np);
}

/* Stream index (its id, iperf3's), sending or not; the caller (the entry point) reaps. */
static void add_tcp_at(struct srv_session *ss, int fd, int index, bool sender)
{
	int id = stream_id(index);
	char err[256];
	int ie = ss->half->add_tcp(ss, fd, id, sender, err, sizeof(err));

	stream_opened(ss, ie, "data connection", id, err); /* on failure fd was closed */
}

void srv_session_add_tcp(struct srv_session *ss, int fd, bool sender)
{
	add_tcp_at(ss, fd, ss->got_streams, sender);
}

/* A proved stream keeps the index its proof named (server_proof.c), not the arrival order. */
void srv_session_add_stream(struct srv_session *ss, int fd, int index)
{
	add_tcp_at(ss, fd, index, stream_sender(ss, index));
	srv_session_reap(ss);
}

/*
 * A data connection from another address than the test's control connection is refused:
 * the cookie it presents is no credential (anyone on the path sees it), and a stranger's
 * connection taken as a stream would close the real client's and its figures would be the
 * stranger's. A client's streams come from its own address (iperf3's too); UDP's are held
 * to it the same way (server_udp.c).
 */
static bool from_client(struct srv_session *ss, int fd, struct bp_addr *peer)
{
	char who[64];

	peer->len = sizeof(peer->ss);
	if (getpeername(fd, (struct sockaddr *)&peer->ss, &peer->len))
		return false;
	if (bp_addr_same_host(&ss->ctl_addr, peer))
		return true;
	bp_addr_str(peer, who, sizeof(who));
	bp_info_peer(who, "%s: data connection for the test of %s "
		     "from another address: refused", who, ss->peer);
	return false;
}

bool srv_session_take_stream(struct srv_session *ss, int fd)
{
	struct bp_addr peer;

	/*
	 * A data connection comes over the transport the test asked for, or not at all. Without
	 * the SCTP listener every connection is TCP (a test over SCTP opened it): no system call.
	 */
	if (ss->half && ss->srv->sctp_listener.fd > 0 && bp_sock_is_sctp(fd) != ss->np.sctp)
		return false;
	if (!from_client(ss, fd, &peer))
		return false;
	if (ss->state == SS_RUNNING && ss->half->take_running) {
		ss->half->take_running(ss, fd);
		return true;
	}
	if (ss->state != SS_STREAMS || ss->got_streams >= ss->expected_streams ||
	    bp_net_params_datagram(&ss->np) || !ss->half->add_tcp)
		return false;
	if (ss->auth.stream_proof)
		srv_proof_start(ss, fd, &peer);  /* the stream once its proof checks out */
	else
		srv_session_add_stream(ss, fd, ss->got_streams);
	return true;
}

static bool waiting_udp(const struct srv_session *ss)
{
	return ss->state == SS_STREAMS && bp_net_params_datagram(&ss->np);
}

struct srv_session *srv_session_waiting_udp(struct srv *s, const struct bp_addr *from)
{
	struct srv_session *found = NULL;

	/* The list is newest first: the last match is the oldest session. */
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (waiting_udp(ss) && bp_addr_same_host(&ss->ctl_addr, from))
			found = ss;
	return found;
}

bool srv_session_any_waiting_udp(const struct srv *s)
{
	for (const struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (waiting_udp(ss))
			return true;
	return false;
}

void srv_session_take_udp(struct srv_session *ss, int fd, const char *peer,
			  const struct bp_udp_datagram *seeds, int nseeds)
{
	int index = ss->got_streams, id = stream_id(index);
	char err[256];
	int ie;

	for (int i = 0; i < ss->got_streams; i++)
		if (!strcmp(ss->udp_peers[i], peer)) {
			close(fd);
			return;
		}
	if (ss->state != SS_STREAMS || ss->got_streams >= ss->expected_streams ||
	    !bp_net_params_datagram(&ss->np) || !ss->half->add_udp) {
		close(fd);
		return;
	}
	ie = ss->half->add_udp(ss, fd, id, stream_sender(ss, index), err, sizeof(err));
	if (!ie)
		snprintf(ss->udp_peers[index], sizeof(ss->udp_peers[index]), "%s", peer);
	/* before the stream can start: its worker has not seen it yet */
	for (int i = 0; !ie && i < nseeds; i++)
		bp_udp_stream_seed(ss->side.udp[ss->side.n - 1], seeds[i].head, seeds[i].len,
				   seeds[i].arrival_ns);
	stream_opened(ss, ie, "udp stream", id, err);
	srv_session_reap(ss);
}

/*
 * How long EXCHANGE_RESULTS waits after this side's UDP senders stopped, toward a stock
 * iperf3 client: it reads its streams after TEST_END only until the next control message,
 * and it handles that first when both are ready, so the last datagrams still in its socket
 * would be neither received nor lost (it counts lost from gaps). 20 ms lets it read them
 * on a busy machine (the receivers' drain, side/udp_stream.c, is as long); stock iperf3
 * -s's senders stop well before, a paced send apart.
 */
#define RESULTS_DELAY_NS (20 * BP_NS_PER_MS)

static void send_exchange(struct srv_session *ss)
{
	if (bp_proto_send_state(ss->flow.fd, BP_EXCHANGE_RESULTS, send_deadline()))
		srv_session_end(ss, "control connection lost at the end");
}

static void exchange_due(struct bp_timer *t, uint64_t now)
{
	(void)now;
	send_exchange(t->data);
}

/* A stock iperf3 client that received UDP from this side. */
static bool iperf3_udp_receiver(const struct srv_session *ss)
{
	if (ss->np.bp_version || !bp_net_params_udp(&ss->np))
		return false;
	for (int i = 0; i < ss->side.n; i++)
		if (ss->side.sender[i])
			return true;
	return false;
}

/*
 * -n/-k over TCP toward the client: it ends the test once every byte arrived, and its ACK of
 * the last segment may still be on its way (delayed: up to 200 ms on Linux) when TEST_END
 * reaches this side, whose senders count what was acknowledged (CI run 26 under ASan:
 * 6,553,547 of 6,553,600). Once they wrote their whole count, the end waits for those ACKs,
 * polling every ACK_POLL_NS, ACK_WAIT_NS at most. A client that ended before the count was
 * written (a stock iperf3 -R -k counts its reads as blocks) ends it at once, as iperf3 -s.
 */
#define ACK_WAIT_NS (250 * BP_NS_PER_MS)
#define ACK_POLL_NS BP_NS_PER_MS

static bool acks_due(const struct srv_session *ss)
{
	const struct bp_net_params *np = &ss->np;
	int down = bp_net_params_down_streams(np);

	if ((!np->num_bytes && !np->num_blocks) || bp_net_params_udp(np) ||
	    bp_net_params_rr(np) || !down)
		return false;
	return bp_stream_side_written(&ss->side) >=
	       bp_net_params_blocks_total(np, down) * (uint64_t)np->len &&
	       bp_stream_side_acks_pending(&ss->side);
}

static void end_now(struct srv_session *ss);

static void acks_wait(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;
	bool due = acks_due(ss);  /* TCP_INFO of every sender: read once a poll */

	if (due && now - ss->end_asked_ns < ACK_WAIT_NS) {
		bp_timer_arm(ss->srv->loop, &ss->tick, now + ACK_POLL_NS);
		return;
	}
	bp_debug_peer(ss->peer, "%s: the end waited %.1f ms for the client's ACKs%s", ss->peer,
		      (double)(now - ss->end_asked_ns) / 1e6, due ? ", some still missing" : "");
	end_now(ss);
	srv_session_reap(ss);
}

static void end_test(struct srv_session *ss)
{
	bp_timer_cancel(ss->srv->loop, &ss->tick);
	ss->end_asked_ns = bp_now_ns();
	if (acks_due(ss)) {
		ss->tick = (struct bp_timer){ .fn = acks_wait, .data = ss };
		bp_timer_arm(ss->srv->loop, &ss->tick, ss->end_asked_ns + ACK_POLL_NS);
		return;
	}
	end_now(ss);
}

static void end_now(struct srv_session *ss)
{
	bool delay = iperf3_udp_receiver(ss);

	bp_timer_cancel(ss->srv->loop, &ss->tick);
	bp_stream_side_stop(&ss->side, bp_now_ns());
	if (ss->half->finish)
		ss->half->finish(ss);
	/*
	 * Close the data connections now, as iperf3's server does: a stock iperf3 client
	 * receiving a -R test keeps reading its streams after TEST_END and only then handles
	 * the control connection; the FIN ends those reads. The totals are already in res.
	 */
	bp_stream_side_release(&ss->side);
	ss->state = SS_RESULTS;
	touch(ss);
	if (delay) {
		ss->tick = (struct bp_timer){ .fn = exchange_due, .data = ss };
		bp_timer_arm(ss->srv->loop, &ss->tick, bp_now_ns() + RESULTS_DELAY_NS);
		return;
	}
	send_exchange(ss);
}

static void on_client_results(struct srv_session *ss)
{
	json_t *mine = bp_net_results_to_json(ss->side.res);
	int rc;

	if (bp_net_params_udp(&ss->np))
		srv_flag_figures(ss->side.res, ss->dec.json, ss->peer, mine);

	/* iperf3 --get-server-output: this side's report as iperf3 prints one. */
	if (mine && ss->np.get_server_output) {
		char *text = bp_iperf3_text(&ss->np, ss->side.res, ss->peer);

		json_object_set_new(mine, "server_output_text", json_string(text ? text : ""));
		free(text);
	}
	rc = mine ? bp_proto_send_json(ss->flow.fd, mine, send_deadline()) : -ENOMEM;

	json_decref(mine);
	if (!rc)
		rc = bp_proto_send_state(ss->flow.fd, BP_DISPLAY_RESULTS, send_deadline());
	if (rc) {
		srv_session_end(ss, "control connection lost sending results");
		return;
	}
	ss->state = SS_DONE;
	touch(ss);
}

/* What the decoder expects next in each state. */
static enum bp_proto_expect expectation(enum srv_state st)
{
	return st == SS_PARAMS || st == SS_AUTH || st == SS_RESULTS ? BP_EXPECT_JSON :
	       BP_EXPECT_STATE;
}

static void on_item(struct srv_session *ss)
{
	int st = ss->dec.state;

	switch (ss->state) {
	case SS_PARAMS:
		on_params(ss, ss->dec.json);
		break;
	case SS_AUTH:
		if (srv_auth_answer(ss, ss->dec.json))
			begin_test(ss);
		break;
	case SS_RESULTS:
		on_client_results(ss);
		break;
	case SS_RUNNING:
		if (ss->end_asked_ns)
			srv_session_end(ss, "client spoke while its test's end waited for ACKs");
		else if (st == BP_TEST_END)
			end_test(ss);
		else
			srv_session_end(ss, "client ended the test early");
		break;
	case SS_DONE:
		if (st == BP_IPERF_DONE) {
			ss->completed = true;
			ss->half->log(ss);
		}
		srv_session_end(ss, st == BP_IPERF_DONE ? NULL : "client ended after the results");
		break;
	case SS_STREAMS:
		srv_session_end(ss, "client gave up while streams were being opened");
		break;
	}
}

/* The decoder for the next item: this step's cap on a message, the server's budget. */
static void expect_next(struct srv_session *ss)
{
	bp_proto_decoder_init(&ss->dec, expectation(ss->state));
	bp_proto_decoder_limit(&ss->dec, ss->state == SS_RESULTS ? BP_SERVER_MAX_RESULTS_MSG :
			       BP_SERVER_MAX_SETUP_MSG, ss->srv->budget);
}

/*
 * The budget has no room for what ss has sent: the peer holding the most is closed when it
 * holds more than ss does, so a few small real messages get through a budget filled by
 * large half-sent ones; otherwise ss is (it asks for the most). True when room was made.
 */
static bool budget_room(struct srv_session *ss)
{
	struct srv *s = ss->srv;
	struct srv_session *big = NULL;

	for (struct srv_session *o = s->sessions; o; o = o->next)
		if (o != ss && !o->dead && (!big || o->dec.charged > big->dec.charged))
			big = o;
	if (!big || big->dec.charged <= ss->dec.charged) {
		bp_warn_peer(ss->peer, "%s: control message would pass the buffer "
			     "budget (%zu of %zu bytes held for all peers): dropped",
			     ss->peer, (size_t)s->budget->used, s->budget->limit);
		srv_session_end(ss, NULL);
		return false;
	}
	bp_warn_peer(big->peer, "%s: buffer budget full (%zu of %zu bytes held for "
		     "all peers): its half-sent %zu bytes dropped to make room",
		     big->peer, (size_t)s->budget->used, s->budget->limit, big->dec.charged);
	srv_session_close(big, NULL);
	return true;
}

/* Feed what arrived to the decoder; act on every complete item. */
static void decode_input(struct srv_session *ss)
{
	size_t off = 0;

	while (off < ss->inlen && !ss->dead) {
		long used = bp_proto_feed(&ss->dec, ss->inbuf + off, ss->inlen - off);
		char why[128];

		if (used == -ENOBUFS) {
			if (!budget_room(ss))
				break;
			continue;
		}
		if (used == -EMSGSIZE) {
			snprintf(why, sizeof(why), "control message of %u bytes, over the %zu bytes "
				 "this step takes: dropped", bp_get_be32(ss->dec.lenbuf),
				 ss->dec.max ? ss->dec.max : (size_t)BP_PROTO_MAX_JSON);
			srv_session_end(ss, why);
			break;
		}
		if (used < 0) {
			srv_session_end(ss, "garbled control message: dropped");
			break;
		}
		off += (size_t)used;
		if (!ss->dec.done)
			continue;
		on_item(ss);
		bp_proto_decoder_free(&ss->dec);
		expect_next(ss);
	}
	memmove(ss->inbuf, ss->inbuf + off, ss->inlen - off);
	ss->inlen -= off;
}

static void session_readable(struct bp_flow *f, uint32_t events)
{
	struct srv_session *ss = f->data;
	ssize_t n = recv(f->fd, ss->inbuf + ss->inlen, sizeof(ss->inbuf) - ss->inlen,
			 MSG_DONTWAIT);

	(void)events;
	if (n == 0 && ss->state == SS_DONE) {
		ss->completed = true;
		ss->half->log(ss); /* the results went out; a client may close without IPERF_DONE */
		srv_session_end(ss, NULL);
	} else if (n == 0) {
		srv_session_end(ss, "client closed the control connection: test abandoned");
	}
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		srv_session_end(ss, "control connection reset: test abandoned");
	if (n > 0) {
		/*
		 * Bytes alone do not re-arm the idle timer: each set-up step (the parameters,
		 * the results, IPERF_DONE) must be whole within the timeout from its start, so a
		 * client trickling a byte a second (slowloris) is dropped like a silent one.
		 */
		ss->last_activity_ns = bp_now_ns();
		ss->inlen += (size_t)n;
		decode_input(ss);
	}
	srv_session_reap(ss);
}

/*
 * A control connection that sent a cookie but not yet its parameters (or its answer to the
 * key challenge) holds a descriptor and a session but no slot: --max-clients and
 * --max-per-client count admitted tests. Such connections are what a flood of valid-looking
 * cookies makes, so they are bounded as the connections before their cookie are
 * (--max-pending in all, --max-pending-per-addr from one host), the oldest shed. A real
 * client is in set-up for about a round trip, so the oldest is almost surely not one.
 */
static bool in_setup(const struct srv_session *ss)
{
	return !ss->admitted && !ss->dead && (ss->state == SS_PARAMS || ss->state == SS_AUTH);
}

uint64_t srv_session_oldest_setup_ns(const struct srv *s)
{
	uint64_t oldest = UINT64_MAX;

	for (const struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (in_setup(ss) && ss->born_ns < oldest)
			oldest = ss->born_ns;
	return oldest;
}

bool srv_session_shed_setup(struct srv *s, const struct bp_addr *host, const char *why)
{
	struct srv_session *oldest = NULL;
	int here = 0, all = 0;
	int max = s->o->max_pending > 0 ? s->o->max_pending : BP_SERVER_MAX_PENDING;
	int per_addr = s->o->max_pending_per_addr > 0 ? s->o->max_pending_per_addr :
		       BP_SERVER_MAX_PENDING_PER_ADDR;
	bool same;

	/* The list is newest first: the last match is the oldest. */
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next) {
		if (!in_setup(ss))
			continue;
		all++;
		same = host && bp_addr_same_host(&ss->ctl_addr, host);
		here += same;
		if (!host || same)
			oldest = ss;
	}
	if (!oldest)
		return false;
	if (host && here < per_addr) {
		if (all < max)
			return false;
		/* the bound in all: the oldest of everyone's */
		for (struct srv_session *ss = s->sessions; ss; ss = ss->next)
			if (in_setup(ss))
				oldest = ss;
	}
	bp_warn_peer(oldest->peer, "%s: in set-up with %d others (%d from this "
		     "address; --max-pending %d, --max-pending-per-addr %d): shed (%s)",
		     oldest->peer, all - 1, here, max, per_addr, why);
	s->door.shed++;
	oldest->refusal = SRV_REFUSAL_SHED;
	srv_session_close(oldest, NULL);
	return true;
}

struct srv_session *srv_session_headless(struct srv *s, const struct bp_addr *addr,
					 const char *peer, struct srv_iperf2 *i2)
{
	struct srv_session *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return NULL;
	ss->srv = s;
	ss->born_ns = bp_now_ns();
	snprintf(ss->peer, sizeof(ss->peer), "%s", peer);
	ss->ctl_addr = *addr;
	ss->flow.fd = -1;
	ss->iperf2 = i2;
	ss->idle = (struct bp_timer){ .fn = idle_expired, .data = ss };
	ss->tick = (struct bp_timer){ .fn = tick, .data = ss };
	ss->state = SS_AUTH;
	expect_next(ss);
	ss->next = s->sessions;
	s->sessions = ss;
	return ss;
}

void srv_session_begin(struct srv_session *ss)
{
	ss->params_read = true;
	begin_test(ss);
}

void srv_session_new(struct srv *s, int fd, const char *peer, const char cookie[BP_COOKIE_LEN])
{
	struct srv_session *ss = calloc(1, sizeof(*ss));

	if (!ss) {
		close(fd);
		return;
	}
	ss->srv = s;
	ss->born_ns = bp_now_ns();
	snprintf(ss->peer, sizeof(ss->peer), "%s", peer);
	/* Where this test's UDP data may go; unknown (len 0) matches no hello (server_udp.c). */
	ss->ctl_addr.len = sizeof(ss->ctl_addr.ss);
	if (getpeername(fd, (struct sockaddr *)&ss->ctl_addr.ss, &ss->ctl_addr.len))
		ss->ctl_addr.len = 0;
	if (ss->ctl_addr.len)
		srv_session_shed_setup(s, &ss->ctl_addr, "bound");
	memcpy(ss->cookie, cookie, BP_COOKIE_LEN);
	ss->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = session_readable,
				     .data = ss };
	ss->idle = (struct bp_timer){ .fn = idle_expired, .data = ss };
	ss->tick = (struct bp_timer){ .fn = tick, .data = ss };
	ss->state = SS_PARAMS;
	expect_next(ss);
	/* Single-byte states must not wait for a delayed ACK (see stream_client.c). */
	bp_sock_set_nodelay(fd, ss->why, sizeof(ss->why));
	ss->why[0] = '\0';
	if (bp_loop_add(s->loop, &ss->flow)) {
		close(fd);
		free(ss);
		return;
	}
	ss->next = s->sessions;
	s->sessions = ss;
	touch(ss);
	if (bp_proto_send_state(fd, BP_PARAM_EXCHANGE, send_deadline()))
		srv_session_end(ss, "control connection lost at the start");
	srv_session_reap(ss);
}
