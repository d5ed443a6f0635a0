/*
 * The stream tests' half on the server (tcp and udp, and what runs them: rfc2544 and
 * latency's load): data streams on the stream pool, each with the socket options the
 * client asked for, and --max-rate on what the client sends.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/log_limit.h"
#include "core/units.h"
#include "io/sock.h"
#include "io/udp_path.h"
#include "proto/iperf3_error.h"
#include "server/server_internal.h"
#include "server/server_iperf2.h"
#include "stream/stream_half.h"

/* --max-rate's last second: its start and what the client's streams had moved by then. */
struct stream_state {
	uint64_t rate_mark_ns, rate_mark_bytes;
};

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
	else if (sender && np->congestion[0] && !udp && !np->sctp &&
		 (rc = bp_sock_set_congestion(fd, np->congestion, err, errlen)))
		*ie = BP_IE_SETCONGESTION;
	else if (np->nodelay && !udp && (rc = np->sctp ? bp_sctp_set_nodelay(fd, err, errlen) :
					       bp_sock_set_nodelay(fd, err, errlen)))
		*ie = BP_IE_STREAMACCEPT;
	else if (np->tos && (rc = bp_sock_set_tos(fd, np->tos, err, errlen)))
		*ie = BP_IE_SETTOS;
	else if (np->dont_fragment && udp && (rc = bp_sock_set_dont_fragment(fd, err, errlen)))
		*ie = BP_IE_SETDONTFRAGMENT;
	else if (sender && send_pace(ss) > 0 &&
		 (rc = bp_sock_set_pacing(fd, BP_STREAM_KERNEL_PACE(send_pace(ss)), err, errlen)))
		*ie = BP_IE_SETPACING;
	if (rc)
		close(fd);
	return rc;
}

/* The blocks the server's TCP sending stream number k sends under -n or -k (0: no limit). */
static uint64_t blocks_of_stream(const struct bp_net_params *np, int k)
{
	return bp_net_params_blocks_of_stream(np, k, bp_net_params_down_streams(np));
}

/* The sending streams the side has so far: the number of the next one. */
static int senders_so_far(const struct srv_session *ss)
{
	int k = 0;

	for (int i = 0; i < ss->side.n; i++)
		k += ss->side.sender[i];
	return k;
}

static int add_tcp(struct srv_session *ss, int fd, int id, bool sender, char *err,
		   size_t errlen)
{
	struct bp_stream_opts so = { .write_len = (size_t)ss->np.len, .zerocopy = ss->np.zerocopy,
				     .pace_bps = send_pace(ss) };
	int ie = BP_IE_NONE;

	/* -n and -k in bytes: whole blocks of -l, as iperf3's server sends them (a short write
	 * of a full socket is no block of its own) */
	if (sender)
		so.limit_bytes = blocks_of_stream(&ss->np, senders_so_far(ss)) *
				 (uint64_t)ss->np.len;
	else  /* a stock iperf 2 client's --trip-times: its write times are read */
		srv_iperf2_inspect(ss, &so);
	if (!stream_options(ss, fd, sender, &ie, err, errlen) &&
	    bp_stream_side_add(&ss->side, fd, sender, id, &so, err, errlen))
		ie = BP_IE_STREAMACCEPT;
	return ie;
}

static int add_udp(struct srv_session *ss, int fd, int id, bool sender, char *err,
		   size_t errlen)
{
	/*
	 * No limit under -n/-k: the receiving client ends the test once its count arrived or is
	 * known lost, and a loss at the tail shows only as a gap before a later datagram; a
	 * sender that stopped at the count left such a client waiting (a stock iperf3 -c for its
	 * 120 s timeout). So a UDP sender sends on until TEST_END, as iperf3 -s does.
	 */
	struct bp_udp_stream_cfg cfg = {
		.sender = sender, .payload_len = (size_t)ss->np.len, .seq64 = ss->np.udp64,
		.iperf2 = ss->iperf2 != NULL,  /* a stock iperf 2 client's datagrams */
	};
	int ie = BP_IE_NONE;
	char why[64];

	/* GSO only where each datagram becomes a packet before anything counts it (udp_path.h). */
	cfg.gso = sender && bp_udp_gso_safe(fd, "", why, sizeof(why));

	/* -b is per stream, as in iperf3; --max-rate caps what this server sends. */
	cfg.rate_bps = ss->np.bandwidth;
	if (cfg.sender && ss->srv->o->max_rate > 0 &&
	    (cfg.rate_bps <= 0 || cfg.rate_bps > ss->srv->o->max_rate))
		cfg.rate_bps = ss->srv->o->max_rate;
	if (stream_options(ss, fd, cfg.sender, &ie, err, errlen))
		return ie;
	/* After the options: from here the stream owns the engines, even if it is refused. */
	if (sender && ss->np.packet_engine)
		cfg.pkt = bp_udp_packet_engine(fd, cfg.payload_len, &ss->engine_warned);
	if (!sender && ss->np.packet_engine)
		cfg.pkt_rx = bp_udp_packet_receiver(fd, &ss->engine_warned);
	if (sender && !cfg.pkt)
		bp_debug_peer(ss->peer, "udp stream %d: GSO %s (%s)", id, cfg.gso ? "on" : "off",
			      why);
	if (bp_stream_side_add_udp(&ss->side, fd, &cfg, id, err, errlen))
		ie = BP_IE_STREAMACCEPT;
	return ie;
}

static void start(struct srv_session *ss, uint64_t now)
{
	struct stream_state *st = ss->half_state;

	st->rate_mark_ns = now;
}

/*
 * --max-rate on what the client sends (the server paces its own sending in the kernel):
 * measured over each second, with 10 % for TCP's bursts; a test above it is stopped with
 * the reason.
 */
static void check_rate(struct srv_session *ss, uint64_t now)
{
	struct stream_state *st = ss->half_state;
	uint64_t bytes = bp_stream_side_total_bytes(&ss->side, true);
	double limit = ss->srv->o->max_rate, rate;
	char a[32], b[32];

	if (limit <= 0 || now - st->rate_mark_ns < BP_NS_PER_SEC)
		return;
	rate = (double)(bytes - st->rate_mark_bytes) * 8 * 1e9 / (double)(now - st->rate_mark_ns);
	st->rate_mark_ns = now;
	st->rate_mark_bytes = bytes;
	if (rate > limit * 1.1)
		srv_session_refuse(ss, SRV_REFUSAL_MAX_RATE, BP_IE_TOTALRATE,
				   "test ran at %s, above the server's --max-rate %s: stopped",
				   bp_format_rate(a, sizeof(a), rate),
				   bp_format_rate(b, sizeof(b), limit));
}

static uint64_t progress(const struct srv_session *ss)
{
	return bp_stream_side_total_bytes(&ss->side, false);
}

static void moved(const struct srv_session *ss, uint64_t *received, uint64_t *sent)
{
	if (ss->state >= SS_RESULTS) {
		*received = bp_net_results_bytes(ss->side.res, false);
		*sent = bp_net_results_bytes(ss->side.res, true);
	} else {
		*received = bp_stream_side_total_bytes(&ss->side, true);
		*sent = bp_stream_side_total_bytes(&ss->side, false) - *received;
	}
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

/*
 * A datagram test's loss after what it received: ", lost 49 of 1313, 49 of them dropped
 * by this host's socket buffers" - the second part says this server was the bottleneck.
 */
static void log_loss(char *buf, size_t len, const struct bp_net_results *r)
{
	int64_t lost = bp_net_results_lost(r);
	uint64_t drops = bp_net_results_kernel_drops(r), got = bp_net_results_packets(r, false);
	size_t at = strlen(buf);

	if (lost > 0 && at < len)
		snprintf(buf + at, len - at, ", lost %" PRId64 " of %" PRIu64, lost,
			 got + (uint64_t)lost);
	at = strlen(buf);
	if (drops && at < len)
		snprintf(buf + at, len - at, ", %" PRIu64 " dropped by this host's socket buffers",
			 drops);
}

/* One line per test, as a person reads it in a log. */
static void log_test(const struct srv_session *ss)
{
	const struct bp_net_results *r = ss->side.res;
	bool up = bp_net_params_up_streams(&ss->np), down = bp_net_params_down_streams(&ss->np);
	char got[192] = "", sent[96] = "";

	if (up)
		log_part(got, sizeof(got), "received", r, false);
	if (up && bp_net_params_datagram(&ss->np))
		log_loss(got, sizeof(got), r);
	if (down)
		log_part(sent, sizeof(sent), "sent", r, true);
	bp_info_peer(ss->peer, "%s: %s%s %s, %d stream%s, %.1f s: %s%s%s", ss->peer,
		     ss->iperf2 ? "iperf 2 " : "", ss->np.test, ss->np.bidir ? "bidir" : ss->np.reverse ? "reverse" : "upload",
		     ss->np.parallel, ss->np.parallel == 1 ? "" : "s", measured_seconds(ss), got,
		     up && down ? ", " : "", sent);
}

/* TCP (or SCTP) streams for tcp, UDP sockets for udp: the session hands each test only
 * its own (bp_net_params_datagram). */
const struct srv_half srv_half_stream = {
	.state_size = sizeof(struct stream_state),
	.add_tcp = add_tcp,
	.add_udp = add_udp,
	.start = start,
	.tick = check_rate,
	.progress = progress,
	.moved = moved,
	.log = log_test,
};
