/*
 * Per-stream tables for people, in the manner of iperf3's: a row per stream "[  1]", and a
 * "[SUM]" row per direction that has more than one, whose figures are those of the totals
 * (bytes added up, the rate over the longest span, as the metrics compute it). A column
 * of a side that has no figure shows "-". Only shown when some direction has more than
 * one stream (with one, the metrics already are the stream).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "result/render_streams.h"
#include "result/text_table.h"

#define CELL_LEN 64

/* How a column's [SUM] is made from the streams' figures. */
enum agg {
	AGG_NONE,  /* a state (cwnd, rtt): no sum */
	AGG_SUM,
	AGG_RATE,  /* the side's bytes added up, over its longest span */
	AGG_MEAN,  /* jitter, as the totals take it */
	AGG_LOSS,  /* lost over the sender's datagrams */
};

struct col {
	const char *head, *side, *key, *unit;  /* unit "B=": whole bytes, always exact */
	enum agg agg;
};

#define COL_END { NULL, NULL, NULL, NULL, AGG_NONE }
#define SENT { "sent", "sender", "bytes", "B", AGG_SUM }
#define SENDER { "sender", "sender", "bitrate", "bit/s", AGG_RATE }
#define RECEIVED { "received", "receiver", "bytes", "B", AGG_SUM }
#define RECEIVER { "receiver", "receiver", "bitrate", "bit/s", AGG_RATE }
#define RETR { "retr", "sender", "retransmits", "count", AGG_SUM }
#define CWND { "cwnd", "sender", "snd_cwnd", "B", AGG_NONE }
#define RTT { "rtt", "sender", "rtt", "ns", AGG_NONE }
#define PKTS_SENT { "sent pkts", "sender", "packets", "count", AGG_SUM }
#define PKTS_RECV { "recv pkts", "receiver", "packets", "count", AGG_SUM }
#define LOST { "lost", "receiver", "lost_packets", "count", AGG_SUM }
#define JITTER { "jitter", "receiver", "jitter", "ns", AGG_MEAN }

static const struct col tcp_end[] = {
	SENT, SENDER, RETR, CWND, RTT, { "rttvar", "sender", "rttvar", "ns", AGG_NONE },
	{ "pmtu", "sender", "pmtu", "B=", AGG_NONE }, RECEIVED, RECEIVER, COL_END,
};
static const struct col tcp_interval[] = { SENT, SENDER, RETR, CWND, RTT, RECEIVED, RECEIVER,
					   COL_END };
static const struct col udp_end[] = {
	SENT, SENDER, PKTS_SENT, RECEIVED, RECEIVER, PKTS_RECV, LOST,
	{ "loss", "receiver", "loss_percent", "percent", AGG_LOSS }, JITTER, COL_END,
};
static const struct col udp_interval[] = { SENT, SENDER, PKTS_SENT, RECEIVED, RECEIVER,
					   PKTS_RECV, LOST, JITTER, COL_END };

/* The default text's end table, within 80 columns: the rates and what explains them (-v: all). */
static const struct col tcp_narrow[] = { SENDER, RETR, CWND, RTT, RECEIVER, COL_END };
static const struct col udp_narrow[] = {
	SENDER, RECEIVER, LOST, { "loss", "receiver", "loss_percent", "percent", AGG_LOSS },
	JITTER, COL_END,
};

static double field(const json_t *st, const char *side, const char *key)
{
	const json_t *v = json_object_get(json_object_get(st, side), key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *direction(const json_t *st)
{
	const char *d = json_string_value(json_object_get(st, "direction"));

	return d ? d : "";
}

/* Streams of direction dir in a, and whether a holds both directions. */
static size_t count_dir(const json_t *a, const char *dir)
{
	size_t i, n = 0;
	json_t *st;

	json_array_foreach(a, i, st)
		n += !strcmp(direction(st), dir);
	return n;
}

/* A UDP result is told by its figures: its senders count stalls, its receivers loss. */
static bool is_udp(const json_t *a)
{
	size_t i;
	json_t *st;

	json_array_foreach(a, i, st)
		if (json_object_get(json_object_get(st, "receiver"), "lost_packets") ||
		    json_object_get(json_object_get(st, "sender"), "stalls"))
			return true;
	return false;
}

static char *cell(char *buf, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, CELL_LEN, "-");
	else if (!strcmp(unit, "B="))
		snprintf(buf, CELL_LEN, "%.0f B", v);
	else
		bp_format_value(buf, CELL_LEN, v, unit);
	return buf;
}

/* The side's span: its own start and end at the end, "seconds" in an interval. */
static double span(const json_t *st, const char *side)
{
	double s = field(st, side, "seconds");

	return isnan(s) ? field(st, side, "end") - field(st, side, "start") : s;
}

/* The [SUM] of column c over the streams of dir in a; NaN when no stream has a figure. */
static double aggregate(const json_t *a, const char *dir, const struct col *c)
{
	double sum = 0, longest = 0, lost = 0, sent = 0;
	size_t i, n = 0;
	json_t *st;

	json_array_foreach(a, i, st) {
		double v = field(st, c->side, c->agg == AGG_RATE ? "bytes" : c->key);

		if (strcmp(direction(st), dir) || isnan(v))
			continue;
		n++;
		sum += v;
		if (c->agg == AGG_RATE && span(st, c->side) > longest)
			longest = span(st, c->side);
		if (c->agg == AGG_LOSS) {
			lost += field(st, "receiver", "lost_packets");
			sent += field(st, "sender", "packets");
		}
	}
	if (!n)
		return NAN;
	switch (c->agg) {
	case AGG_SUM:
		return sum;
	case AGG_RATE:
		return longest > 0 ? sum * 8 / longest : NAN;
	case AGG_MEAN:
		return sum / (double)n;
	case AGG_LOSS:
		return sent > 0 ? lost / sent * 100 : NAN;
	case AGG_NONE:
		break;
	}
	return NAN;
}

struct layout {
	const struct col *cols;
	bool show_dir;
	size_t first;  /* the first figure's column: after [ID], dir, start, end */
};

static int head_row(struct bp_table *t, const struct layout *l)
{
	size_t c = 0;
	int err = bp_table_add_row(t);

	err = err ? err : bp_table_set(t, c++, "[ID]");
	if (!err && l->show_dir)
		err = bp_table_set(t, c++, "dir");
	err = err ? err : bp_table_set(t, c++, "start");
	err = err ? err : bp_table_set(t, c++, "end");
	for (size_t k = 0; !err && l->cols[k].head; k++)
		err = bp_table_set(t, l->first + k, l->cols[k].head);
	return err;
}

/* A row's leading cells: the label, the direction when both run, the span. */
static int lead_cells(struct bp_table *t, const struct layout *l, const char *label,
		      const char *dir, double start, double end)
{
	char buf[CELL_LEN];
	size_t c = 0;
	int err = bp_table_add_row(t);

	err = err ? err : bp_table_set(t, c++, label);
	if (!err && l->show_dir)
		err = bp_table_set(t, c++, dir);
	snprintf(buf, sizeof(buf), "%.2f", start);
	err = err ? err : bp_table_set(t, c++, isnan(start) ? "-" : buf);
	snprintf(buf, sizeof(buf), "%.2f", end);
	return err ? err : bp_table_set(t, c, isnan(end) ? "-" : buf);
}

/* The sender's span labels a stream's row at the end, else its receiver's. */
static void end_span(const json_t *st, double *start, double *end)
{
	const char *side = json_is_object(json_object_get(st, "sender")) ? "sender" : "receiver";

	*start = field(st, side, "start");
	*end = field(st, side, "end");
}

/*
 * The rows of direction dir in a: one per stream, then [SUM] when there are several.
 * ivs: an interval's [start, end] for every row, or NULL at the end (each its own span).
 */
static int dir_rows(struct bp_table *t, const struct layout *l, const json_t *a,
		    const char *dir, const double *iv)
{
	double start, end, s_min = NAN, e_max = NAN;
	char label[16], buf[CELL_LEN];
	size_t i, n = count_dir(a, dir);
	json_t *st;
	int err = 0;

	json_array_foreach(a, i, st) {
		if (err || strcmp(direction(st), dir))
			continue;
		end_span(st, &start, &end);
		if (iv) {
			start = iv[0];
			end = iv[1];
		}
		s_min = isnan(s_min) || start < s_min ? start : s_min;
		e_max = isnan(e_max) || end > e_max ? end : e_max;
		snprintf(label, sizeof(label), "[%3lld]",
			 json_integer_value(json_object_get(st, "id")));
		err = lead_cells(t, l, label, dir, start, end);
		for (size_t k = 0; !err && l->cols[k].head; k++)
			err = bp_table_set(t, l->first + k,
					   cell(buf, field(st, l->cols[k].side, l->cols[k].key),
						l->cols[k].unit));
	}
	if (err || n < 2)
		return err;
	err = lead_cells(t, l, "[SUM]", dir, s_min, e_max);
	for (size_t k = 0; !err && l->cols[k].head; k++)
		err = bp_table_set(t, l->first + k,
				   l->cols[k].agg == AGG_NONE ? NULL :
				   cell(buf, aggregate(a, dir, &l->cols[k]), l->cols[k].unit));
	return err;
}

static int table_init(struct bp_table *t, struct layout *l, const json_t *end, bool interval,
		      bool narrow)
{
	bool udp = is_udp(end);
	size_t ncols = 0;
	int err;

	l->cols = udp ? (interval ? udp_interval : udp_end) : (interval ? tcp_interval : tcp_end);
	if (narrow && !interval)
		l->cols = udp ? udp_narrow : tcp_narrow;
	l->show_dir = count_dir(end, "up") && count_dir(end, "down");
	l->first = l->show_dir ? 4 : 3;
	while (l->cols[ncols].head)
		ncols++;
	err = bp_table_init(t, l->first + ncols, 0);
	for (size_t c = 0; !err && c < l->first + ncols; c++)
		t->right[c] = c >= l->first - 2;
	return err ? err : head_row(t, l);
}

bool bp_streams_text_has(const struct bp_result *r)
{
	const json_t *end = json_object_get(r->streams, "end");

	return count_dir(end, "up") > 1 || count_dir(end, "down") > 1;
}

int bp_streams_text(FILE *out, const struct bp_result *r)
{
	const json_t *end = json_object_get(r->streams, "end");
	struct bp_table t;
	struct layout l;
	int err = table_init(&t, &l, end, false, r->text_verbose <= 0);

	if (!err)
		err = dir_rows(&t, &l, end, "up", NULL);
	if (!err)
		err = dir_rows(&t, &l, end, "down", NULL);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

bool bp_streams_text_has_intervals(const struct bp_result *r)
{
	const json_t *ivs = json_object_get(r->streams, "intervals");
	size_t i;
	json_t *iv;

	if (!r->text_show_stream_intervals || !bp_streams_text_has(r))
		return false;
	json_array_foreach(ivs, i, iv)
		if (json_is_array(iv) && i < r->nintervals)
			return true;
	return false;
}

int bp_streams_text_intervals(FILE *out, const struct bp_result *r)
{
	const json_t *ivs = json_object_get(r->streams, "intervals");
	struct bp_table t;
	struct layout l;
	size_t i;
	json_t *iv;
	int err = table_init(&t, &l, json_object_get(r->streams, "end"), true, false);

	json_array_foreach(ivs, i, iv) {
		double span_s[2];

		if (err || i >= r->nintervals || !json_is_array(iv))
			continue;
		span_s[0] = r->intervals[i].start;
		span_s[1] = r->intervals[i].end;
		err = dir_rows(&t, &l, iv, "up", span_s);
		if (!err)
			err = dir_rows(&t, &l, iv, "down", span_s);
	}
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}
