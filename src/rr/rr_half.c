/*
 * rr's half on the server: each flow the client opens (a TCP connection, or a UDP socket
 * with --udp) gets a responder on the stream pool that answers every request; a stock
 * iperf 2 client's bounceback test (np.rr_bounceback, server/server_iperf2.c) one that
 * sends each request back with this host's times in it (rr/bb_responder.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "core/log.h"
#include "core/log_limit.h"
#include "io/sock.h"
#include "proto/iperf3_error.h"
#include "rr/bb_responder.h"
#include "rr/rr_half.h"
#include "rr/rr_responder.h"
#include "server/server_internal.h"

/* The responders of the flows, by stream index (freed by the pool at release). */
struct rr_state {
	struct bp_rr_responder *responders[BP_NET_MAX_STREAMS];
	struct bp_bb_responder *bouncers[BP_NET_MAX_STREAMS];
};

/* Flow i's answers and request bytes so far, whichever responder it has. */
static uint64_t served(const struct srv_session *ss, int i)
{
	const struct rr_state *st = ss->half_state;

	return st->bouncers[i] ? bp_bb_responder_served(st->bouncers[i]) :
				 bp_rr_responder_served(st->responders[i]);
}

static uint64_t request_bytes(const struct srv_session *ss, int i)
{
	const struct rr_state *st = ss->half_state;

	return st->bouncers[i] ? bp_bb_responder_bytes(st->bouncers[i]) :
				 bp_rr_responder_bytes(st->responders[i]);
}

/* iperf 2's bounceback: the connection's first request began at the door (ss->first). */
static int add_bouncer(struct srv_session *ss, int fd, int id, char *err, size_t errlen)
{
	struct bp_bb_responder *b = bp_bb_responder_new((size_t)ss->np.rr_request, ss->first,
							ss->first_len);

	bp_sock_set_nodelay(fd, err, errlen);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return BP_IE_INITTEST;
	}
	if (bp_stream_side_add_custom(&ss->side, fd, &bp_bb_responder_ops, b, false, id, NULL,
				      err, errlen))
		return BP_IE_STREAMACCEPT;
	((struct rr_state *)ss->half_state)->bouncers[ss->got_streams] = b;
	return BP_IE_NONE;
}

/* 0, or iperf3's error number with the reason in err (fd closed). */
static int add_responder(struct srv_session *ss, int fd, int id, bool sender, char *err,
			 size_t errlen)
{
	struct bp_rr_responder_cfg cfg = {
		.req_len = (size_t)ss->np.rr_request, .resp_len = (size_t)ss->np.rr_response,
		.udp = ss->np.rr_udp, .sctp = ss->np.sctp,
	};
	struct bp_rr_responder *r;

	(void)sender; /* a responder both reads and writes */
	if (ss->np.rr_bounceback)
		return add_bouncer(ss, fd, id, err, errlen);
	r = bp_rr_responder_new(&cfg);
	/* Small answers must not wait for Nagle and the peer's delayed ACK (40 ms). */
	if (!cfg.udp && ss->np.sctp)
		bp_sctp_set_nodelay(fd, err, errlen);
	else if (!cfg.udp)
		bp_sock_set_nodelay(fd, err, errlen);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return BP_IE_INITTEST;
	}
	if (bp_stream_side_add_custom(&ss->side, fd, &bp_rr_responder_ops, r, false, id, NULL, err,
				   errlen))
		return BP_IE_STREAMACCEPT;
	((struct rr_state *)ss->half_state)->responders[ss->got_streams] = r;
	return BP_IE_NONE;
}

/* Transactions answered so far. */
static uint64_t progress(const struct srv_session *ss)
{
	uint64_t n = 0;

	for (int i = 0; i < ss->got_streams; i++)
		n += served(ss, i);
	return n;
}

/*
 * What the server answered, as iperf3-shaped stream results (packets are transactions,
 * bytes the requests read), so the client can set them beside its own.
 */
static void finish(struct srv_session *ss)
{
	struct bp_net_results *r = ss->side.res;

	for (int i = 0; i < r->nstreams && i < ss->got_streams; i++) {
		r->streams[i].packets = served(ss, i);
		r->streams[i].bytes = request_bytes(ss, i);
	}
}

/* Requests read and answers written (each of the asked response size). */
static void moved(const struct srv_session *ss, uint64_t *received, uint64_t *sent)
{
	const struct bp_net_results *r = ss->side.res;
	uint64_t answered = 0;

	*received = 0;
	if (ss->state >= SS_RESULTS) {
		for (int i = 0; i < r->nstreams; i++) {
			*received += r->streams[i].bytes;
			answered += r->streams[i].packets;
		}
	} else {
		for (int i = 0; i < ss->got_streams; i++) {
			*received += request_bytes(ss, i);
			answered += served(ss, i);
		}
	}
	*sent = answered * (uint64_t)ss->np.rr_response;
}

/*
 * The span the test really ran, counted part only (after any -O omit): a client stopped
 * by Ctrl-C ends it early, and the log must not say the requested -t.
 */
static double measured_seconds(const struct srv_session *ss)
{
	const struct bp_stream_side *sd = &ss->side;
	uint64_t from = sd->omit_done ? sd->counted_from_ns : sd->start_ns;

	return sd->stop_ns > from ? (double)(sd->stop_ns - from) / 1e9 : 0;
}

void srv_rr_log(const struct srv_session *ss)
{
	const struct bp_net_results *r = ss->side.res;
	uint64_t answered = 0;

	for (int i = 0; i < r->nstreams; i++)
		answered += r->streams[i].packets;
	bp_info_peer(ss->peer, "%s: %s%s, %d flow%s, %.1f s: answered %" PRIu64 " transactions",
		ss->peer, ss->np.rr_bounceback ? "iperf 2 bounceback" : ss->np.test,
		ss->np.rr_udp ? " udp" : "", ss->np.parallel,
		ss->np.parallel == 1 ? "" : "s", measured_seconds(ss), answered);
}

/* Flows greet over TCP or, with --udp, over UDP: the same responder either way. */
const struct srv_half srv_half_rr = {
	.state_size = sizeof(struct rr_state),
	.add_tcp = add_responder,
	.add_udp = add_responder,
	.progress = progress,
	.finish = finish,
	.moved = moved,
	.log = srv_rr_log,
};
