#include "proto/results.h"
#include "proto/results_streams.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* iperf3's stream keys (jitter in seconds, errors = lost datagrams) plus boardperf's. */
static json_t *stream_json(const struct bp_net_stream_result *s)
{
	return json_pack("{s:i, s:I, s:I, s:f, s:I, s:I, s:f, s:f, s:b, s:I, s:I, s:I, s:I}",
			 "id", s->id, "bytes", (json_int_t)s->bytes,
			 "retransmits", (json_int_t)s->retransmits, "jitter", s->jitter_ns / 1e9,
			 "errors", (json_int_t)s->lost, "packets", (json_int_t)s->packets,
			 "start_time", s->start_s, "end_time", s->end_s, "bp_sender", s->sender,
			 "bp_out_of_order", (json_int_t)s->out_of_order,
			 "bp_duplicates", (json_int_t)s->duplicates,
			 "bp_kernel_drops", (json_int_t)s->kernel_drops,
			 "bp_stalls", (json_int_t)s->stalls);
}

static json_t *intervals_json(const struct bp_net_results *r)
{
	json_t *a = json_array();

	for (int i = 0; a && i < r->nintervals; i++) {
		const struct bp_net_interval *iv = &r->intervals[i];

		json_array_append_new(a, json_pack("{s:f, s:f, s:I, s:I, s:I, s:i, s:i, s:b, s:I, "
						   "s:I, s:I, s:f}",
						   "start", iv->start_s, "end", iv->end_s,
						   "sent", (json_int_t)iv->sent,
						   "received", (json_int_t)iv->received,
						   "retransmits", (json_int_t)iv->retransmits,
						   "cwnd", (int)iv->cwnd, "rtt_us", (int)iv->rtt_us,
						   "omitted", iv->omitted,
						   "packets_sent", (json_int_t)iv->packets_sent,
						   "packets_received", (json_int_t)iv->packets_received,
						   "lost", (json_int_t)iv->lost,
						   "jitter_ns", iv->jitter_ns));
	}
	return a;
}

json_t *bp_net_results_to_json(const struct bp_net_results *r)
{
	json_t *streams = json_array();
	int has_retrans = 0;

	for (int i = 0; streams && i < r->nstreams; i++) {
		json_array_append_new(streams,
				      bp_net_stream_extras_to_json(stream_json(&r->streams[i]), r, i));
		has_retrans |= r->streams[i].sender && r->streams[i].retransmits >= 0;
	}
	return json_pack("{s:f, s:f, s:f, s:i, s:s, s:o, s:o, s:o, s:s, s:s, s:s}",
			 "cpu_util_total", r->cpu_total, "cpu_util_user", r->cpu_user,
			 "cpu_util_system", r->cpu_system, "sender_has_retransmits", has_retrans,
			 "congestion_used", r->congestion[0] ? r->congestion : "unknown",
			 "streams", streams, "bp_intervals", intervals_json(r),
			 "bp_busy_max", isfinite(r->busy_max) ? json_real(r->busy_max) : json_null(),
			 "bp_send_mode", r->send_mode, "bp_receive_mode", r->recv_mode,
			 "bp_sent_counts", r->sent_counts);
}

static double num(const json_t *j, const char *key, double def)
{
	const json_t *v = json_object_get(j, key);

	return json_is_number(v) ? json_number_value(v) : def;
}

static void read_intervals(const json_t *a, struct bp_net_results *r)
{
	size_t i;
	json_t *v;

	r->nintervals = 0;
	json_array_foreach(a, i, v) {
		struct bp_net_interval *iv;

		if (r->nintervals == BP_NET_MAX_INTERVALS)
			break;
		iv = &r->intervals[r->nintervals++];
		iv->start_s = num(v, "start", 0);
		iv->end_s = num(v, "end", 0);
		iv->sent = (uint64_t)num(v, "sent", 0);
		iv->received = (uint64_t)num(v, "received", 0);
		iv->retransmits = (int64_t)num(v, "retransmits", -1);
		iv->cwnd = (uint32_t)num(v, "cwnd", 0);
		iv->rtt_us = (uint32_t)num(v, "rtt_us", 0);
		iv->packets_sent = (uint64_t)num(v, "packets_sent", 0);
		iv->packets_received = (uint64_t)num(v, "packets_received", 0);
		iv->lost = (int64_t)num(v, "lost", 0);
		iv->jitter_ns = num(v, "jitter_ns", 0);
		iv->omitted = json_is_true(json_object_get(v, "omitted"));
	}
}

int bp_net_results_from_json(const json_t *j, struct bp_net_results *r)
{
	const json_t *streams = json_object_get(j, "streams");
	const char *cc = json_string_value(json_object_get(j, "congestion_used"));
	const char *sm = json_string_value(json_object_get(j, "bp_send_mode"));
	const char *rm = json_string_value(json_object_get(j, "bp_receive_mode"));
	const char *sc = json_string_value(json_object_get(j, "bp_sent_counts"));
	size_t i;
	json_t *s;

	memset(r, 0, sizeof(*r));
	if (!json_is_array(streams))
		return -EBADMSG;
	r->cpu_total = num(j, "cpu_util_total", NAN);
	r->cpu_user = num(j, "cpu_util_user", NAN);
	r->cpu_system = num(j, "cpu_util_system", NAN);
	r->busy_max = num(j, "bp_busy_max", NAN);
	snprintf(r->congestion, sizeof(r->congestion), "%s", cc ? cc : "");
	snprintf(r->send_mode, sizeof(r->send_mode), "%s", sm ? sm : "");
	snprintf(r->recv_mode, sizeof(r->recv_mode), "%s", rm ? rm : "");
	/* only the two words: the peer's string is shown to the user */
	if (sc && (!strcmp(sc, "acked") || !strcmp(sc, "written")))
		snprintf(r->sent_counts, sizeof(r->sent_counts), "%s", sc);
	json_array_foreach(streams, i, s) {
		struct bp_net_stream_result *sr;

		if (r->nstreams == BP_NET_MAX_STREAMS)
			break;
		sr = &r->streams[r->nstreams++];
		sr->id = (int)num(s, "id", 0);
		sr->bytes = (uint64_t)num(s, "bytes", 0);
		sr->retransmits = (int64_t)num(s, "retransmits", -1);
		sr->start_s = num(s, "start_time", 0);
		sr->end_s = num(s, "end_time", 0);
		sr->sender = json_is_true(json_object_get(s, "bp_sender"));
		sr->packets = (uint64_t)num(s, "packets", 0);
		sr->lost = (int64_t)num(s, "errors", 0);
		sr->jitter_ns = num(s, "jitter", 0) * 1e9;
		sr->out_of_order = (uint64_t)num(s, "bp_out_of_order", 0);
		sr->duplicates = (uint64_t)num(s, "bp_duplicates", 0);
		sr->kernel_drops = (uint64_t)num(s, "bp_kernel_drops", 0);
		sr->stalls = (uint64_t)num(s, "bp_stalls", 0);
		bp_net_stream_tcp_info_from_json(s, sr);
	}
	bp_net_stream_series_from_json(streams, r);
	read_intervals(json_object_get(j, "bp_intervals"), r);
	r->from_iperf3 = !json_object_get(j, "bp_intervals");
	return 0;
}

void bp_net_results_mirror_roles(struct bp_net_results *r, const struct bp_net_results *peer)
{
	for (int i = 0; i < r->nstreams; i++)
		for (int k = 0; k < peer->nstreams; k++)
			if (peer->streams[k].id == r->streams[i].id)
				r->streams[i].sender = !peer->streams[k].sender;
}

/* Sum of one uint64_t field of the streams this side sent on (sender) or received on. */
static uint64_t sum_field(const struct bp_net_results *r, bool sender, size_t offset)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].sender == sender)
			sum += *(const uint64_t *)((const char *)&r->streams[i] + offset);
	return sum;
}

uint64_t bp_net_results_bytes(const struct bp_net_results *r, bool sender)
{
	return sum_field(r, sender, offsetof(struct bp_net_stream_result, bytes));
}

/* The longest counted span among those streams: streams run side by side. */
double bp_net_results_seconds(const struct bp_net_results *r, bool sender)
{
	double longest = 0;

	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].sender == sender &&
		    r->streams[i].end_s - r->streams[i].start_s > longest)
			longest = r->streams[i].end_s - r->streams[i].start_s;
	return longest;
}

int64_t bp_net_results_retransmits(const struct bp_net_results *r)
{
	int64_t sum = 0;
	bool known = false;

	for (int i = 0; i < r->nstreams; i++)
		if (r->streams[i].sender && r->streams[i].retransmits >= 0) {
			sum += r->streams[i].retransmits;
			known = true;
		}
	return known ? sum : -1;
}

uint64_t bp_net_results_packets(const struct bp_net_results *r, bool sender)
{
	return sum_field(r, sender, offsetof(struct bp_net_stream_result, packets));
}

int64_t bp_net_results_lost(const struct bp_net_results *r)
{
	int64_t sum = 0;

	for (int i = 0; i < r->nstreams; i++)
		if (!r->streams[i].sender)
			sum += r->streams[i].lost;
	return sum;
}

uint64_t bp_net_results_kernel_drops(const struct bp_net_results *r)
{
	return sum_field(r, false, offsetof(struct bp_net_stream_result, kernel_drops));
}

uint64_t bp_net_results_out_of_order(const struct bp_net_results *r)
{
	return sum_field(r, false, offsetof(struct bp_net_stream_result, out_of_order));
}

uint64_t bp_net_results_duplicates(const struct bp_net_results *r)
{
	return sum_field(r, false, offsetof(struct bp_net_stream_result, duplicates));
}

uint64_t bp_net_results_stalls(const struct bp_net_results *r)
{
	return sum_field(r, true, offsetof(struct bp_net_stream_result, stalls));
}

double bp_net_results_jitter_ns(const struct bp_net_results *r)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < r->nstreams; i++)
		if (!r->streams[i].sender) {
			sum += r->streams[i].jitter_ns;
			n++;
		}
	return n ? sum / n : 0;
}
