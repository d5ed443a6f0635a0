/*
 * Per-stream figures in JSON and CSV (the text tables are in render_streams_text.c). The
 * model already holds them in their JSON shape, so JSON places them and CSV walks them.
 */
#include "result/render_streams.h"

#include <math.h>
#include <stdio.h>

#include "core/unconst.h"

int bp_streams_json_into(json_t *doc, const struct bp_result *r)
{
	json_t *ivs = json_object_get(r->streams, "intervals");
	json_t *doc_ivs = json_object_get(doc, "intervals"), *end;
	size_t i;
	json_t *iv;

	if (!r->streams)
		return 0;
	end = json_object_get(r->streams, "end");
	if (json_object_set_new(doc, "streams", end ? json_incref(end) : json_array()))
		return -1;
	/* null for an interval past the bound, so that every interval has the key */
	json_array_foreach(doc_ivs, i, iv) {
		json_t *s = json_array_get(ivs, i);

		if (json_object_set_new(iv, "streams", s ? json_incref(s) : json_null()))
			return -1;
	}
	return 0;
}

/* Every numeric field a stream side can have, with its unit, in the order rows follow. */
static const struct {
	const char *key, *unit;
	enum bp_better better;
} fields[] = {
	{ "bytes", "B", BP_BETTER_NONE },
	{ "bitrate", "bit/s", BP_BETTER_HIGHER },
	{ "retransmits", "count", BP_BETTER_LOWER },
	{ "snd_cwnd", "B", BP_BETTER_NONE },
	{ "rtt", "ns", BP_BETTER_LOWER },
	{ "rttvar", "ns", BP_BETTER_LOWER },
	{ "pmtu", "B", BP_BETTER_NONE },
	{ "packets", "count", BP_BETTER_NONE },
	{ "stalls", "count", BP_BETTER_LOWER },
	{ "lost_packets", "count", BP_BETTER_LOWER },
	{ "loss_percent", "percent", BP_BETTER_LOWER },
	{ "jitter", "ns", BP_BETTER_LOWER },
	{ "out_of_order", "count", BP_BETTER_LOWER },
	{ "duplicates", "count", BP_BETTER_LOWER },
	{ "kernel_drops", "count", BP_BETTER_LOWER },
};

struct walk {
	int (*fn)(void *arg, const struct bp_stream_figure *f);
	void *arg;
	struct bp_stream_figure f;
};

static double number(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The rows of one side ("sender" or "receiver") of one stream; a null side has none. */
static int side_rows(struct walk *w, const json_t *st, const char *side)
{
	const json_t *o = json_object_get(st, side);
	long long id = json_integer_value(json_object_get(st, "id"));
	char name[96];
	int rc = 0;

	if (!json_is_object(o))
		return 0;
	if (!w->f.interval) {
		w->f.start = number(json_object_get(o, "start"));
		w->f.end = number(json_object_get(o, "end"));
	}
	for (size_t k = 0; !rc && k < sizeof(fields) / sizeof(fields[0]); k++) {
		const json_t *v = json_object_get(o, fields[k].key);

		if (!v)
			continue;
		snprintf(name, sizeof(name), "stream.%lld.%s.%s", id, side, fields[k].key);
		w->f.name = name;
		w->f.value = number(v);
		w->f.unit = fields[k].unit;
		w->f.better = fields[k].better;
		rc = w->fn(w->arg, &w->f);
	}
	return rc;
}

static int stream_rows(struct walk *w, const json_t *st)
{
	char name[64];
	int rc;

	if (!w->f.interval) {
		/* which way it ran, once per stream: a text value on its own row */
		snprintf(name, sizeof(name), "stream.%lld.direction",
			 json_integer_value(json_object_get(st, "id")));
		w->f.name = name;
		w->f.start = w->f.end = NAN;  /* not a figure of a span */
		w->f.value = NAN;
		w->f.value_text = json_string_value(json_object_get(st, "direction"));
		w->f.unit = NULL;
		w->f.better = BP_BETTER_NONE;
		rc = w->fn(w->arg, &w->f);
		w->f.value_text = NULL;
		if (rc)
			return rc;
	}
	rc = side_rows(w, st, "sender");
	return rc ? rc : side_rows(w, st, "receiver");
}

int bp_streams_figures(const struct bp_result *r,
		       int (*fn)(void *arg, const struct bp_stream_figure *f), void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	const json_t *ivs = json_object_get(r->streams, "intervals");
	size_t i, k;
	json_t *st, *iv;
	int rc = 0;

	json_array_foreach(json_object_get(r->streams, "end"), i, st)
		if ((rc = stream_rows(&w, st)))
			return rc;
	w.f.interval = true;
	json_array_foreach(bp_unconst(ivs), k, iv) {
		if (k >= r->nintervals)
			break;
		w.f.start = r->intervals[k].start;
		w.f.end = r->intervals[k].end;
		json_array_foreach(iv, i, st)
			if ((rc = stream_rows(&w, st)))
				return rc;
	}
	return 0;
}
