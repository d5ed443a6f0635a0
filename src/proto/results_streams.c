#include "proto/results_streams.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The fields of one "bp_intervals" record, in their order on the wire. */
enum { F_BYTES, F_RETRANS, F_CWND, F_RTT, F_RTTVAR, F_PMTU, F_PACKETS, F_LOST, F_JITTER,
       F_COUNT };

static json_t *record_json(const struct bp_net_stream_interval *v)
{
	return json_pack("[I, I, I, I, I, I, I, I, I]", (json_int_t)v->bytes,
			 (json_int_t)v->retransmits, (json_int_t)v->cwnd, (json_int_t)v->rtt_us,
			 (json_int_t)v->rttvar_us, (json_int_t)v->pmtu, (json_int_t)v->packets,
			 (json_int_t)v->lost, (json_int_t)llround(v->jitter_ns));
}

const struct bp_net_stream_interval *bp_net_stream_interval_at(const struct bp_net_results *r,
							       int k, int i)
{
	const struct bp_net_stream_series *s = &r->stream_ivs;

	if (k < 0 || k >= s->nintervals || i < 0 || i >= s->stride)
		return NULL;
	return &s->rec[k * s->stride + i];
}

json_t *bp_net_stream_extras_to_json(json_t *o, const struct bp_net_results *r, int i)
{
	const struct bp_net_stream_result *s = &r->streams[i];
	json_t *ivs = json_array();

	if (!o || !ivs) {
		json_decref(ivs);
		return o;
	}
	for (int k = 0; k < r->stream_ivs.nintervals; k++) {
		const struct bp_net_stream_interval *v = bp_net_stream_interval_at(r, k, i);

		if (v)
			json_array_append_new(ivs, record_json(v));
	}
	json_object_set_new(o, "bp_snd_cwnd", json_integer(s->snd_cwnd));
	json_object_set_new(o, "bp_rtt_us", json_integer(s->rtt_us));
	json_object_set_new(o, "bp_rttvar_us", json_integer(s->rttvar_us));
	json_object_set_new(o, "bp_pmtu", json_integer(s->pmtu));
	json_object_set_new(o, "bp_intervals", ivs);
	return o;
}

/* An integer from a peer within [lo, hi], else false: never trust its range. */
static bool int_in(const json_t *v, double lo, double hi, int64_t *out)
{
	double d;

	if (!json_is_number(v))
		return false;
	d = json_number_value(v);
	if (!isfinite(d) || d < lo || d > hi || d != floor(d))
		return false;
	*out = (int64_t)d;
	return true;
}

static uint32_t u32_or_zero(const json_t *o, const char *key)
{
	int64_t v;

	return int_in(json_object_get(o, key), 0, UINT32_MAX, &v) ? (uint32_t)v : 0;
}

void bp_net_stream_tcp_info_from_json(const json_t *o, struct bp_net_stream_result *s)
{
	s->snd_cwnd = u32_or_zero(o, "bp_snd_cwnd");
	s->rtt_us = u32_or_zero(o, "bp_rtt_us");
	s->rttvar_us = u32_or_zero(o, "bp_rttvar_us");
	s->pmtu = u32_or_zero(o, "bp_pmtu");
}

/* 2^62: beyond any byte or datagram count a test can reach, and exact in a double. */
#define BIG 4611686018427387904.0

static bool record_from_json(const json_t *a, struct bp_net_stream_interval *v)
{
	static const double lo[F_COUNT] = { 0, -1, 0, 0, 0, 0, 0, -BIG, 0 };
	static const double hi[F_COUNT] = { BIG, BIG, UINT32_MAX, UINT32_MAX, UINT32_MAX,
					    UINT32_MAX, BIG, BIG, BIG };
	int64_t f[F_COUNT];

	if (!json_is_array(a) || json_array_size(a) != F_COUNT)
		return false;
	for (size_t k = 0; k < F_COUNT; k++)
		if (!int_in(json_array_get(a, k), lo[k], hi[k], &f[k]))
			return false;
	*v = (struct bp_net_stream_interval){
		.bytes = (uint64_t)f[F_BYTES], .retransmits = f[F_RETRANS],
		.cwnd = (uint32_t)f[F_CWND], .rtt_us = (uint32_t)f[F_RTT],
		.rttvar_us = (uint32_t)f[F_RTTVAR], .pmtu = (uint32_t)f[F_PMTU],
		.packets = (uint64_t)f[F_PACKETS], .lost = f[F_LOST],
		.jitter_ns = (double)f[F_JITTER],
	};
	return true;
}

/* The number of intervals every stream has, or -1 when any array is missing or too long. */
static long common_length(const json_t *streams, int n)
{
	long len = -1;

	for (int i = 0; i < n; i++) {
		const json_t *a = json_object_get(json_array_get(streams, (size_t)i), "bp_intervals");

		if (!json_is_array(a) || (len >= 0 && (long)json_array_size(a) != len))
			return -1;
		len = (long)json_array_size(a);
	}
	if (len < 0 || len * n > BP_NET_MAX_STREAM_INTERVALS)
		return -1;
	return len;
}

void bp_net_stream_series_from_json(const json_t *streams, struct bp_net_results *r)
{
	struct bp_net_stream_series *s = &r->stream_ivs;
	long len = common_length(streams, r->nstreams);

	s->stride = r->nstreams;
	s->nintervals = 0;
	if (len <= 0)
		return;
	for (int i = 0; i < r->nstreams; i++) {
		const json_t *a = json_object_get(json_array_get(streams, (size_t)i), "bp_intervals");

		for (long k = 0; k < len; k++)
			if (!record_from_json(json_array_get(a, (size_t)k),
					      &s->rec[k * s->stride + i]))
				return;
	}
	s->nintervals = (int)len;
}
