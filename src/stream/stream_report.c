#include "stream/stream_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "board/net_path.h"
#include "board/start_at_result.h"
#include "core/cpuacct.h"
#include "result/result_this_host.h"
#include "stream/stream_owd.h"
#include "stream/stream_streams.h"

/* The two ends' spans (of the totals, of an interval) may differ by this share of the span,
 * and their rates by this share of the higher, before the result says so. */
#define BP_SPAN_TOLERANCE 0.05
#define BP_SIDES_TOLERANCE 0.05

/* Intervals whose two spans differ by more than BP_SPAN_TOLERANCE, and the worst. */
struct span_check {
	int n, of;
	double worst_s, worst_start, worst_end;
};

static void span_check_add(struct span_check *c, double diff_s, double span_s, double start,
			   double end)
{
	c->of++;
	if (span_s <= 0 || fabs(diff_s) <= BP_SPAN_TOLERANCE * span_s)
		return;
	c->n++;
	if (fabs(diff_s) > c->worst_s) {
		c->worst_s = fabs(diff_s);
		c->worst_start = start;
		c->worst_end = end;
	}
}

/* One direction: who sent, who received, and the name prefix its metrics carry. */
struct direction {
	const char *prefix;                   /* "", "up." or "down." */
	const struct bp_net_results *sender;  /* the side that sent */
	const struct bp_net_results *receiver;
	bool client_sends;
	/* The server's figures contradict the client's own (peer_check): left out. */
	bool bad_lost, bad_got;
};

/*
 * What the receiver may have counted beyond what the sender did: the rate of the sender
 * over the two spans' difference (each end counts over its own), BP_SIDES_TOLERANCE of
 * the sender's count, and a few datagrams' or bytes' slack.
 */
static double slack(double sent, double ss, double gs, double few)
{
	return sent * BP_SIDES_TOLERANCE + (ss > 0 ? sent / ss * fabs(gs - ss) : 0) + few;
}

/*
 * Figures each in their own domain (proto/results.c) but impossible together: the
 * receiver lost more than the sender sent, or received more (bytes, or datagrams other
 * than duplicates). The server's side of such a pair is left out of the result and the
 * warning peer-figures-inconsistent names the figures as they came.
 */
static void peer_check(struct bp_result *r, struct direction *d, bool udp)
{
	double sent = (double)bp_net_results_bytes(d->sender, true);
	double got = (double)bp_net_results_bytes(d->receiver, false);
	double ps = (double)bp_net_results_packets(d->sender, true);
	double pg = (double)bp_net_results_packets(d->receiver, false) -
		    (double)bp_net_results_duplicates(d->receiver);
	double lost = (double)bp_net_results_lost(d->receiver);
	double ss = bp_net_results_seconds(d->sender, true);
	double gs = bp_net_results_seconds(d->receiver, false);
	const char *whose = d->client_sends ? "the server's receiver" : "the server's sender";

	if (!d->sender->nstreams || !d->receiver->nstreams)
		return;
	if (udp && lost > ps + slack(ps, ss, gs, 64)) {
		d->bad_lost = true;
		bp_result_add_warning(r, "peer-figures-inconsistent", "%s%.0f datagrams lost of "
				      "%.0f sent, impossible together: %s figures and the loss are "
				      "left out", d->prefix, lost, ps, whose);
	}
	/* TCP: the sender may count only what was acknowledged, so what sat in flight at its
	 * end (socket buffers, 4.5 MB once on an emulated Orange Pi with its CPU starved)
	 * reaches the receiver uncounted by it: 64 MiB, beyond Linux's default buffers at
	 * both ends many times over, and far below a forged count's absurd one. */
	if (got > sent + slack(sent, ss, gs, udp ? 65536 : 64.0 * 1024 * 1024) ||
	    (udp && pg > ps + slack(ps, ss, gs, 64))) {
		d->bad_got = true;
		bp_result_add_warning(r, "peer-figures-inconsistent", "%s%.0f bytes (%.0f "
				      "datagrams) received of %.0f (%.0f) sent, impossible together: "
				      "%s figures are left out", d->prefix, got, pg, sent, ps, whose);
	}
	/* The server's receiver refused datagrams no real sender makes (udp_seq.h). */
	for (int i = 0; d->client_sends && i < d->receiver->nstreams; i++)
		if (d->receiver->streams[i].implausible) {
			bp_result_add_warning(r, "peer-figures-inconsistent", "%sthe server ignored "
					      "%" PRIu64 " datagrams of stream %d whose sequence jump or "
					      "timestamp no real sender makes", d->prefix,
					      d->receiver->streams[i].implausible,
					      d->receiver->streams[i].id);
			break;
		}
}

static int add(struct bp_result *r, const char *prefix, const char *name, double v,
	       const char *unit, enum bp_better better)
{
	char full[96];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	return bp_result_add_metric(r, full, v, unit, better);
}

static double rate(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes * 8 / seconds : NAN;
}

/*
 * UDP: datagrams both ways, what never arrived, and where: lost counts every sequence number
 * that did not arrive; receiver.kernel_drops is the part dropped in the receiving tester's
 * own socket buffer, not on the path; sender.stalls counts sends the sender's kernel refused.
 */
static int report_udp(struct bp_result *r, const struct direction *d)
{
	uint64_t sent = bp_net_results_packets(d->sender, true);
	uint64_t got = bp_net_results_packets(d->receiver, false);
	int64_t lost = bp_net_results_lost(d->receiver);
	double ss = bp_net_results_seconds(d->sender, true);
	double gs = bp_net_results_seconds(d->receiver, false);
	int rc = 0;

	/* The server's side of an impossible pair (peer_check) is not shown. */
	bool hide_s = !d->client_sends && (d->bad_lost || d->bad_got);
	bool hide_g = d->client_sends && (d->bad_lost || d->bad_got);

	if (d->sender->nstreams && !hide_s) {
		rc = add(r, d->prefix, "sender.packets", (double)sent, "count", BP_BETTER_NONE);
		if (!rc)
			rc = add(r, d->prefix, "sender.pps", ss > 0 ? sent / ss : NAN, "pkt/s",
				 BP_BETTER_HIGHER);
		if (!rc)
			rc = add(r, d->prefix, "sender.stalls",
				 (double)bp_net_results_stalls(d->sender), "count", BP_BETTER_LOWER);
	}
	if (rc || !d->receiver->nstreams || hide_g)
		return rc;
	rc = add(r, d->prefix, "receiver.packets", (double)got, "count", BP_BETTER_NONE);
	if (!rc)
		rc = add(r, d->prefix, "receiver.pps", gs > 0 ? got / gs : NAN, "pkt/s",
			 BP_BETTER_HIGHER);
	if (!rc && !d->bad_lost)
		rc = add(r, d->prefix, "lost.packets", (double)lost, "count", BP_BETTER_LOWER);
	if (!rc && !d->bad_lost && !hide_s)
		rc = add(r, d->prefix, "loss.percent", sent ? (double)lost / sent * 100 : NAN,
			 "percent", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, d->prefix, "receiver.kernel_drops",
			 (double)bp_net_results_kernel_drops(d->receiver), "count", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, d->prefix, "receiver.out_of_order",
			 (double)bp_net_results_out_of_order(d->receiver), "count", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, d->prefix, "receiver.duplicates",
			 (double)bp_net_results_duplicates(d->receiver), "count", BP_BETTER_LOWER);
	if (!rc)
		rc = add(r, d->prefix, "jitter", bp_net_results_jitter_ns(d->receiver), "ns",
			 BP_BETTER_LOWER);
	return rc;
}

/*
 * Each end's rate is its bytes over its own span ("sender.span", "receiver.span"), so that
 * a reader can check bitrate == bytes * 8 / span for every figure: the two spans are a
 * control message apart and not equally long (the server's ends when TEST_END reaches it).
 */
static int report_direction(struct bp_result *r, const struct direction *d)
{
	uint64_t sent = bp_net_results_bytes(d->sender, true);
	uint64_t got = bp_net_results_bytes(d->receiver, false);
	double ss = bp_net_results_seconds(d->sender, true);
	double gs = bp_net_results_seconds(d->receiver, false);
	int64_t retrans = bp_net_results_retransmits(d->sender);
	/* A side whose results never arrived (the exchange failed) reports nothing, nor the
	 * server's side of an impossible pair (peer_check). */
	bool show_s = d->sender->nstreams && !(d->bad_got && !d->client_sends);
	bool show_g = d->receiver->nstreams && !(d->bad_got && d->client_sends);
	int rc = 0;

	if (show_s)
		rc = add(r, d->prefix, "sender.bytes", (double)sent, "B", BP_BETTER_NONE);
	if (!rc && show_s)
		rc = add(r, d->prefix, "sender.bitrate", rate(sent, ss), "bit/s", BP_BETTER_HIGHER);
	if (!rc && show_s)
		rc = add(r, d->prefix, "sender.span", ss * 1e9, "ns", BP_BETTER_NONE);
	if (!rc && retrans >= 0)
		rc = add(r, d->prefix, "sender.retransmits", (double)retrans, "count",
			 BP_BETTER_LOWER);
	if (!rc && show_g)
		rc = add(r, d->prefix, "receiver.bytes", (double)got, "B", BP_BETTER_NONE);
	if (!rc && show_g)
		rc = add(r, d->prefix, "receiver.bitrate", rate(got, gs), "bit/s",
			 BP_BETTER_HIGHER);
	if (!rc && show_g)
		rc = add(r, d->prefix, "receiver.span", gs * 1e9, "ns", BP_BETTER_NONE);
	return rc;
}

/*
 * Side res's interval i, with every later one folded in when i is the last interval the
 * client has: the server stops a moment after the client (TEST_END has to reach it), and
 * what it moved in that moment belongs to the last interval, not to none.
 */
static struct bp_net_interval interval_at(const struct bp_net_results *res, int i, bool last)
{
	struct bp_net_interval iv = { 0 };

	if (i >= res->nintervals)
		return iv;
	iv = res->intervals[i];
	for (int k = i + 1; last && k < res->nintervals; k++) {
		iv.sent += res->intervals[k].sent;
		iv.received += res->intervals[k].received;
		iv.packets_sent += res->intervals[k].packets_sent;
		iv.packets_received += res->intervals[k].packets_received;
		iv.lost += res->intervals[k].lost;
		iv.jitter_ns = res->intervals[k].jitter_ns;
		iv.end_s = res->intervals[k].end_s;
	}
	return iv;
}

static void add_interval_metric(struct bp_interval *iv, const char *prefix, const char *name,
				double v, const char *unit, enum bp_better better)
{
	char full[96];

	snprintf(full, sizeof(full), "%s%s", prefix, name);
	bp_interval_add_metric(iv, full, v, unit, better);
}

static void interval_udp(struct bp_interval *iv, const char *p, const struct bp_net_interval *s,
			 const struct bp_net_interval *g, bool bad)
{
	if (s->end_s > s->start_s && s->packets_sent)
		add_interval_metric(iv, p, "sender.pps", (double)s->packets_sent /
				    (s->end_s - s->start_s), "pkt/s", BP_BETTER_HIGHER);
	if (g->end_s > g->start_s && (g->packets_received || g->lost)) {
		add_interval_metric(iv, p, "receiver.pps", (double)g->packets_received /
				    (g->end_s - g->start_s), "pkt/s", BP_BETTER_HIGHER);
		if (!bad)
			add_interval_metric(iv, p, "lost", (double)g->lost, "count",
					    BP_BETTER_LOWER);
		if (s->packets_sent && !bad)
			add_interval_metric(iv, p, "loss.percent",
					    (double)g->lost / (double)s->packets_sent * 100,
					    "percent", BP_BETTER_LOWER);
		add_interval_metric(iv, p, "jitter", g->jitter_ns, "ns", BP_BETTER_LOWER);
	}
}

/*
 * One direction's figures in interval i, each side's over its own span, which the interval
 * carries ("sender.span", "receiver.span"): the interval's label is the client's, and the
 * server's i-th interval is a little offset and, for the last one, longer. Returns the two
 * spans' difference in seconds (0 when one side has none).
 */
static double interval_direction(struct bp_interval *iv, const struct direction *d, int i,
				 bool last)
{
	struct bp_net_interval s = interval_at(d->sender, i, last);
	struct bp_net_interval g = interval_at(d->receiver, i, last);
	const char *p = d->prefix;

	interval_udp(iv, p, &s, &g, d->bad_lost || d->bad_got);
	if (s.end_s > s.start_s) {
		add_interval_metric(iv, p, "sender.bitrate", (double)s.sent * 8 / (s.end_s - s.start_s),
				    "bit/s", BP_BETTER_HIGHER);
		add_interval_metric(iv, p, "sender.bytes", (double)s.sent, "B", BP_BETTER_NONE);
		add_interval_metric(iv, p, "sender.span", (s.end_s - s.start_s) * 1e9, "ns",
				    BP_BETTER_NONE);
		if (s.retransmits >= 0)
			add_interval_metric(iv, p, "retransmits", (double)s.retransmits, "count",
					    BP_BETTER_LOWER);
		if (s.cwnd)
			add_interval_metric(iv, p, "cwnd", s.cwnd, "B", BP_BETTER_NONE);
		if (s.rtt_us)
			add_interval_metric(iv, p, "rtt", s.rtt_us * 1e3, "ns", BP_BETTER_LOWER);
	}
	if (g.end_s > g.start_s) {
		add_interval_metric(iv, p, "receiver.bitrate",
				    (double)g.received * 8 / (g.end_s - g.start_s), "bit/s",
				    BP_BETTER_HIGHER);
		add_interval_metric(iv, p, "receiver.bytes", (double)g.received, "B",
				    BP_BETTER_NONE);
		add_interval_metric(iv, p, "receiver.span", (g.end_s - g.start_s) * 1e9, "ns",
				    BP_BETTER_NONE);
	}
	if (s.end_s <= s.start_s || g.end_s <= g.start_s)
		return 0;
	return (g.end_s - g.start_s) - (s.end_s - s.start_s);
}

/*
 * Intervals by index: both sides mark every -i seconds from their own TEST_RUNNING, so the
 * i-th interval of each covers the same stretch of the test, apart from the control
 * message's one-way delay. The client's clock labels them.
 */
static void report_intervals(struct bp_result *r, const struct direction *dirs, int ndirs,
			     const struct bp_net_results *local, struct span_check *checks)
{
	for (int i = 0; i < local->nintervals; i++) {
		const struct bp_net_interval *l = &local->intervals[i];
		struct bp_interval *iv = bp_result_add_interval(r, l->start_s, l->end_s);

		if (!iv)
			return;
		for (int d = 0; d < ndirs; d++)
			span_check_add(&checks[d], interval_direction(iv, &dirs[d], i,
								      i == local->nintervals - 1),
				       l->end_s - l->start_s, l->start_s, l->end_s);
		if (l->omitted)
			bp_interval_add_metric(iv, "omitted", 1, "count", BP_BETTER_NONE);
	}
}

void bp_stream_local_interval(struct bp_interval *iv, const struct bp_net_params *np,
			      const struct bp_net_results *local, int i)
{
	/* The peer's side, whose figures arrive only at the end. */
	static const struct bp_net_results none;
	const struct bp_net_interval *l = &local->intervals[i];
	struct direction d;

	iv->start = l->start_s;
	iv->end = l->end_s;
	if (bp_net_params_up_streams(np)) {
		d = (struct direction){ np->bidir ? "up." : "", local, &none, true, false, false };
		interval_direction(iv, &d, i, false);
	}
	if (bp_net_params_down_streams(np)) {
		d = (struct direction){ np->bidir ? "down." : "", &none, local, false, false, false };
		interval_direction(iv, &d, i, false);
		/* A UDP receiver knows what it expected from the sequence numbers, as iperf3's. */
		if (bp_net_params_udp(np) && (int64_t)l->packets_received + l->lost > 0)
			add_interval_metric(iv, d.prefix, "loss.percent", (double)l->lost /
					    (double)((int64_t)l->packets_received + l->lost) * 100,
					    "percent", BP_BETTER_LOWER);
	}
	if (l->omitted)
		bp_interval_add_metric(iv, "omitted", 1, "count", BP_BETTER_NONE);
}

/*
 * When the two ends' spans are not the same length (more than BP_SPAN_TOLERANCE of the
 * span), their rates cover different stretches: a side that started or stopped late, a
 * server's mark delayed by a busy machine. Every rate is still bytes over its own span; the
 * warning says which spans differed and by how much.
 */
static void span_warning(struct bp_result *r, const struct direction *d,
			 const struct span_check *c)
{
	double ss = bp_net_results_seconds(d->sender, true);
	double gs = bp_net_results_seconds(d->receiver, false);
	bool totals = d->sender->nstreams && d->receiver->nstreams && ss > 0 && gs > 0 &&
		      fabs(gs - ss) > BP_SPAN_TOLERANCE * fmax(ss, gs);
	char ivs[160] = "";

	if (c->n)
		snprintf(ivs, sizeof(ivs), "%s%d of %d intervals (the most, %.0f ms, in "
			 "%.2f-%.2f s)", totals ? "; so do " : "", c->n, c->of,
			 c->worst_s * 1e3, c->worst_start, c->worst_end);
	if (totals)
		bp_result_add_warning(r, "spans-differ", "%sthe sender counted over %.3f s and the "
				      "receiver over %.3f s (%.0f ms apart; each rate is over its "
				      "own span)%s", d->prefix, ss, gs, fabs(gs - ss) * 1e3, ivs);
	else if (c->n)
		bp_result_add_warning(r, "spans-differ", "%sthe sender's and the receiver's spans "
				      "differ by more than %.0f %% in %s (each rate is over its own "
				      "span)", d->prefix, BP_SPAN_TOLERANCE * 100, ivs);
}

/*
 * TCP: both ends count the bytes that reached the receiving TCP, so their rates agree but
 * for the stretch their spans do not share. When they differ by more than
 * BP_SIDES_TOLERANCE, say by how much and the likeliest reason.
 */
static void agreement_warning(struct bp_result *r, const struct direction *d)
{
	uint64_t sent = bp_net_results_bytes(d->sender, true);
	uint64_t got = bp_net_results_bytes(d->receiver, false);
	double ss = bp_net_results_seconds(d->sender, true);
	double gs = bp_net_results_seconds(d->receiver, false);
	double sr = rate(sent, ss), gr = rate(got, gs);
	const char *why;

	if (!d->sender->nstreams || !d->receiver->nstreams || !isfinite(sr) || !isfinite(gr) ||
	    fabs(sr - gr) <= BP_SIDES_TOLERANCE * fmax(sr, gr))
		return;
	if (d->sender->from_iperf3)
		why = "the sender is a stock iperf3, which counts what it wrote into its socket "
		      "buffers, not what arrived";
	else if (!strcmp(d->sender->sent_counts, "written") &&
		 json_is_true(json_object_get(r->params, "sctp")))
		why = "SCTP reports no acknowledged bytes: the sender counted what it wrote into "
		      "its socket buffers";
	else if (!strcmp(d->sender->sent_counts, "written"))
		why = "the sender's kernel does not report acknowledged bytes (TCP_INFO before "
		      "Linux 4.1): it counted what it wrote into its socket buffers";
	else if (fabs(gs - ss) > BP_SPAN_TOLERANCE * fmax(ss, gs))
		why = "their spans differ (see spans-differ): one end started or stopped late";
	else
		why = "their spans are offset by the control messages' delay and the rate "
		      "changed within it";
	bp_result_add_warning(r, "sides-disagree", "%sthe sender counted %.1f MB in %.3f s "
			      "(%.2f Gbit/s), the receiver %.1f MB in %.3f s (%.2f Gbit/s): %.1f %% "
			      "apart; %s", d->prefix, (double)sent / 1e6, ss, sr / 1e9,
			      (double)got / 1e6, gs, gr / 1e9,
			      fabs(sr - gr) / fmax(sr, gr) * 100, why);
}

/*
 * The share of the asked rate a paced UDP sender must offer before it is called behind:
 * its pacer catches up after a late wake-up, so only a sender that lost the CPU for a good
 * part of the test (a starved or stopped process) falls below it.
 */
#define BELOW_RATE_SHARE 0.9

/* The tester's own limits, named so that they are never taken for the path's. */
static void udp_warnings(struct bp_result *r, const struct bp_net_params *np,
			 const struct direction *d)
{
	uint64_t drops = bp_net_results_kernel_drops(d->receiver);
	uint64_t stalls = bp_net_results_stalls(d->sender);
	int streams = d->client_sends ? bp_net_params_up_streams(np) :
					bp_net_params_down_streams(np);
	double asked = np->bandwidth * streams;
	double ss = bp_net_results_seconds(d->sender, true);
	double offered = ss > 0 ? (double)bp_net_results_bytes(d->sender, true) * 8 / ss : NAN;

	if (drops)
		bp_result_add_warning(r, "tester-receive-overflow",
				      "%s%" PRIu64 " datagrams were dropped in the receiving tester's "
				      "socket buffer: that loss is the tester's, not the path's",
				      d->prefix, drops);
	if (stalls)
		bp_result_add_warning(r, "tester-send-stalled",
				      "%sthe sender's kernel refused %" PRIu64 " sends (socket buffer "
				      "or queue full): the offered rate may be below the target",
				      d->prefix, stalls);
	if (asked > 0 && d->sender->nstreams && isfinite(offered) &&
	    offered < BELOW_RATE_SHARE * asked)
		bp_result_add_warning(r, "tester-below-rate",
				      "%sthe sender offered %.3g Mbit/s of the %.3g Mbit/s asked "
				      "(%.0f %%): it lost the CPU for part of the test (a busy or "
				      "stopped process); the figures are for what it offered",
				      d->prefix, offered / 1e6, asked / 1e6, offered / asked * 100);
}

/* Two decimals: CPU percentages are not known better than that. */
static json_t *percent(double v)
{
	return isfinite(v) ? json_real(round(v * 100) / 100) : json_null();
}

json_t *bp_net_side_cpu_json(const struct bp_net_results *res)
{
	if (!res->nstreams)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o}", "user_percent", percent(res->cpu_user),
			 "system_percent", percent(res->cpu_system),
			 "total_percent", percent(res->cpu_total),
			 "busiest_worker_percent", percent(res->busy_max * 100));
}

void bp_net_cpu_warnings(struct bp_result *r, const struct bp_net_results *local,
			 const struct bp_net_results *remote)
{
	static const char *const side_name[] = { "client (this side)", "server" };
	const struct bp_net_results *sides[] = { local, remote };

	for (int i = 0; i < 2; i++)
		if (sides[i]->nstreams && isfinite(sides[i]->busy_max) &&
		    sides[i]->busy_max >= BP_CPU_BOUND_SHARE)
			bp_result_add_warning(r, "tester-cpu-bound",
					      "the %s's busiest data worker used %.0f %% of its "
					      "core: the figure may be the tester's limit, not the "
					      "network's", side_name[i], sides[i]->busy_max * 100);
}

/* One side's I/O path; a stock iperf3 does not say which it took. */
static json_t *mode_json(const struct bp_net_results *side, const char *mode)
{
	return json_string(mode[0] ? mode : side->from_iperf3 ? "unknown" : "none");
}

/*
 * params.send_mode names the path of the side that sent (the server's with -R, from its
 * results), receive_mode that of the side that received; "up."/"down." with --bidir.
 */
static void set_modes(struct bp_result *r, const struct direction *d)
{
	char key[32];

	snprintf(key, sizeof(key), "%ssend_mode", d->prefix);
	json_object_set_new(r->params, key, mode_json(d->sender, d->sender->send_mode));
	snprintf(key, sizeof(key), "%sreceive_mode", d->prefix);
	json_object_set_new(r->params, key, mode_json(d->receiver, d->receiver->recv_mode));
}

/*
 * params.sender_counts: what a TCP sender's bytes are, "acked" (that reached the receiving
 * TCP) or "written" (into its socket: a stock iperf3, a kernel before 4.1).
 */
static void set_sent_counts(struct bp_result *r, const struct direction *d)
{
	const char *c = d->sender->from_iperf3 ? "written" : d->sender->sent_counts;
	char key[32];

	snprintf(key, sizeof(key), "%ssender_counts", d->prefix);
	json_object_set_new(r->params, key, json_string(c[0] ? c : "none"));
}

/*
 * params.congestion_used: the TCP congestion control the side that sent ran (its own
 * results say; "unknown" from a stock iperf3 or an older boardperf); "up."/"down." with
 * --bidir.
 */
static void set_congestion(struct bp_result *r, const struct direction *d)
{
	char key[40];

	snprintf(key, sizeof(key), "%scongestion_used", d->prefix);
	json_object_set_new(r->params, key, json_string(d->sender->congestion[0] ?
							d->sender->congestion : "unknown"));
}

int bp_stream_report(struct bp_result *r, const struct bp_net_params *np,
		  const struct bp_stream_outcome *out)
{
	struct direction dirs[2];
	int n = 0, rc = 0;

	if (bp_net_params_up_streams(np))
		dirs[n++] = (struct direction){ np->bidir ? "up." : "", out->local, out->remote,
						true, false, false };
	if (bp_net_params_down_streams(np))
		dirs[n++] = (struct direction){ np->bidir ? "down." : "", out->remote, out->local,
						false, false, false };
	for (int i = 0; i < n && !rc; i++) {
		peer_check(r, &dirs[i], bp_net_params_udp(np));
		rc = report_direction(r, &dirs[i]);
		if (!rc && bp_net_params_udp(np))
			rc = report_udp(r, &dirs[i]);
		if (!rc && bp_net_params_udp(np))
			udp_warnings(r, np, &dirs[i]);
		if (!rc && bp_net_params_udp(np)) {
			struct bp_welford w;

			/* the receiver's clock reads the later time: the server's when it receives */
			bp_net_results_owd(dirs[i].receiver, &w);
			rc = bp_report_owd(r, dirs[i].prefix, &w, out->this_host,
					   dirs[i].client_sends);
		}
	}
	if (rc)
		return rc;
	struct span_check checks[2] = { { 0 }, { 0 } };

	report_intervals(r, dirs, n, out->local, checks);
	for (int i = 0; i < n; i++) {
		span_warning(r, &dirs[i], &checks[i]);
		if (!bp_net_params_udp(np))
			agreement_warning(r, &dirs[i]);
	}
	rc = bp_stream_report_streams(r, np, out->local, out->remote);
	if (rc)
		return rc;
	bp_result_set_cpu(r, json_pack("{s:o, s:o}", "local", bp_net_side_cpu_json(out->local),
				       "remote", bp_net_side_cpu_json(out->remote)));
	bp_net_cpu_warnings(r, out->local, out->remote);
	if (out->data_stopped)
		bp_result_add_warning(r, "data-stopped", "no data moved after %.1f s of the %.1f s "
				      "planned (nothing for %g s, --idle-timeout): a cut link or a "
				      "server gone; totals and rates cover the time data moved%s",
				      out->stopped_s, (double)(np->omit_ns + np->time_ns) / 1e9,
				      out->idle_s, out->remote->nstreams ? "" :
				      ", and the server's figures never arrived");
	if ((np->num_bytes || np->num_blocks) && !out->count_reached && !out->interrupted &&
	    !out->data_stopped)
		bp_result_add_warning(r, "count-cut", "the -t cut ended the test (after %.0f s) "
				      "before its %s %llu were through: the figures cover the time "
				      "it ran; give a longer -t", (double)np->time_ns / 1e9,
				      np->num_bytes ? "-n" : "-k", (unsigned long long)
				      (np->num_bytes ? np->num_bytes : np->num_blocks));
	if (out->interrupted)
		bp_result_add_warning(r, "interrupted", "stopped early after %.1f s of %.1f s%s",
				      out->duration_s, (double)(np->omit_ns + np->time_ns) / 1e9,
				      out->remote->nstreams ? "" : "; the server's figures are missing");
	if (out->this_host)
		bp_result_warn_this_host(r, out->server_addr);
	json_object_set_new(r->params, "server", json_string(out->server_addr));
	for (int i = 0; i < n; i++) {
		set_modes(r, &dirs[i]);
		if (!bp_net_params_udp(np)) {
			set_sent_counts(r, &dirs[i]);
			set_congestion(r, &dirs[i]);
		}
	}
	json_object_set_new(r->params, "workers", json_integer(out->pool_workers));
	if (out->started_ns && bp_start_at_record(r, out->start_at_ns, out->started_ns))
		return -ENOMEM;
	return bp_net_path_attach(r, out->path, bp_net_path_top_bitrate(r));
}

int bp_net_run_and_report(const struct bp_stream_client_opts *o, struct bp_result *r,
			  char *err, size_t errlen)
{
	struct bp_stream_outcome out;
	int rc = bp_stream_client_run(o, &out, err, errlen), report_rc = 0;

	/* Whatever both sides measured is reported, also when the exchange failed late. */
	if (out.local && out.remote)
		report_rc = bp_stream_report(r, &o->np, &out);
	bp_stream_outcome_free(&out);
	return rc ? rc : report_rc;
}
