#include "stream/stream_streams.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "proto/results_streams.h"

/* One side of one stream: its results and the stream's index there (-1: not there). */
struct end {
	const struct bp_net_results *res;
	int i;
};

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* TCP_INFO leaves 0 when it does not know; the contract says null. scale: to base units. */
static json_t *known(uint64_t v, uint64_t scale)
{
	return v ? json_integer((json_int_t)(v * scale)) : json_null();
}

static double bitrate(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes * 8 / seconds : NAN;
}

static int find_id(const struct bp_net_results *r, int id)
{
	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].id == id)
			return i;
	return -1;
}

/* The sender's totals: bytes over its own span, and what only a sender knows. */
static json_t *sender_end(const struct end *e, bool udp)
{
	const struct bp_net_stream_result *s = &e->res->streams[e->i];
	json_t *o = json_pack("{s:f, s:f, s:I, s:o}", "start", s->start_s, "end", s->end_s,
			      "bytes", (json_int_t)s->bytes,
			      "bitrate", real_or_null(bitrate(s->bytes, s->end_s - s->start_s)));

	if (!o)
		return NULL;
	if (udp) {
		json_object_set_new(o, "packets", json_integer((json_int_t)s->packets));
		json_object_set_new(o, "stalls", json_integer((json_int_t)s->stalls));
		return o;
	}
	json_object_set_new(o, "retransmits", s->retransmits >= 0 ?
			    json_integer(s->retransmits) : json_null());
	json_object_set_new(o, "snd_cwnd", known(s->snd_cwnd, 1));
	json_object_set_new(o, "rtt", known(s->rtt_us, 1000));
	json_object_set_new(o, "rttvar", known(s->rttvar_us, 1000));
	json_object_set_new(o, "pmtu", known(s->pmtu, 1));
	return o;
}

/* sent: the sender's datagrams, for the loss ratio (0 when unknown). */
static json_t *receiver_end(const struct end *e, bool udp, uint64_t sent)
{
	const struct bp_net_stream_result *s = &e->res->streams[e->i];
	json_t *o = json_pack("{s:f, s:f, s:I, s:o}", "start", s->start_s, "end", s->end_s,
			      "bytes", (json_int_t)s->bytes,
			      "bitrate", real_or_null(bitrate(s->bytes, s->end_s - s->start_s)));

	/* more lost than sent, past the report's slack (stream_report.c, peer_check): the
	 * figures are impossible together and the result warns; null, never above 100 % */
	bool absurd = sent && (double)s->lost > (double)sent * 1.05 + 64;

	if (!o || !udp)
		return o;
	json_object_set_new(o, "packets", json_integer((json_int_t)s->packets));
	json_object_set_new(o, "lost_packets", absurd ? json_null() : json_integer(s->lost));
	json_object_set_new(o, "loss_percent", sent && !absurd ?
			    json_real((double)s->lost / (double)sent * 100) : json_null());
	json_object_set_new(o, "jitter", json_real(round(s->jitter_ns)));
	json_object_set_new(o, "out_of_order", json_integer((json_int_t)s->out_of_order));
	json_object_set_new(o, "duplicates", json_integer((json_int_t)s->duplicates));
	json_object_set_new(o, "kernel_drops", json_integer((json_int_t)s->kernel_drops));
	return o;
}

/*
 * Stream li of the local side, its peer found by id: who sent and who received decides
 * which side's figures go where. A stock iperf3's roles were mirrored from ours already.
 */
static void ends_of(const struct bp_net_results *local, const struct bp_net_results *remote,
		    int li, struct end *snd, struct end *rcv, bool *up)
{
	int ri = find_id(remote, local->streams[li].id);

	*up = local->streams[li].sender;
	*snd = *up ? (struct end){ local, li } : (struct end){ remote, ri };
	*rcv = *up ? (struct end){ remote, ri } : (struct end){ local, li };
}

static json_t *entry(int id, bool up, json_t *snd, json_t *rcv)
{
	return json_pack("{s:i, s:s, s:o, s:o}", "id", id, "direction", up ? "up" : "down",
			 "sender", snd ? snd : json_null(), "receiver", rcv ? rcv : json_null());
}

static json_t *end_streams(const struct bp_net_params *np, const struct bp_net_results *local,
			   const struct bp_net_results *remote)
{
	bool udp = bp_net_params_udp(np);
	json_t *a = json_array();

	for (int li = 0; a && li < local->nstreams; li++) {
		struct end snd, rcv;
		bool up;
		uint64_t sent;

		ends_of(local, remote, li, &snd, &rcv, &up);
		sent = snd.i >= 0 ? snd.res->streams[snd.i].packets : 0;
		if (json_array_append_new(a, entry(local->streams[li].id, up,
						   snd.i >= 0 ? sender_end(&snd, udp) : NULL,
						   rcv.i >= 0 ? receiver_end(&rcv, udp, sent) : NULL))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/*
 * Stream e's share of side interval k; when k is the last interval the client has, the
 * side's later ones are folded in (the server stops a moment after the client), as the
 * totals per interval are. False when the side kept no record of some of them.
 */
static bool side_interval(const struct end *e, int k, bool last, struct bp_net_stream_interval *v,
			  double *seconds)
{
	const struct bp_net_results *r = e->res;
	int to = last ? r->nintervals - 1 : k;

	if (e->i < 0 || k >= r->nintervals || to >= r->stream_ivs.nintervals)
		return false;
	*v = *bp_net_stream_interval_at(r, k, e->i);
	for (int j = k + 1; j <= to; j++) {
		const struct bp_net_stream_interval *n = bp_net_stream_interval_at(r, j, e->i);

		v->bytes += n->bytes;
		v->packets += n->packets;
		v->lost += n->lost;
		if (n->retransmits >= 0)
			v->retransmits = (v->retransmits < 0 ? 0 : v->retransmits) + n->retransmits;
		/* the state at the interval's end: the last one's */
		v->cwnd = n->cwnd;
		v->rtt_us = n->rtt_us;
		v->rttvar_us = n->rttvar_us;
		v->pmtu = n->pmtu;
		v->jitter_ns = n->jitter_ns;
	}
	*seconds = r->intervals[to].end_s - r->intervals[k].start_s;
	return true;
}

static json_t *interval_side(const struct end *e, int k, bool last, bool udp, bool sender)
{
	struct bp_net_stream_interval v;
	double sec;
	json_t *o;

	if (!side_interval(e, k, last, &v, &sec))
		return NULL;
	o = json_pack("{s:f, s:I, s:o}", "seconds", sec, "bytes", (json_int_t)v.bytes,
		      "bitrate", real_or_null(bitrate(v.bytes, sec)));
	if (!o)
		return NULL;
	if (udp) {
		json_object_set_new(o, "packets", json_integer((json_int_t)v.packets));
		if (!sender) {
			json_object_set_new(o, "lost_packets", json_integer(v.lost));
			json_object_set_new(o, "jitter", json_real(round(v.jitter_ns)));
		}
	} else if (sender) {
		json_object_set_new(o, "retransmits", v.retransmits >= 0 ?
				    json_integer(v.retransmits) : json_null());
		json_object_set_new(o, "snd_cwnd", known(v.cwnd, 1));
		json_object_set_new(o, "rtt", known(v.rtt_us, 1000));
		json_object_set_new(o, "rttvar", known(v.rttvar_us, 1000));
		json_object_set_new(o, "pmtu", known(v.pmtu, 1));
	}
	return o;
}

/* Interval k's streams, or null when neither side kept any of them (past the bound). */
static json_t *interval_streams(const struct bp_net_params *np, const struct bp_net_results *local,
				const struct bp_net_results *remote, int k)
{
	bool udp = bp_net_params_udp(np), last = k == local->nintervals - 1, any = false;
	json_t *a = json_array();

	for (int li = 0; a && li < local->nstreams; li++) {
		struct end snd, rcv;
		bool up;
		json_t *s, *g;

		ends_of(local, remote, li, &snd, &rcv, &up);
		s = interval_side(&snd, k, last, udp, true);
		g = interval_side(&rcv, k, last, udp, false);
		any |= s || g;
		if (json_array_append_new(a, entry(local->streams[li].id, up, s, g))) {
			json_decref(a);
			return NULL;
		}
	}
	if (a && !any) {
		json_decref(a);
		return json_null();
	}
	return a;
}

json_t *bp_stream_streams_json(const struct bp_net_params *np, const struct bp_net_results *local,
			       const struct bp_net_results *remote)
{
	json_t *ivs = json_array(), *end = end_streams(np, local, remote);

	for (int k = 0; ivs && end && k < local->nintervals; k++)
		if (json_array_append_new(ivs, interval_streams(np, local, remote, k)))
			goto fail;
	if (ivs && end)
		return json_pack("{s:o, s:o}", "end", end, "intervals", ivs);
fail:
	json_decref(ivs);
	json_decref(end);
	return NULL;
}

/*
 * A side that kept per-stream records for fewer intervals than it reported. One with none
 * at all (a peer that sends no series, or one dropped as malformed) was not cut short.
 */
static bool short_series(const struct bp_net_results *r)
{
	return r->nstreams && !r->from_iperf3 && r->stream_ivs.nintervals > 0 &&
	       r->stream_ivs.nintervals < r->nintervals;
}

int bp_stream_report_streams(struct bp_result *r, const struct bp_net_params *np,
			     const struct bp_net_results *local,
			     const struct bp_net_results *remote)
{
	json_t *j = bp_stream_streams_json(np, local, remote);

	if (!j)
		return -ENOMEM;
	bp_result_set_streams(r, j);
	if (short_series(local) || short_series(remote))
		bp_result_add_warning(r, "stream-intervals-truncated",
				      "per-stream figures are kept for at most %d stream-intervals "
				      "per side: the later intervals carry none (the totals do)",
				      BP_NET_MAX_STREAM_INTERVALS);
	return 0;
}
