#include "stream/stream_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board/net_path.h"
#include "core/clock.h"
#include "core/start_at.h"
#include "core/log.h"
#include "core/signals.h"
#include "proto/ctl_client.h"
#include "proto/control.h"
#include "io/stream_pool.h"
#include "io/udp_path.h"
#include "proto/iperf2_udp.h"
#include "stream/iperf2_client.h"
#include "stream/stream_report.h"
#include "side/stream_side.h"
#include "side/udp_stream.h"
#include "proto/udp_connect.h"
#include "core/workers.h"

/* How often the run looks at what moved: the resolution of the span a cut link leaves. */
#define TICK_NS (100 * BP_NS_PER_MS)
/* -n/-k: how often the counts are read for the end (a 100 ms tick would pad the span) */
#define COUNT_TICK_NS BP_NS_PER_MS

struct client {
	const struct bp_stream_client_opts *o;
	struct bp_stream_outcome *out;
	struct bp_ctl ctl;
	struct bp_stream_pool *pool;
	struct bp_stream_side side;
	bool side_ready;
	int live_sent;  /* intervals of this side handed to the live sink */
	/* udp --iperf2: the test header every datagram carries, for the FIN too */
	uint8_t i2hdr[BP_IPERF2_UDP_HEADER_START_LEN];
	size_t i2hdr_len;
	char *err;
	size_t errlen;
};

static int sock_options(int fd, void *arg, char *err, size_t errlen)
{
	const struct bp_net_params *np = arg;
	int rc = 0;

	if (np->window)
		rc = bp_sock_set_buffers(fd, np->window, err, errlen);
	if (!rc && np->mss)
		rc = bp_sock_set_mss(fd, np->mss, err, errlen);
	if (!rc && np->congestion[0])
		rc = bp_sock_set_congestion(fd, np->congestion, err, errlen);
	if (!rc && np->nodelay)
		rc = bp_sock_set_nodelay(fd, err, errlen);
	/* TCP -b: the kernel paces every socket (receivers send only ACKs). */
	if (!rc && np->bandwidth > 0 && !bp_net_params_udp(np))
		rc = bp_sock_set_pacing(fd, BP_STREAM_KERNEL_PACE(np->bandwidth), err, errlen);
	return rc;
}

/* An SCTP stream's options (tcp --sctp): -C, -Z and -b are refused for it by the check. */
static int sctp_options(int fd, void *arg, char *err, size_t errlen)
{
	const struct bp_net_params *np = arg;
	int rc = 0;

	if (np->window)
		rc = bp_sock_set_buffers(fd, np->window, err, errlen);
	if (!rc && np->mss)
		rc = bp_sctp_set_maxseg(fd, np->mss, err, errlen);
	if (!rc && np->nodelay)
		rc = bp_sctp_set_nodelay(fd, err, errlen);
	if (!rc && np->nstreams)
		rc = bp_sctp_set_ostreams(fd, np->nstreams, err, errlen);
	return rc;
}

/*
 * udp --iperf2: iperf 2's datagrams (64-bit numbers), each with the test header (its -n
 * share in bytes); no hello: the first datagram is the server's news of the test.
 */
static int iperf2_udp_cfg(struct client *c, struct bp_udp_stream_cfg *cfg, uint64_t limit)
{
	const struct bp_net_params *np = &c->o->np;
	struct bp_iperf2_header h;

	bp_iperf2_client_header(np, limit * (uint64_t)np->len, &h);
	cfg->iperf2 = cfg->seq64 = true;
	cfg->iperf2_hdr_len = bp_iperf2_udp_header_write(&h, cfg->iperf2_hdr,
							 sizeof(cfg->iperf2_hdr));
	memcpy(c->i2hdr, cfg->iperf2_hdr, cfg->iperf2_hdr_len);
	c->i2hdr_len = cfg->iperf2_hdr_len;
	if (cfg->payload_len < BP_IPERF2_DGRAM_LEN + cfg->iperf2_hdr_len) {
		snprintf(c->err, c->errlen, "--iperf2: -l %zu is shorter than iperf 2's datagram "
			 "header and test header (%zu bytes)", cfg->payload_len,
			 BP_IPERF2_DGRAM_LEN + cfg->iperf2_hdr_len);
		return -EINVAL;
	}
	return 0;
}

/* A UDP stream: greet the server's port, then paced datagrams or a counting receiver. */
static int open_udp_stream(struct client *c, bool sender, int id, uint64_t limit)
{
	const struct bp_net_params *np = &c->o->np;
	struct bp_udp_stream_cfg cfg = {
		.sender = sender, .payload_len = (size_t)np->len,
		.rate_bps = np->bandwidth, .seq64 = np->udp64, .limit_datagrams = limit,
	};
	char why[64];
	int fd, rc = np->iperf2 ? iperf2_udp_cfg(c, &cfg, limit) : 0;

	/* Bursts at line rate need more than the default 208 KiB receive buffer. */
	if (!rc && np->iperf2)
		rc = bp_udp_connect_plain(&c->ctl.addr, np->window ? np->window : 4 << 20, &fd,
					  c->err, c->errlen);
	/* -R: the server sends once the header reached it; its FIN is no data here */
	if (!rc && np->iperf2 && !sender) {
		cfg.iperf2_fin_not_data = true;
		rc = bp_iperf2_client_udp_first(fd, cfg.payload_len, c->i2hdr, c->i2hdr_len,
						c->err, c->errlen);
		if (rc)
			close(fd);
	} else if (!rc && !np->iperf2)
		rc = bp_udp_connect(&c->ctl.addr, c->ctl.cookie, np->window ? np->window : 4 << 20,
				    bp_ctl_deadline(), &fd, c->err, c->errlen);
	if (rc)
		return rc;
	/* GSO only where each datagram becomes a packet before anything counts it (udp_path.h). */
	cfg.gso = sender && bp_udp_gso_safe(fd, "", why, sizeof(why));
	if (sender && np->packet_engine)
		cfg.pkt = bp_udp_packet_engine(fd, cfg.payload_len, NULL);
	if (!sender && np->packet_engine)
		cfg.pkt_rx = bp_udp_packet_receiver(fd, NULL);
	if (sender && !cfg.pkt)
		bp_log(BP_LOG_DEBUG, "udp stream %d: GSO %s (%s)", id, cfg.gso ? "on" : "off", why);
	return bp_stream_side_add_udp(&c->side, fd, &cfg, id, c->err, c->errlen);
}

/*
 * --iperf2: the connection opens with iperf 2's test header (its -n share: the blocks of
 * this connection's sending stream, or of the server's with -R) and is the test's stream;
 * with --bidir (iperf 2's --full-duplex) both, a descriptor each.
 */
static int open_iperf2_connection(struct client *c, int fd, bool sender, int id,
				  struct bp_stream_opts so, uint64_t limit)
{
	const struct bp_net_params *np = &c->o->np;
	int rc, twin;

	if (np->num_bytes && !limit) {
		snprintf(c->err, c->errlen, "--iperf2: -n %llu leaves connection %d of -P %d no "
			 "whole -l block of %d bytes (iperf 2 counts each connection's)",
			 (unsigned long long)np->num_bytes, id, np->parallel, np->len);
		close(fd);
		return -EINVAL;
	}
	rc = bp_iperf2_client_hello(fd, np, limit * (uint64_t)np->len, bp_ctl_deadline(), c->err,
				    c->errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	if (!np->bidir)
		return bp_stream_side_add(&c->side, fd, sender, id, &so, c->err, c->errlen);
	twin = dup(fd);
	if (twin < 0) {
		rc = -errno;
		snprintf(c->err, c->errlen, "data connection %d: %s", id, strerror(errno));
		close(fd);
		return rc;
	}
	rc = bp_stream_side_add(&c->side, fd, true, id, &so, c->err, c->errlen);
	if (rc) {
		close(twin);
		return rc;
	}
	return bp_stream_side_add(&c->side, twin, false, id + np->parallel, &so, c->err,
				  c->errlen);
}

/*
 * One data connection: connect, name the session with its cookie, hand it to the pool.
 * limit: -n/-k's blocks for a sending stream (0: none).
 */
static int open_stream(struct client *c, bool sender, int id, struct bp_stream_opts so,
		       uint64_t limit)
{
	struct bp_net_params np = c->o->np;
	int fd, rc;

	if (bp_net_params_udp(&np))
		return open_udp_stream(c, sender, id, limit);
	so.limit_bytes = limit * (uint64_t)np.len;
	/* SCTP has a port space of its own: the server listens on the same number there. */
	rc = bp_stream_connect(&c->ctl.addr, np.sctp ? IPPROTO_SCTP : IPPROTO_TCP,
			       bp_now_ns() + c->o->connect_timeout_ns,
			       np.sctp ? sctp_options : sock_options, &np, &fd, c->err, c->errlen);
	/* The control connection got through: nothing listens for SCTP there. */
	if (rc == -ECONNREFUSED && np.sctp) {
		size_t n = strlen(c->err);

		snprintf(c->err + n, c->errlen - n, " (no SCTP listener there: a boardperf serve "
			 "older than --sctp, or a firewall that rejects SCTP?)");
	}
	if (rc)
		return rc;
	if (np.iperf2)
		return open_iperf2_connection(c, fd, sender, id, so, limit);
	/* ids 1, 3, 4, ...: the index is the order of opening, as the server counts */
	rc = bp_ctl_stream_hello(&c->ctl, fd, (uint32_t)(id == 1 ? 0 : id - 2), bp_ctl_deadline());
	if (rc) {
		snprintf(c->err, c->errlen, "data connection %d: %s", id, strerror(-rc));
		close(fd);
		return rc;
	}
	return bp_stream_side_add(&c->side, fd, sender, id, &so, c->err, c->errlen);
}

/*
 * Streams in iperf3's order: the client's sending streams first, then its receiving ones;
 * ids 1, 3, 4, ... (iperf3 never uses 2).
 */
static int open_streams(void *arg)
{
	struct client *c = arg;
	const struct bp_net_params *np = &c->o->np;
	int up = bp_net_params_up_streams(np), down = bp_net_params_down_streams(np);
	int workers = bp_workers_available_cpus(), rc, id = 1;
	struct bp_stream_opts so = { .write_len = (size_t)np->len, .zerocopy = np->zerocopy,
				     .pace_bps = np->bandwidth };

	if (workers > up + down)
		workers = up + down;
	c->pool = bp_stream_pool_new(workers, c->err, c->errlen);
	if (!c->pool)
		return -ENOMEM;
	rc = bp_stream_side_init(&c->side, c->pool, np->omit_ns);
	if (rc)
		return rc;
	c->side_ready = true;
	/*
	 * --start-at: the test is agreed and this side ready (its workers started, the path
	 * read: a radio's station dump takes ms), and the streams open at the instant. The
	 * server starts counting its side once the last stream is in, so a wait after them
	 * would go into the receiver's span (seen: 3.5 s for a 2 s udp test, its bitrate 40 %
	 * low); the first byte leaves a stream set-up and a round trip after the instant.
	 */
	c->out->path = bp_net_path_collect(&c->ctl.addr);
	rc = bp_start_at_wait_mark(c->out->start_at_ns = c->o->start_at_ns, &c->out->started_ns);
	if (rc)
		return rc;
	/* iperf 2: one connection per stream of a direction (--bidir: both on each) */
	if (np->iperf2) {
		int n = up ? up : down;

		for (int i = 0; i < n && !rc; i++)
			rc = open_stream(c, up > 0, i + 1, so,
					 bp_net_params_blocks_of_stream(np, i, n));
		return rc;
	}
	for (int i = 0; i < up + down && !rc; i++, id += id == 1 ? 2 : 1)
		rc = open_stream(c, i < up, id, so,
				 i < up ? bp_net_params_blocks_of_stream(np, i, up) : 0);
	return rc;
}

/* The next moment something is due: an interval mark, the end of the omit, the end. */
static uint64_t next_due(const struct bp_stream_side *s, const struct bp_net_params *np,
			 uint64_t end_ns)
{
	uint64_t due = end_ns;

	if (np->interval_ns) {
		uint64_t k = (s->last_mark_ns - s->start_ns) / np->interval_ns + 1;
		uint64_t mark = s->start_ns + k * np->interval_ns;

		if (mark < due)
			due = mark;
	}
	if (!s->omit_done && s->start_ns + np->omit_ns < due)
		due = s->start_ns + np->omit_ns;
	return due;
}

/*
 * A data stream broke. A server that stops a test (its limits, an error) closes the
 * streams right after saying why on the control connection: give that reason a moment
 * to arrive, since it says more than "connection reset".
 */
static int stream_failed(struct client *c)
{
	struct pollfd pfd = { .fd = c->ctl.fd, .events = POLLIN };
	int rc = bp_stream_side_error(&c->side);

	if (poll(&pfd, 1, 200) > 0)
		return bp_ctl_event(&c->ctl);
	snprintf(c->err, c->errlen, "data stream failed: %s", strerror(-rc));
	return rc;
}

/*
 * Nothing moved (received, or acknowledged for a TCP sender) for the idle timeout: a cut
 * link or a server gone. Waiting on to -t would only dilute the figures with dead time,
 * so the test ends here and its totals cover the span that carried data.
 */
static uint64_t idle_ns(const struct bp_stream_client_opts *o)
{
	const struct bp_net_params *np = &o->np;
	uint64_t idle = o->idle_timeout_ns ? o->idle_timeout_ns : BP_CTL_STEP_TIMEOUT_NS;
	/* A test paced so slowly (-b 1k) that a datagram or a segment (about 1500 bytes) is due
	 * less often than the timeout is not stopped: it waits for three of them. */
	double unit = bp_net_params_udp(np) ? np->len : 1500, gap;

	if (np->bandwidth <= 0)
		return idle;
	gap = 3 * unit * 8 / np->bandwidth * 1e9;
	return gap > (double)idle ? (uint64_t)gap : idle;
}

/*
 * -n/-k: every block is through: this side's senders' counts (TCP acknowledged, UDP sent)
 * reached their share, and its receivers have what the server's senders send (the same
 * dealing, bp_net_params_blocks_of_stream). False for a test that -t ends.
 */
static bool count_reached(const struct client *c)
{
	const struct bp_net_params *np = &c->o->np;
	int streams[2] = { bp_net_params_up_streams(np), bp_net_params_down_streams(np) };
	bool udp = bp_net_params_udp(np);

	if (!np->num_bytes && !np->num_blocks)
		return false;
	for (int d = 0; d < 2; d++) {
		uint64_t want = bp_net_params_blocks_total(np, streams[d]), bytes, datagrams;

		if (!streams[d])
			continue;
		bp_stream_side_counts(&c->side, d == 0, &bytes, &datagrams);
		if (udp ? datagrams < want : bytes < want * (uint64_t)np->len)
			return false;
	}
	return true;
}

static bool data_stopped(struct client *c, struct bp_stream_outcome *out, uint64_t now)
{
	uint64_t idle = idle_ns(c->o), moved = bp_stream_side_moved(&c->side, now);

	if (now - moved < idle)
		return false;
	out->data_stopped = true;
	out->stopped_s = (double)(moved - c->side.start_ns) / 1e9;
	out->idle_s = (double)idle / 1e9;
	snprintf(c->err, c->errlen, "no data moved after %.1f s (nothing for %g s, "
		 "--idle-timeout): the link or the server is gone", out->stopped_s, out->idle_s);
	return true;
}

/*
 * Each interval this side closed since the last call, to the live sink: what this side
 * knows of it now (the server's figures come at the end). None with -i 0, as iperf3.
 */
static void emit_live(struct client *c)
{
	const struct bp_stream_client_opts *o = c->o;

	while (o->live && o->np.interval_ns && c->live_sent < c->side.res->nintervals) {
		struct bp_interval iv = { 0 };

		bp_stream_local_interval(&iv, &o->np, c->side.res, c->live_sent++);
		bp_live_interval(o->live, o->live_result, &iv);
		bp_interval_clear(&iv);
	}
}

/* Whether any stream of the side sends. */
static bool side_sends(const struct bp_stream_side *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->sender[i])
			return true;
	return false;
}

static int run_timed(struct client *c, struct bp_stream_outcome *out)
{
	const struct bp_net_params *np = &c->o->np;
	uint64_t now = bp_now_ns(), end;
	int rc = 0;

	/* iperf 2's server sends as soon as it read the header (-R): all of it is the test's */
	c->side.whole_count = np->num_bytes || np->num_blocks || np->iperf2;
	bp_stream_side_start(&c->side, now);
	/* As iperf3: the omitted start comes on top of -t. */
	end = now + np->omit_ns + np->time_ns;
	while (now < end) {
		struct pollfd pfd = { .fd = c->ctl.fd, .events = POLLIN };
		uint64_t tick = np->num_bytes || np->num_blocks ? COUNT_TICK_NS : TICK_NS;
		uint64_t due = next_due(&c->side, np, end), wake = due < now + tick ? due :
								   now + tick;
		int ms = wake > now ? (int)((wake - now + BP_NS_PER_MS - 1) / BP_NS_PER_MS) : 0;

		if (poll(&pfd, 1, ms) > 0) {
			rc = bp_ctl_event(&c->ctl);
			break;
		}
		if (bp_stop_requested()) {
			out->interrupted = true;
			break;
		}
		now = bp_now_ns();
		if (now >= due && due < end) {
			bp_stream_side_mark(&c->side, now);
			emit_live(c);
		}
		if (bp_stream_side_error(&c->side)) {
			rc = stream_failed(c);
			break;
		}
		if (data_stopped(c, out, now)) {
			rc = -ETIMEDOUT;
			break;
		}
		if (count_reached(c)) {
			out->count_reached = true;
			break;
		}
	}

	/*
	 * The span ends when the counts are taken, now: a poll that returned late (a busy
	 * machine) makes a longer span, never bytes over a span they did not fit in.
	 */
	now = bp_now_ns();
	/*
	 * TCP: the counts are taken, then TEST_END goes out at once, so that the server's span
	 * ends a one-way delay after this one, not after the workers took a pass each to stop
	 * 128 streams (30-50 ms on a busy machine: 5 % of -t 1). A send that fails is reported
	 * by bp_ctl_finish, which tries again. UDP too: boardperf serve's receivers drain
	 * until their sockets stay empty (udp_stream.c, DRAIN_NS), so they count what this
	 * side's senders send while they stop, and its senders stop while this side's
	 * receivers drain: each direction's last datagrams arrive within a drain, not as a tail
	 * counted lost (docs/network.md, "Loss"). A stock iperf3 stops reading at TEST_END
	 * without a drain: towards it this side's senders stop first, then TEST_END.
	 */
	/* iperf 2: no TEST_END; what this side sent is acknowledged, what comes ends (FIN) */
	if (np->iperf2 && !rc && !out->data_stopped && !out->interrupted)
		now = bp_iperf2_client_drain(&c->side, now + idle_ns(c->o));
	if (!np->iperf2 && !rc && !out->data_stopped &&
	    (!bp_net_params_udp(np) || !np->iperf3 || !side_sends(&c->side))) {
		bp_stream_side_freeze(&c->side);
		bp_ctl_end_test(&c->ctl);
		/*
		 * UDP toward this side only: the server's senders send on until TEST_END reaches
		 * them, later than a drain's 20 ms on a busy machine (CI run 35 under ASan: serve
		 * sent 691 datagrams of a -k 100 test, 271 of them after this side stopped
		 * reading, counted lost on loopback). The receivers read on until the server says
		 * its senders stopped (EXCHANGE_RESULTS), and their span ends then: it holds
		 * every datagram they count. A failure here is bp_ctl_finish's to report.
		 */
		if (bp_net_params_udp(np) && !side_sends(&c->side) &&
		    !bp_ctl_await_exchange(&c->ctl))
			now = bp_now_ns();
	}
	if (out->data_stopped)
		bp_stream_side_stop_stalled(&c->side, now);
	else
		bp_stream_side_stop(&c->side, now);
	/*
	 * -n/-k over UDP toward a stock iperf3 -s: it reads a datagram a pass and stops at
	 * TEST_END, and a pass takes the control socket first; a server held up a few ms when
	 * the count went out read 46 of 50 (CI run 48 under ASan). TEST_END waits what
	 * boardperf serve's own receivers drain for, so that the count the user asked for
	 * arrives whole. This side's span ended above; the server's ends 20 ms later.
	 */
	if (!rc && out->count_reached && bp_net_params_udp(np) && np->iperf3 &&
	    side_sends(&c->side))
		bp_sleep_until_ns(bp_now_ns() + BP_UDP_DRAIN_NS);
	emit_live(c);
	out->duration_s = (double)(now - c->side.start_ns) / 1e9;
	return rc;
}

static int exchange_results(struct client *c, struct bp_stream_outcome *out)
{
	char why[160];
	json_t *mine = bp_net_results_to_json(c->side.res), *theirs = NULL;
	int rc = bp_ctl_finish(&c->ctl, mine, &theirs);

	if (!rc && bp_net_results_from_json(theirs, out->remote, why, sizeof(why))) {
		snprintf(c->err, c->errlen, "the server's results are unreadable: %s", why);
		rc = -EBADMSG;
	}
	if (!rc && out->remote->from_iperf3)
		bp_net_results_mirror_roles(out->remote, c->side.res);
	/* Each receiver's tail, from its sender's final count (docs/network.md, "Loss"). */
	if (!rc) {
		bp_net_results_add_tail(c->side.res, out->remote);
		bp_net_results_add_tail(out->remote, c->side.res);
	}
	json_decref(mine);
	json_decref(theirs);
	return rc;
}

/* --iperf2: no control connection; the streams go straight to the server's port. */
static int start_iperf2(struct client *c)
{
	int rc = bp_resolve(c->o->host, c->o->port, c->o->family, false, &c->ctl.addr, c->err,
			    c->errlen);

	return rc ? rc : open_streams(c);
}

/*
 * --iperf2: each connection's sending shut down and the server's close awaited (iperf -s
 * closes once it read the FIN); the server's figures are what this side's TCP saw it take
 * or send (iperf 2 sends none back). UDP: each socket's FIN, and the server's report as
 * its figures; -R: what this side's receivers saw the server send.
 */
static int end_iperf2(struct client *c, struct bp_stream_outcome *out)
{
	if (!c->side_ready)
		return 0;
	if (bp_net_params_udp(&c->o->np) && c->o->np.reverse) {
		bp_iperf2_client_udp_reverse_end(&c->side, (size_t)c->o->np.len,
						 c->o->np.trip_times, out->remote);
		return 0;
	}
	if (bp_net_params_udp(&c->o->np))
		return bp_iperf2_client_udp_end(&c->side, (size_t)c->o->np.len, c->i2hdr,
						c->i2hdr_len, out->remote, c->err, c->errlen);
	bp_iperf2_client_close(&c->side, bp_now_ns() + idle_ns(c->o));
	bp_iperf2_client_mirror(c->side.res, out->remote);
	return 0;
}

static void note_workers(struct client *c, struct bp_stream_outcome *out)
{
	out->pool_workers = bp_stream_pool_workers(c->pool);
}

int bp_stream_client_run(const struct bp_stream_client_opts *o, struct bp_stream_outcome *out,
		      char *err, size_t errlen)
{
	struct client c = { .o = o, .out = out, .ctl.fd = -1, .err = err, .errlen = errlen };
	int rc;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	out->remote = calloc(1, sizeof(*out->remote));
	if (!out->remote)
		return -ENOMEM;
	if (o->np.iperf2)
		rc = start_iperf2(&c);
	else
		rc = bp_ctl_start(&c.ctl, &(struct bp_ctl_target){ o->host, o->port, o->family,
								    o->connect_timeout_ns,
								    o->idle_timeout_ns, o->psk },
				  &o->np, open_streams, &c, err, errlen);
	if (!rc) {
		bp_addr_str(&c.ctl.addr, out->server_addr, sizeof(out->server_addr));
		out->this_host = bp_addr_is_this_host(&c.ctl.addr);
		rc = run_timed(&c, out);
		note_workers(&c, out);
		if (o->np.iperf2) {
			int end_rc = end_iperf2(&c, out);

			rc = rc ? rc : end_rc;
		} else if (!rc)
			rc = exchange_results(&c, out);
	}
	if (c.side_ready) {
		out->local = c.side.res;  /* hand over what was measured, even after a failure */
		c.side.res = NULL;
		bp_stream_side_free(&c.side);
	}
	if (c.pool)
		bp_stream_pool_free(c.pool);
	bp_ctl_close(&c.ctl);
	return rc;
}

void bp_stream_outcome_free(struct bp_stream_outcome *out)
{
	free(out->local);
	free(out->remote);
	out->local = out->remote = NULL;
	json_decref(out->path);
	out->path = NULL;
}
