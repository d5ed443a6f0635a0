#include "proto/results.h"
#include "proto/results_streams.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "proto/peer_json.h"

/* iperf3's stream keys (jitter in seconds, errors = lost datagrams) plus boardperf's. */
static json_t *stream_json(const struct bp_net_stream_result *s)
{
	return json_pack("{s:i, s:I, s:I, s:f, s:I, s:I, s:f, s:f, s:b, s:I, s:I, s:I, s:I, s:I}",
			 "id", s->id, "bytes", (json_int_t)s->bytes,
			 "retransmits", (json_int_t)s->retransmits, "jitter", s->jitter_ns / 1e9,
			 "errors", (json_int_t)s->lost, "packets", (json_int_t)s->packets,
			 "start_time", s->start_s, "end_time", s->end_s, "bp_sender", s->sender,
			 "bp_out_of_order", (json_int_t)s->out_of_order,
			 "bp_duplicates", (json_int_t)s->duplicates,
			 "bp_kernel_drops", (json_int_t)s->kernel_drops,
			 "bp_stalls", (json_int_t)s->stalls,
			 "bp_implausible", (json_int_t)s->implausible);
}

static json_t *intervals_json(const struct bp_net_results *r)
{
	json_t *a = json_array();

	for (int i = 0; a && i < r->nintervals; i++) {
		const struct bp_net_interval *iv = &r->intervals[i];

		json_array_append_new(a, json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:b, s:I, "
						   "s:I, s:I, s:f}",
						   "start", iv->start_s, "end", iv->end_s,
						   "sent", (json_int_t)iv->sent,
						   "received", (json_int_t)iv->received,
						   "retransmits", (json_int_t)iv->retransmits,
						   "cwnd", (json_int_t)iv->cwnd,
						   "rtt_us", (json_int_t)iv->rtt_us,
						   "omitted", iv->omitted,
						   "packets_sent", (json_int_t)iv->packets_sent,
						   "packets_received", (json_int_t)iv->packets_received,
						   "lost", (json_int_t)iv->lost,
						   "jitter_ns", iv->jitter_ns));
	}
	return a;
}

/* Unknown (NAN, as read from a peer that sent none) goes out as null: JSON has no NaN. */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
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
	return json_pack("{s:o, s:o, s:o, s:i, s:s, s:o, s:o, s:o, s:s, s:s, s:s}",
			 "cpu_util_total", real_or_null(r->cpu_total),
			 "cpu_util_user", real_or_null(r->cpu_user),
			 "cpu_util_system", real_or_null(r->cpu_system),
			 "sender_has_retransmits", has_retrans,
			 "congestion_used", r->congestion[0] ? r->congestion : "unknown",
			 "streams", streams, "bp_intervals", intervals_json(r),
			 "bp_busy_max", real_or_null(r->busy_max),
			 "bp_send_mode", r->send_mode, "bp_receive_mode", r->recv_mode,
			 "bp_sent_counts", r->sent_counts);
}

/*
 * Every number the peer sends is checked in its own domain (proto/peer_json.h) before it is
 * converted or summed: counts of bytes and datagrams are whole and at most 2^53 (which a
 * double holds exactly; no test moves that many), seconds are finite and inside a span no
 * test reaches, so that the sums and rates the report computes cannot overflow.
 */
#define MAX_COUNT BP_PEER_INT_MAX
#define MAX_SECONDS 1e6          /* past the 86,400 s cap plus any omitted start */
#define MAX_CPU_PERCENT 1e5      /* iperf3's percent of one core, over every core */
/*
 * Combinations: a stream's bytes over its span (the whole test's counted span) make at most
 * MAX_BITRATE (1 Pbit/s, past any link by three orders), its datagrams at most MAX_PPS
 * (udp_seq.h's bound); else the span is forged (8 PiB in 1e-300 s would print "inf") and
 * the results are refused. An interval's span is 0 or at least MIN_SPAN, the clocks' tick
 * (its rate is not capped: the last one can be a microsecond that takes in counts published
 * a little late), so every rate is finite. A span of 0 is left alone: its rate is unknown.
 */
#define MAX_BITRATE 1e15
#define MAX_PPS 1.5e9
#define MIN_SPAN 1e-9

static void check_span(struct bp_peer_reader *rd, double start, double end)
{
	/* "bp_intervals[2]." names the record: without its dot */
	int wlen = rd->where ? (int)strlen(rd->where) - 1 : 0;

	if (!rd->rc && end - start > 0 && end - start < MIN_SPAN)
		bp_peer_refuse(rd, 0, "%.*s: a span of %g s: expected 0 or at least %g s (the "
			       "clocks count nanoseconds)", wlen, rd->where ? rd->where : "",
			       end - start, MIN_SPAN);
}

static void check_rate(struct bp_peer_reader *rd, double bytes, double packets, double start,
		       double end)
{
	double span = end - start;
	/* "streams[2]." names the record: without its dot */
	int wlen = rd->where ? (int)strlen(rd->where) - 1 : 0;

	if (rd->rc || span <= 0)
		return;
	if (bytes * 8 / span > MAX_BITRATE || packets / span > MAX_PPS)
		bp_peer_refuse(rd, 0, "%.*s: %.0f bytes, %.0f datagrams in %g s: expected at most "
			       "%g bit/s and %g datagrams/s", wlen, rd->where ? rd->where : "",
			       bytes, packets, span, MAX_BITRATE, MAX_PPS);
}

/*
 * -1 (unknown) for the retransmits of a receiver; older cJSON (iperf3) printed it as the
 * unsigned 2^64 - 1, which reads as the double 2^64.
 */
static int64_t read_retransmits(struct bp_peer_reader *rd, const char *key)
{
	const json_t *v = json_object_get(rd->obj, key);

	if (json_is_real(v) && json_real_value(v) == 0x1p64)
		return -1;
	return bp_peer_int(rd, key, -1, -1, MAX_COUNT, 0);
}

static void read_interval(struct bp_peer_reader *rd, struct bp_net_interval *iv)
{
	iv->start_s = bp_peer_real(rd, "start", 0, 0, MAX_SECONDS, 0);
	iv->end_s = bp_peer_real(rd, "end", 0, 0, MAX_SECONDS, 0);
	iv->sent = (uint64_t)bp_peer_int(rd, "sent", 0, 0, MAX_COUNT, 0);
	iv->received = (uint64_t)bp_peer_int(rd, "received", 0, 0, MAX_COUNT, 0);
	iv->retransmits = read_retransmits(rd, "retransmits");
	iv->cwnd = (uint32_t)bp_peer_int(rd, "cwnd", 0, 0, UINT32_MAX, 0);
	iv->rtt_us = (uint32_t)bp_peer_int(rd, "rtt_us", 0, 0, UINT32_MAX, 0);
	iv->packets_sent = (uint64_t)bp_peer_int(rd, "packets_sent", 0, 0, MAX_COUNT, 0);
	iv->packets_received = (uint64_t)bp_peer_int(rd, "packets_received", 0, 0, MAX_COUNT, 0);
	/* Negative when late datagrams fill an earlier interval's gaps. */
	iv->lost = bp_peer_int(rd, "lost", 0, -MAX_COUNT, MAX_COUNT, 0);
	iv->jitter_ns = bp_peer_real(rd, "jitter_ns", 0, 0, MAX_SECONDS * 1e9, 0);
	iv->omitted = bp_peer_flag(rd, "omitted", 0);
	check_span(rd, iv->start_s, iv->end_s);
}

static int read_intervals(const json_t *a, struct bp_net_results *r, char *err, size_t errlen)
{
	char where[48];
	size_t i;
	json_t *v;

	r->nintervals = 0;
	json_array_foreach(a, i, v) {
		struct bp_peer_reader rd = bp_peer_reader(v, err, errlen);

		if (r->nintervals == BP_NET_MAX_INTERVALS)
			break;
		snprintf(where, sizeof(where), "bp_intervals[%zu].", i);
		rd.where = where;
		/* an array or a number read key by key would be all zeros, not an error */
		if (!json_is_object(v)) {
			snprintf(err, errlen, "bp_intervals[%zu]: expected an object", i);
			return -EBADMSG;
		}
		read_interval(&rd, &r->intervals[r->nintervals++]);
		if (rd.rc)
			return rd.rc;
	}
	return 0;
}

static void read_stream(struct bp_peer_reader *rd, struct bp_net_stream_result *sr)
{
	sr->id = (int)bp_peer_int(rd, "id", 0, 0, INT_MAX, 0);
	sr->bytes = (uint64_t)bp_peer_int(rd, "bytes", 0, 0, MAX_COUNT, 0);
	sr->retransmits = read_retransmits(rd, "retransmits");
	sr->start_s = bp_peer_real(rd, "start_time", 0, 0, MAX_SECONDS, 0);
	sr->end_s = bp_peer_real(rd, "end_time", 0, 0, MAX_SECONDS, 0);
	sr->sender = bp_peer_flag(rd, "bp_sender", 0);
	sr->packets = (uint64_t)bp_peer_int(rd, "packets", 0, 0, MAX_COUNT, 0);
	/* iperf3's "errors" (lost datagrams) go negative when late ones outnumber the lost. */
	sr->lost = bp_peer_int(rd, "errors", 0, -MAX_COUNT, MAX_COUNT, 0);
	sr->jitter_ns = bp_peer_real(rd, "jitter", 0, 0, MAX_SECONDS, 0) * 1e9;
	sr->out_of_order = (uint64_t)bp_peer_int(rd, "bp_out_of_order", 0, 0, MAX_COUNT, 0);
	sr->duplicates = (uint64_t)bp_peer_int(rd, "bp_duplicates", 0, 0, MAX_COUNT, 0);
	sr->kernel_drops = (uint64_t)bp_peer_int(rd, "bp_kernel_drops", 0, 0, MAX_COUNT, 0);
	sr->stalls = (uint64_t)bp_peer_int(rd, "bp_stalls", 0, 0, MAX_COUNT, 0);
	sr->implausible = (uint64_t)bp_peer_int(rd, "bp_implausible", 0, 0, MAX_COUNT, 0);
	check_rate(rd, (double)sr->bytes, (double)sr->packets, sr->start_s, sr->end_s);
}

static int read_streams(const json_t *streams, struct bp_net_results *r, char *err,
			size_t errlen)
{
	char where[48];
	size_t i;
	json_t *s;

	json_array_foreach(streams, i, s) {
		struct bp_peer_reader rd = bp_peer_reader(s, err, errlen);
		struct bp_net_stream_result *sr;

		if (r->nstreams == BP_NET_MAX_STREAMS)
			break;
		if (!json_is_object(s)) {
			snprintf(err, errlen, "streams[%zu]: expected an object", i);
			return -EBADMSG;
		}
		sr = &r->streams[r->nstreams++];
		snprintf(where, sizeof(where), "streams[%zu].", i);
		rd.where = where;
		read_stream(&rd, sr);
		if (rd.rc)
			return rd.rc;
		bp_net_stream_tcp_info_from_json(s, sr);
	}
	return 0;
}

/* Only a known word: the peer's string is shown to the user. */
static void read_word(struct bp_peer_reader *rd, const char *key, char *out, size_t len)
{
	bp_peer_str(rd, key, out, len, 0);
	for (const char *c = out; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') && !strchr("_-+.", *c)) {
			bp_peer_refuse(rd, 0, "%s: expected a lower-case word", key);
			out[0] = '\0';
			return;
		}
}

int bp_net_results_from_json(const json_t *j, struct bp_net_results *r, char *err,
			     size_t errlen)
{
	const json_t *streams = json_object_get(j, "streams");
	struct bp_peer_reader rd = bp_peer_reader(j, err, errlen);

	memset(r, 0, sizeof(*r));
	if (!json_is_array(streams)) {
		snprintf(err, errlen, "streams: expected an array");
		return -EBADMSG;
	}
	r->cpu_total = bp_peer_real(&rd, "cpu_util_total", NAN, 0, MAX_CPU_PERCENT, 0);
	r->cpu_user = bp_peer_real(&rd, "cpu_util_user", NAN, 0, MAX_CPU_PERCENT, 0);
	r->cpu_system = bp_peer_real(&rd, "cpu_util_system", NAN, 0, MAX_CPU_PERCENT, 0);
	/* A share of one core; a little above 1 when the clocks disagree. */
	r->busy_max = bp_peer_real(&rd, "bp_busy_max", NAN, 0, 1000, 0);
	read_word(&rd, "congestion_used", r->congestion, sizeof(r->congestion));
	read_word(&rd, "bp_send_mode", r->send_mode, sizeof(r->send_mode));
	read_word(&rd, "bp_receive_mode", r->recv_mode, sizeof(r->recv_mode));
	bp_peer_str(&rd, "bp_sent_counts", r->sent_counts, sizeof(r->sent_counts), 0);
	/* only the two words: the peer's string is shown to the user */
	if (strcmp(r->sent_counts, "acked") && strcmp(r->sent_counts, "written"))
		r->sent_counts[0] = '\0';
	if (rd.rc || read_streams(streams, r, err, errlen) ||
	    read_intervals(json_object_get(j, "bp_intervals"), r, err, errlen)) {
		/* nothing of refused results is shown: not the streams read before the refusal */
		memset(r, 0, sizeof(*r));
		return -EBADMSG;
	}
	bp_net_stream_series_from_json(streams, r);
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

/*
 * The tail went missing at the end: the last interval's lost (the side's and stream i's, if
 * recorded) counts it, so that the intervals' losses add up to the total's.
 */
static void credit_last_interval(struct bp_net_results *rx, int i, int64_t tail)
{
	struct bp_net_stream_series *ser = &rx->stream_ivs;
	int64_t *lost;

	if (rx->nintervals > 0) {
		lost = &rx->intervals[rx->nintervals - 1].lost;
		if (*lost <= INT64_MAX - tail)
			*lost += tail;
	}
	if (ser->nintervals > 0 && ser->stride > i &&
	    (size_t)(ser->nintervals - 1) * (size_t)ser->stride + (size_t)i <
	    BP_NET_MAX_STREAM_INTERVALS) {
		lost = &ser->rec[(ser->nintervals - 1) * ser->stride + i].lost;
		if (*lost <= INT64_MAX - tail)
			*lost += tail;
	}
}

void bp_net_results_add_tail(struct bp_net_results *rx, const struct bp_net_results *tx)
{
	for (int i = 0; i < rx->nstreams; i++) {
		struct bp_net_stream_result *r = &rx->streams[i];
		uint64_t seen;

		/* seen: sequence numbers up to the highest that arrived, gaps included */
		if (r->sender || r->lost < 0 || r->duplicates > r->packets ||
		    r->packets - r->duplicates > UINT64_MAX - (uint64_t)r->lost)
			continue;
		seen = r->packets - r->duplicates + (uint64_t)r->lost;
		for (int k = 0; k < tx->nstreams; k++) {
			const struct bp_net_stream_result *t = &tx->streams[k];

			if (t->id != r->id || !t->sender || t->packets <= seen ||
			    t->packets - seen > (uint64_t)(INT64_MAX - r->lost))
				continue;
			r->lost += (int64_t)(t->packets - seen);
			credit_last_interval(rx, i, (int64_t)(t->packets - seen));
			break;
		}
	}
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

void bp_net_results_owd(const struct bp_net_results *r, struct bp_welford *out)
{
	bp_welford_init(out);
	for (int i = 0; i < r->nstreams; i++)
		if (!r->streams[i].sender && r->streams[i].owd.n)
			bp_welford_merge(out, &r->streams[i].owd);
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
