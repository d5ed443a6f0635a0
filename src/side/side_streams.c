#include "side/side_streams.h"

#include <string.h>

#include "io/sock.h"

void bp_side_streams_start(struct bp_stream_side *s)
{
	struct bp_net_stream_series *ser = &s->res->stream_ivs;

	ser->stride = s->n;
	ser->nintervals = 0;
	ser->truncated = false;
	for (int i = 0; i < s->n; i++) {
		ser->last_bytes[i] = s->last_bytes[i];
		ser->last_packets[i] = s->last_packets[i];
		ser->last_lost[i] = s->last_lost[i];
		ser->last_retrans[i] = s->last_retrans[i];
	}
}

/* A TCP sender's window, RTT and path MTU as TCP_INFO has them now; false when unknown. */
static bool tcp_state(const struct bp_stream_side *s, int i, struct bp_tcp_info *ti)
{
	return !s->udp[i] && s->sender[i] && !bp_tcp_info_read(bp_stream_fd(s->streams[i]), ti) &&
	       ti->valid;
}

/*
 * The side's counters were read once for the interval it just closed (s->last_*); each
 * stream's share is their growth since the previous mark, so the streams add up to the
 * interval's figures exactly.
 */
static void record(struct bp_stream_side *s, int i, struct bp_net_stream_interval *v)
{
	struct bp_net_stream_series *ser = &s->res->stream_ivs;
	struct bp_tcp_info ti;

	memset(v, 0, sizeof(*v));
	v->bytes = s->last_bytes[i] - ser->last_bytes[i];
	v->retransmits = -1;
	if (s->udp[i]) {
		struct bp_udp_stats us;

		v->packets = s->last_packets[i] - ser->last_packets[i];
		v->lost = s->last_lost[i] - ser->last_lost[i];
		if (!s->sender[i]) {
			bp_udp_stream_stats(s->udp[i], &us);
			v->jitter_ns = us.jitter_ns;
		}
	} else if (tcp_state(s, i, &ti)) {
		if (s->last_retrans[i] >= ser->last_retrans[i])
			v->retransmits = s->last_retrans[i] - ser->last_retrans[i];
		v->cwnd = ti.snd_cwnd * ti.snd_mss;
		v->rtt_us = ti.rtt_us;
		v->rttvar_us = ti.rttvar_us;
		v->pmtu = ti.pmtu;
	}
	ser->last_bytes[i] = s->last_bytes[i];
	ser->last_packets[i] = s->last_packets[i];
	ser->last_lost[i] = s->last_lost[i];
	ser->last_retrans[i] = s->last_retrans[i];
}

void bp_side_streams_mark(struct bp_stream_side *s)
{
	struct bp_net_stream_series *ser = &s->res->stream_ivs;
	int k = s->res->nintervals - 1;

	/* One record row per interval, in step with the side's intervals, while they fit. */
	if (ser->truncated || k != ser->nintervals || ser->stride <= 0)
		return;
	if ((k + 1) * ser->stride > BP_NET_MAX_STREAM_INTERVALS) {
		ser->truncated = true;
		return;
	}
	for (int i = 0; i < ser->stride && i < s->n; i++)
		record(s, i, &ser->rec[k * ser->stride + i]);
	ser->nintervals++;
}

void bp_side_streams_stop(struct bp_stream_side *s)
{
	for (int i = 0; i < s->n; i++) {
		struct bp_net_stream_result *r = &s->res->streams[i];
		struct bp_tcp_info ti;

		if (!tcp_state(s, i, &ti))
			continue;
		r->snd_cwnd = ti.snd_cwnd * ti.snd_mss;
		r->rtt_us = ti.rtt_us;
		r->rttvar_us = ti.rttvar_us;
		r->pmtu = ti.pmtu;
	}
}
