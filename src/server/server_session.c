/*
 * One test on the server: the control connection's state machine from PARAM_EXCHANGE to
 * IPERF_DONE. Every step reacts to what arrived and answers with a few bytes that fit in
 * any socket buffer, so no step waits on a client.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/units.h"
#include "proto/iperf3_error.h"
#include "proto/iperf3_text.h"
#include "rr/rr_responder.h"
#include "server/server_internal.h"
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

void srv_session_close(struct srv_session *ss, const char *why)
{
	struct srv *s = ss->srv;

	if (why)
		bp_info("%s: %s", ss->peer, why);
	bp_timer_cancel(s->loop, &ss->idle);
	bp_timer_cancel(s->loop, &ss->tick);
	srv_crr_close_all(ss);
	if (ss->side_ready)
		bp_stream_side_free(&ss->side);
	bp_loop_del(&ss->flow);
	close(ss->flow.fd);
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

/*
 * Inside a handler the session is only marked dead; the entry point that ran the handler
 * closes it on the way out (reap), so no code touches a session after it was freed.
 */
static void kill_session(struct srv_session *ss, const char *why)
{
	if (ss->dead)
		return;
	ss->dead = true;
	snprintf(ss->why, sizeof(ss->why), "%s", why ? why : "");
}

/* True when the session was closed and freed. */
static bool reap(struct srv_session *ss)
{
	if (!ss->dead)
		return false;
	srv_session_close(ss, ss->why[0] ? ss->why : NULL);
	return true;
}

/*
 * Refuse or abort with a reason the client prints: SERVER_ERROR, then the reason in the
 * client's dialect (code: iperf3's error number for a stock iperf3, which cannot read our
 * line; the log keeps the line).
 */
static void refuse(struct srv_session *ss, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void refuse(struct srv_session *ss, int code, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	bp_iperf3_send_refusal(ss->flow.fd, ss->np.bp_version, code, 0, why, send_deadline());
	kill_session(ss, why);
}

static void idle_expired(struct bp_timer *t, uint64_t now_ns)
{
	struct srv_session *ss = t->data;
	char msg[128], d[32];

	(void)now_ns;
	snprintf(msg, sizeof(msg), "silent for %s in %s: dropped (idle timeout)",
		 bp_format_duration(d, sizeof(d), (double)ss->srv->o->idle_timeout_ns),
		 ss->state == SS_PARAMS ? "the parameter exchange" :
		 ss->state == SS_STREAMS ? "opening streams" : "the results exchange");
	kill_session(ss, msg);
	reap(ss);
}

static void touch(struct srv_session *ss)
{
	ss->last_activity_ns = bp_now_ns();
	if (ss->state != SS_RUNNING)
		bp_timer_arm(ss->srv->loop, &ss->idle,
			     ss->last_activity_ns + ss->srv->o->idle_timeout_ns);
}

/* Limits are checked before anything is allocated for the test. */
static bool admit(struct srv_session *ss)
{
	const struct bp_server_opts *o = ss->srv->o;
	char a[32], b[32];

	if (strcmp(ss->np.test, "tcp") && strcmp(ss->np.test, "udp") &&
	    !bp_net_params_rr(&ss->np)) {
		refuse(ss, BP_IE_PROTOCOL, "test '%s' is not served here (tcp, udp, rr and crr are)",
		       ss->np.test);
		return false;
	}
	if (o->max_clients && ss->srv->nsessions >= o->max_clients) {
		/* A stock iperf3 knows "busy" as ACCESS_DENIED and prints its own line. */
		if (ss->np.bp_version == 0) {
			bp_proto_send_state(ss->flow.fd, BP_ACCESS_DENIED, send_deadline());
			kill_session(ss, "server busy (--max-clients): iperf3 client turned away");
			return false;
		}
		refuse(ss, BP_IE_ACCESSDENIED,
		       "server busy: %d tests running (--max-clients %d); try again later",
		       ss->srv->nsessions, o->max_clients);
		return false;
	}
	if (o->max_duration_ns && ss->np.omit_ns + ss->np.time_ns > o->max_duration_ns) {
		refuse(ss, BP_IE_DURATION, "test of %s exceeds the server's --max-duration %s",
		       bp_format_duration(a, sizeof(a), (double)(ss->np.omit_ns + ss->np.time_ns)),
		       bp_format_duration(b, sizeof(b), (double)o->max_duration_ns));
		return false;
	}
	if (o->max_rate > 0 && ss->np.bandwidth > o->max_rate) {
		refuse(ss, BP_IE_TOTALRATE, "rate %s exceeds the server's --max-rate %s",
		       bp_format_rate(a, sizeof(a), ss->np.bandwidth),
		       bp_format_rate(b, sizeof(b), o->max_rate));
		return false;
	}
	ss->admitted = true;
	ss->srv->nsessions++;
	return true;
}

static void start_test(struct srv_session *ss);

static void on_params(struct srv_session *ss, json_t *msg)
{
	char err[256];
	int ie;

	if (bp_net_params_from_json(msg, &ss->np, &ie, err, sizeof(err))) {
		refuse(ss, ie, "bad parameters: %s", err);
		return;
	}
	/* A stock iperf3 sends no interval; its server output (-- get-server-output) has 1 s. */
	if (ss->np.bp_version == 0 && !ss->np.interval_ns)
		ss->np.interval_ns = BP_NS_PER_SEC;
	if (!admit(ss))
		return;
	if (bp_stream_side_init(&ss->side, ss->srv->pool, ss->np.omit_ns)) {
		refuse(ss, BP_IE_INITTEST, "server out of memory");
		return;
	}
	ss->side_ready = true;
	ss->expected_streams = bp_net_params_up_streams(&ss->np) +
			       bp_net_params_down_streams(&ss->np);
	ss->state = SS_STREAMS;
	if (bp_proto_send_state(ss->flow.fd, BP_CREATE_STREAMS, send_deadline()))
		kill_session(ss, "control connection lost while creating streams");
	else if (ss->expected_streams == 0)
		start_test(ss);  /* crr: its connections come while the test runs */
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



/*
 * --max-rate on what the client sends (the server paces its own sending in the kernel):
 * measured over each second, with 10 % for TCP's bursts; a test above it is stopped with
 * the reason.
 */
static void check_rate(struct srv_session *ss, uint64_t now)
{
	uint64_t bytes = bp_stream_side_total_bytes(&ss->side, true);
	double limit = ss->srv->o->max_rate, rate;
	char a[32], b[32];

	if (limit <= 0 || now - ss->rate_mark_ns < BP_NS_PER_SEC || bp_net_params_rr(&ss->np))
		return;
	rate = (double)(bytes - ss->rate_mark_bytes) * 8 * 1e9 / (double)(now - ss->rate_mark_ns);
	ss->rate_mark_ns = now;
	ss->rate_mark_bytes = bytes;
	if (rate > limit * 1.1)
		refuse(ss, BP_IE_TOTALRATE, "test ran at %s, above the server's --max-rate %s: stopped",
		       bp_format_rate(a, sizeof(a), rate), bp_format_rate(b, sizeof(b), limit));
}

/* What shows the test is alive: bytes moved, or transactions answered (rr, crr). */
static uint64_t progress(const struct srv_session *ss)
{
	uint64_t n = 0;

	if (!strcmp(ss->np.test, "crr"))
		return srv_crr_served(ss) + ss->crr_conns;
	if (!bp_net_params_rr(&ss->np))
		return bp_stream_side_total_bytes(&ss->side, false);
	for (int i = 0; i < ss->got_streams; i++)
		n += bp_rr_responder_served(ss->responders[i]);
	return n;
}

/* Marks, and the watchdogs: data that stopped moving, a test that never ends, --max-rate. */
static void tick(struct bp_timer *t, uint64_t now)
{
	struct srv_session *ss = t->data;
	const struct bp_stream_side *sd = &ss->side;
	uint64_t idle = ss->srv->o->idle_timeout_ns;
	uint64_t bytes = progress(ss);
	bool mark = ss->np.interval_ns &&
		    (now - sd->start_ns) / ss->np.interval_ns >
		    (sd->last_mark_ns - sd->start_ns) / ss->np.interval_ns;

	if (mark || (!sd->omit_done && now - sd->start_ns >= ss->np.omit_ns))
		bp_stream_side_mark(&ss->side, now);
	if (bytes != ss->last_total_bytes) {
		ss->last_total_bytes = bytes;
		ss->last_progress_ns = now;
	}
	check_rate(ss, now);
	if (now - ss->last_progress_ns > idle)
		kill_session(ss, "no data moved within the idle timeout: client gone, dropped");
	else if (now - sd->start_ns > ss->np.omit_ns + ss->np.time_ns + END_GRACE_NS + idle)
		kill_session(ss, "client never ended its test: dropped");
	if (!reap(ss))
		bp_timer_arm(ss->srv->loop, &ss->tick, next_tick(ss, now));
}

/* CPU time of the calling thread (the server's loop), ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void start_test(struct srv_session *ss)
{
	uint64_t now;

	if (bp_proto_send_state(ss->flow.fd, BP_TEST_START, send_deadline()) ||
	    bp_proto_send_state(ss->flow.fd, BP_TEST_RUNNING, send_deadline())) {
		kill_session(ss, "control connection lost at the start");
		return;
	}
	bp_timer_cancel(ss->srv->loop, &ss->idle);
	ss->state = SS_RUNNING;
	now = bp_now_ns();
	bp_stream_side_start(&ss->side, now);
	ss->loop_cpu0_ns = thread_cpu_ns();
	ss->last_progress_ns = ss->rate_mark_ns = now;
	bp_timer_arm(ss->srv->loop, &ss->tick, next_tick(ss, now));
}

/*
 * The pace of a stream this server sends on, bit/s (0: as fast as it goes): TCP -b and
 * --fq-rate are per stream in iperf3; --max-rate gives each stream its share.
 */
static double send_pace(const struct srv_session *ss)
{
	double pace = bp_net_params_udp(&ss->np) ? 0 : ss->np.bandwidth;
	double share = ss->srv->o->max_rate / bp_net_params_down_streams(&ss->np);

	if (ss->np.fq_rate > 0 && (pace <= 0 || ss->np.fq_rate < pace))
		pace = ss->np.fq_rate;
	if (ss->srv->o->max_rate > 0 && (pace <= 0 || share < pace))
		pace = share;
	return pace;
}

/*
 * What the client asked for on every data socket. A failure is refused with iperf3's
 * error number for the option (*ie) and closes fd.
 */
static int stream_options(struct srv_session *ss, int fd, bool sender, int *ie, char *err,
			  size_t errlen)
{
	const struct bp_net_params *np = &ss->np;
	bool udp = bp_net_params_udp(np);
	int rc = 0;

	if (np->window && !udp && (rc = bp_sock_set_buffers(fd, np->window, err, errlen)))
		*ie = BP_IE_STREAMACCEPT;
	else if (sender && np->congestion[0] && !udp &&
		 (rc = bp_sock_set_congestion(fd, np->congestion, err, errlen)))
		*ie = BP_IE_SETCONGESTION;
	else if (np->nodelay && !udp && (rc = bp_sock_set_nodelay(fd, err, errlen)))
		*ie = BP_IE_STREAMACCEPT;
	else if (np->tos && (rc = bp_sock_set_tos(fd, np->tos, err, errlen)))
		*ie = BP_IE_SETTOS;
	else if (np->dont_fragment && udp && (rc = bp_sock_set_dont_fragment(fd, err, errlen)))
		*ie = BP_IE_SETDONTFRAGMENT;
	else if (sender && send_pace(ss) > 0 &&
		 (rc = bp_sock_set_pacing(fd, send_pace(ss), err, errlen)))
		*ie = BP_IE_SETPACING;
	if (rc)
		close(fd);
	return rc;
}

/*
 * rr: a responder answers the client's requests on the stream pool. 0, or iperf3's error
 * number with the reason in err (fd closed).
 */
static int add_responder(struct srv_session *ss, int fd, int id, char *err, size_t errlen)
{
	struct bp_rr_responder_cfg cfg = {
		.req_len = (size_t)ss->np.rr_request, .resp_len = (size_t)ss->np.rr_response,
		.udp = ss->np.rr_udp,
	};
	struct bp_rr_responder *r = bp_rr_responder_new(&cfg);

	/* Small answers must not wait for Nagle and the peer's delayed ACK (40 ms). */
	if (!cfg.udp)
		bp_sock_set_nodelay(fd, err, errlen);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return BP_IE_INITTEST;
	}
	if (bp_stream_side_add_custom(&ss->side, fd, &bp_rr_responder_ops, r, false, id, NULL, err,
				   errlen))
		return BP_IE_STREAMACCEPT;
	ss->responders[ss->got_streams] = r;
	return BP_IE_NONE;
}

bool srv_session_take_stream(struct srv_session *ss, int fd)
{
	struct bp_stream_opts so = { .write_len = (size_t)ss->np.len, .zerocopy = ss->np.zerocopy,
				     .paced = send_pace(ss) > 0 };
	int index = ss->got_streams, id = index == 0 ? 1 : index + 2;
	/* The client opens its sending streams first: the server receives on those. */
	bool sender = index >= bp_net_params_up_streams(&ss->np);
	char err[256];
	int ie = BP_IE_NONE;

	if (!strcmp(ss->np.test, "crr")) {
		if (ss->state != SS_RUNNING)
			return false;
		srv_crr_take(ss, fd);
		return true;
	}
	if (ss->state != SS_STREAMS || ss->got_streams >= ss->expected_streams ||
	    bp_net_params_datagram(&ss->np))
		return false;
	if (bp_net_params_rr(&ss->np))
		ie = add_responder(ss, fd, id, err, sizeof(err));
	else if (!stream_options(ss, fd, sender, &ie, err, sizeof(err)) &&
		 bp_stream_side_add(&ss->side, fd, sender, id, &so, err, sizeof(err)))
		ie = BP_IE_STREAMACCEPT;
	if (ie) {
		refuse(ss, ie, "data connection %d: %s", id, err);
		reap(ss);
		return true; /* fd was closed by the failing step */
	}
	ss->got_streams++;
	touch(ss);
	if (ss->got_streams == ss->expected_streams)
		start_test(ss);
	reap(ss);
	return true;
}

struct srv_session *srv_session_waiting_udp(struct srv *s)
{
	struct srv_session *found = NULL;

	/* The list is newest first: the last match is the oldest session. */
	for (struct srv_session *ss = s->sessions; ss; ss = ss->next)
		if (ss->state == SS_STREAMS && bp_net_params_datagram(&ss->np))
			found = ss;
	return found;
}

/* The connected peer of a UDP socket is on loopback: GSO is safe there. */
static bool peer_is_loopback(int fd)
{
	struct bp_addr a = { .len = sizeof(a.ss) };

	return getpeername(fd, (struct sockaddr *)&a.ss, &a.len) == 0 && bp_addr_is_loopback(&a);
}

void srv_session_take_udp(struct srv_session *ss, int fd, const char *peer)
{
	int index = ss->got_streams, id = index == 0 ? 1 : index + 2;
	struct bp_udp_stream_cfg cfg = {
		.sender = index >= bp_net_params_up_streams(&ss->np),
		.payload_len = (size_t)ss->np.len, .seq64 = ss->np.udp64,
		.gso = peer_is_loopback(fd),
	};
	char err[256];
	int ie = BP_IE_NONE;

	for (int i = 0; i < ss->got_streams; i++)
		if (!strcmp(ss->udp_peers[i], peer)) {
			close(fd);
			return;
		}
	if (ss->state != SS_STREAMS || ss->got_streams >= ss->expected_streams) {
		close(fd);
		return;
	}
	/* -b is per stream, as in iperf3; --max-rate caps what this server sends. */
	cfg.rate_bps = ss->np.bandwidth;
	if (cfg.sender && ss->srv->o->max_rate > 0 &&
	    (cfg.rate_bps <= 0 || cfg.rate_bps > ss->srv->o->max_rate))
		cfg.rate_bps = ss->srv->o->max_rate;
	if (bp_net_params_rr(&ss->np))
		ie = add_responder(ss, fd, id, err, sizeof(err));
	else if (!stream_options(ss, fd, cfg.sender, &ie, err, sizeof(err)) &&
		 bp_stream_side_add_udp(&ss->side, fd, &cfg, id, err, sizeof(err)))
		ie = BP_IE_STREAMACCEPT;
	if (ie) {
		refuse(ss, ie, "udp stream %d: %s", id, err);
		reap(ss);
		return;
	}
	snprintf(ss->udp_peers[index], sizeof(ss->udp_peers[index]), "%s", peer);
	ss->got_streams++;
	touch(ss);
	if (ss->got_streams == ss->expected_streams)
		start_test(ss);
	reap(ss);
}

/*
 * rr and crr: what the server answered, as iperf3-shaped stream results (packets are
 * transactions, bytes the requests read), so the client can set them beside its own.
 */
static void rr_results(struct srv_session *ss)
{
	struct bp_net_results *r = ss->side.res;

	if (!strcmp(ss->np.test, "crr")) {
		srv_crr_close_all(ss);
		r->nstreams = 1;
		r->streams[0] = (struct bp_net_stream_result){
			.id = 1, .bytes = ss->crr_bytes, .packets = ss->crr_served,
			.retransmits = -1, .end_s = (double)(ss->side.stop_ns - ss->side.start_ns) / 1e9,
		};
		/* crr's work is done on the server's loop thread: its share of a core. */
		if (ss->side.stop_ns > ss->side.start_ns)
			r->busy_max = (double)(thread_cpu_ns() - ss->loop_cpu0_ns) /
				      (double)(ss->side.stop_ns - ss->side.start_ns);
		return;
	}
	for (int i = 0; i < r->nstreams && i < ss->got_streams; i++) {
		r->streams[i].packets = bp_rr_responder_served(ss->responders[i]);
		r->streams[i].bytes = bp_rr_responder_bytes(ss->responders[i]);
	}
}

static void end_test(struct srv_session *ss)
{
	bp_timer_cancel(ss->srv->loop, &ss->tick);
	bp_stream_side_stop(&ss->side, bp_now_ns());
	if (bp_net_params_rr(&ss->np))
		rr_results(ss);
	/*
	 * Close the data connections now, as iperf3's server does: a stock iperf3 client
	 * receiving a -R test keeps reading its streams after TEST_END and only then handles
	 * the control connection; the FIN ends those reads. The totals are already in res.
	 */
	bp_stream_side_release(&ss->side);
	ss->state = SS_RESULTS;
	touch(ss);
	if (bp_proto_send_state(ss->flow.fd, BP_EXCHANGE_RESULTS, send_deadline()))
		kill_session(ss, "control connection lost at the end");
}

/* What one direction moved, for the log: "received 112 MiB (94.1 Mbit/s)". */
static void log_part(char *buf, size_t len, const char *verb, const struct bp_net_results *r,
		     bool sender)
{
	uint64_t bytes = bp_net_results_bytes(r, sender);
	double secs = bp_net_results_seconds(r, sender);
	char a[32], b[32];

	snprintf(buf, len, "%s %s (%s)", verb, bp_format_bytes(a, sizeof(a), (double)bytes),
		 bp_format_rate(b, sizeof(b), secs > 0 ? (double)bytes * 8 / secs : 0));
}

/* One line per test, as a person reads it in a log. */
static void log_test(struct srv_session *ss)
{
	const struct bp_net_results *r = ss->side.res;
	bool up = bp_net_params_up_streams(&ss->np), down = bp_net_params_down_streams(&ss->np);
	char got[96] = "", sent[96] = "";
	uint64_t answered = 0;

	if (bp_net_params_rr(&ss->np)) {
		for (int i = 0; i < r->nstreams; i++)
			answered += r->streams[i].packets;
		bp_info("%s: %s%s, %d flow%s, %.1f s: answered %" PRIu64 " transactions", ss->peer,
			ss->np.test, ss->np.rr_udp ? " udp" : "", ss->np.parallel,
			ss->np.parallel == 1 ? "" : "s", (double)ss->np.time_ns / 1e9, answered);
		return;
	}
	if (up)
		log_part(got, sizeof(got), "received", r, false);
	if (down)
		log_part(sent, sizeof(sent), "sent", r, true);
	bp_info("%s: %s %s, %d stream%s, %.1f s: %s%s%s", ss->peer, ss->np.test,
		ss->np.bidir ? "bidir" : ss->np.reverse ? "reverse" : "upload", ss->np.parallel,
		ss->np.parallel == 1 ? "" : "s", (double)ss->np.time_ns / 1e9, got,
		up && down ? ", " : "", sent);
}

static void on_client_results(struct srv_session *ss)
{
	json_t *mine = bp_net_results_to_json(ss->side.res);
	int rc;

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
		kill_session(ss, "control connection lost sending results");
		return;
	}
	ss->state = SS_DONE;
	touch(ss);
}

/* What the decoder expects next in each state. */
static enum bp_proto_expect expectation(enum srv_state st)
{
	return st == SS_PARAMS || st == SS_RESULTS ? BP_EXPECT_JSON : BP_EXPECT_STATE;
}

static void on_item(struct srv_session *ss)
{
	int st = ss->dec.state;

	switch (ss->state) {
	case SS_PARAMS:
		on_params(ss, ss->dec.json);
		break;
	case SS_RESULTS:
		on_client_results(ss);
		break;
	case SS_RUNNING:
		if (st == BP_TEST_END)
			end_test(ss);
		else
			kill_session(ss, "client ended the test early");
		break;
	case SS_DONE:
		if (st == BP_IPERF_DONE)
			log_test(ss);
		kill_session(ss, st == BP_IPERF_DONE ? NULL : "client ended after the results");
		break;
	case SS_STREAMS:
		kill_session(ss, "client gave up while streams were being opened");
		break;
	}
}

/* Feed what arrived to the decoder; act on every complete item. */
static void decode_input(struct srv_session *ss)
{
	size_t off = 0;

	while (off < ss->inlen && !ss->dead) {
		long used = bp_proto_feed(&ss->dec, ss->inbuf + off, ss->inlen - off);

		if (used < 0) {
			kill_session(ss, used == -EMSGSIZE ? "control message too large: dropped" :
				     "garbled control message: dropped");
			break;
		}
		off += (size_t)used;
		if (!ss->dec.done)
			continue;
		on_item(ss);
		bp_proto_decoder_free(&ss->dec);
		bp_proto_decoder_init(&ss->dec, expectation(ss->state));
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
		log_test(ss); /* the results went out; a client may close without IPERF_DONE */
		kill_session(ss, NULL);
	} else if (n == 0) {
		kill_session(ss, "client closed the control connection: test abandoned");
	}
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		kill_session(ss, "control connection reset: test abandoned");
	if (n > 0) {
		ss->inlen += (size_t)n;
		touch(ss);
		decode_input(ss);
	}
	reap(ss);
}

void srv_session_new(struct srv *s, int fd, const char *peer, const char cookie[BP_COOKIE_LEN])
{
	struct srv_session *ss = calloc(1, sizeof(*ss));

	if (!ss) {
		close(fd);
		return;
	}
	ss->srv = s;
	snprintf(ss->peer, sizeof(ss->peer), "%s", peer);
	memcpy(ss->cookie, cookie, BP_COOKIE_LEN);
	ss->flow = (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = session_readable,
				     .data = ss };
	ss->idle = (struct bp_timer){ .fn = idle_expired, .data = ss };
	ss->tick = (struct bp_timer){ .fn = tick, .data = ss };
	bp_proto_decoder_init(&ss->dec, BP_EXPECT_JSON);
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
	ss->state = SS_PARAMS;
	touch(ss);
	if (bp_proto_send_state(fd, BP_PARAM_EXCHANGE, send_deadline()))
		kill_session(ss, "control connection lost at the start");
	reap(ss);
}
