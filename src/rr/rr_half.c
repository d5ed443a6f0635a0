/*
 * rr's half on the server: each flow the client opens (a TCP connection, or a UDP socket
 * with --udp) gets a responder on the stream pool that answers every request.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "core/log.h"
#include "core/log_limit.h"
#include "io/sock.h"
#include "proto/iperf3_error.h"
#include "rr/rr_half.h"
#include "rr/rr_responder.h"
#include "server/server_internal.h"

/* The responders of the flows, by stream index (freed by the pool at release). */
struct rr_state {
	struct bp_rr_responder *responders[BP_NET_MAX_STREAMS];
};

static struct bp_rr_responder *responder(const struct srv_session *ss, int i)
{
	const struct rr_state *st = ss->half_state;

	return st->responders[i];
}

/* 0, or iperf3's error number with the reason in err (fd closed). */
static int add_responder(struct srv_session *ss, int fd, int id, bool sender, char *err,
			 size_t errlen)
{
	struct bp_rr_responder_cfg cfg = {
		.req_len = (size_t)ss->np.rr_request, .resp_len = (size_t)ss->np.rr_response,
		.udp = ss->np.rr_udp, .sctp = ss->np.sctp,
	};
	struct bp_rr_responder *r = bp_rr_responder_new(&cfg);

	(void)sender; /* a responder both reads and writes */
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
		n += bp_rr_responder_served(responder(ss, i));
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
		r->streams[i].packets = bp_rr_responder_served(responder(ss, i));
		r->streams[i].bytes = bp_rr_responder_bytes(responder(ss, i));
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
			*received += bp_rr_responder_bytes(responder(ss, i));
			answered += bp_rr_responder_served(responder(ss, i));
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
		ss->peer, ss->np.test, ss->np.rr_udp ? " udp" : "", ss->np.parallel,
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
