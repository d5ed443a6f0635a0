/*
 * The live sink (src/result/live.c): text lines in the interval table's columns, flushed as
 * each interval ends; JSON Lines whose events and data match the --json document; the
 * end-of-test text after live lines; intervals of another result (a suite's child) ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "result/live.h"
#include "result/render.h"
#include "result/result.h"
#include "tap.h"

/* A tcp result as a test holds it while it runs: params and env set, nothing measured. */
static struct bp_result *running_result(void)
{
	struct bp_result *r = bp_result_new("tcp");

	bp_result_set_params(r, json_pack("{s:s, s:i}", "host", "198.18.0.2", "port", 5201));
	bp_result_set_env(r, json_pack("{s:{s:s}}", "boardperf", "version", "0.1.0"));
	return r;
}

/* An interval outside any result, as a test builds one for the sink; cwnd < 0: none. */
static void fill(struct bp_interval *iv, double start, double end, double bitrate,
		 double retrans, double cwnd)
{
	memset(iv, 0, sizeof(*iv));
	iv->start = start;
	iv->end = end;
	bp_interval_add_metric(iv, "sender.bitrate", bitrate, "bit/s", BP_BETTER_HIGHER);
	if (retrans >= 0)
		bp_interval_add_metric(iv, "retransmits", retrans, "count", BP_BETTER_LOWER);
	if (cwnd >= 0)
		bp_interval_add_metric(iv, "cwnd", cwnd, "B", BP_BETTER_NONE);
}

static void test_text_lines(void)
{
	struct bp_result *r = running_result(), *child = bp_result_new("udp");
	struct bp_interval a, b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bp_live *l = bp_live_new(f, BP_LIVE_TEXT);

	r->text_verbose = 1;  /* -v: figures that are no column still print, as name=value */
	bp_live_start(l, r);
	CHECK_INT(len, 0);  /* text prints nothing before the first interval */
	fill(&a, 0, 1, 941e6, 7, -1);
	bp_live_interval(l, r, &a);
	/* Flushed at once: the line is in the buffer without closing the stream. */
	CHECK_STR(buf, "tcp: boardperf 0.1.0\n"
		       "\n"
		       " start     end      bitrate  retransmits\n"
		       "  0.00    1.00   941 Mbit/s            7\n");
	/* A missing column prints "-", a metric new after the first line goes at the end. */
	fill(&b, 1, 2.004, 9.38e9, -1, 1 << 20);
	bp_live_interval(l, r, &b);
	CHECK(strstr(buf, "  1.00    2.00  9.38 Gbit/s            -  cwnd=1.00 MiB\n") != NULL);
	CHECK_INT(bp_live_lines(l), 2);
	/* Another result's interval (a suite's child with its own result) is not this sink's. */
	len = strlen(buf);
	bp_live_interval(l, child, &a);
	fflush(f);
	CHECK_INT(strlen(buf), len);
	CHECK_INT(bp_live_lines(l), 2);
	CHECK_INT(bp_live_finish(l, r), 0);
	fflush(f);
	CHECK_INT(strlen(buf), len);  /* text: the CLI renders the rest */
	/* NULL: no sink, nothing happens. */
	bp_live_interval(NULL, r, &a);
	CHECK_INT(bp_live_lines(NULL), 0);
	CHECK_INT(bp_live_finish(NULL, r), 0);
	bp_interval_clear(&a);
	bp_interval_clear(&b);
	CHECK_INT(a.nmetrics, 0);
	bp_live_free(l);
	fclose(f);
	free(buf);
	bp_result_free(r);
	bp_result_free(child);
}

/*
 * gpio --method all: each method's intervals carry only its own figure, so the next method's
 * first interval shares no column with the last; it gets columns and a heading line of its
 * own (it printed "-" under the first method's column, its figure nowhere).
 */
static void test_text_new_columns(void)
{
	struct bp_result *r = bp_result_new("gpio");
	struct bp_interval a = { .start = 0, .end = 0.5 }, b = { .start = 0.5, .end = 1 },
			   c = { .start = 1, .end = 1.5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bp_live *l = bp_live_new(f, BP_LIVE_TEXT);

	bp_live_start(l, r);
	bp_interval_add_metric(&a, "chardev.periods.rate", 412e3, "Hz", BP_BETTER_HIGHER);
	bp_interval_add_metric(&b, "chardev.periods.rate", 415e3, "Hz", BP_BETTER_HIGHER);
	bp_interval_add_metric(&c, "sysfs.periods.rate", 61e3, "Hz", BP_BETTER_HIGHER);
	bp_live_interval(l, r, &a);
	bp_live_interval(l, r, &b);
	bp_live_interval(l, r, &c);
	fflush(f);
	CHECK(buf && strstr(buf, "chardev.periods.rate\n") && strstr(buf, "sysfs.periods.rate\n"));
	CHECK(buf && strstr(buf, "  1.00    1.50") && !strstr(buf, " -\n"));
	/* the run's header once, the column names twice */
	{
		int heads = 0;

		for (const char *p = buf; p && (p = strstr(p, " start ")); p++)
			heads++;
		CHECK_INT(heads, 2);
	}
	CHECK_INT(bp_live_lines(l), 3);
	bp_interval_clear(&a);
	bp_interval_clear(&b);
	bp_interval_clear(&c);
	bp_live_free(l);
	fclose(f);
	free(buf);
	bp_result_free(r);
}

/* Line n (0-based) of text as a JSON object, or NULL. */
static json_t *line_json(const char *text, int n)
{
	const char *p = text, *nl;
	json_t *j;
	char *line;

	for (; n > 0 && p; n--)
		p = (nl = strchr(p, '\n')) ? nl + 1 : NULL;
	if (!p || !*p || !(nl = strchr(p, '\n')))
		return NULL;
	line = strndup(p, (size_t)(nl - p));
	j = json_loads(line, 0, NULL);
	free(line);
	return j;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static const char *event_of(const json_t *j)
{
	return json_string_value(json_object_get(j, "event"));
}

static void test_json_stream(void)
{
	struct bp_result *r = running_result();
	struct bp_interval a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bp_live *l = bp_live_new(f, BP_LIVE_JSON_STREAM);
	json_t *j, *want;

	bp_live_start(l, r);
	j = line_json(buf, 0);
	CHECK_STR(event_of(j), "start");
	CHECK_STR(json_string_value(json_object_get(json_object_get(j, "data"), "schema")),
		  BP_RESULT_SCHEMA);
	CHECK(json_equal(json_object_get(json_object_get(j, "data"), "params"), r->params));
	CHECK(json_equal(json_object_get(json_object_get(j, "data"), "env"), r->env));
	json_decref(j);

	fill(&a, 0, 1, 941e6, 7, 65536);
	bp_live_interval(l, r, &a);
	j = line_json(buf, 1);
	want = bp_interval_to_json(&a);
	CHECK_STR(event_of(j), "interval");
	CHECK(json_equal(json_object_get(j, "data"), want));
	json_decref(j);
	json_decref(want);

	/* The end: the error, then the whole document --json would print. */
	bp_result_add_metric(r, "sender.bitrate", 940e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_set_error(r, "peer-gone", "the server closed the connection");
	CHECK_INT(bp_live_finish(l, r), 0);
	CHECK_INT(count_lines(buf), 4);
	j = line_json(buf, 2);
	CHECK_STR(event_of(j), "error");
	CHECK_STR(json_string_value(json_object_get(json_object_get(j, "data"), "code")),
		  "peer-gone");
	json_decref(j);
	j = line_json(buf, 3);
	want = bp_result_to_json(r);
	CHECK_STR(event_of(j), "end");
	CHECK(json_equal(json_object_get(j, "data"), want));
	json_decref(j);
	json_decref(want);
	bp_interval_clear(&a);
	bp_live_free(l);
	fclose(f);
	free(buf);
	bp_result_free(r);
}

/* Without an error: no "error" line; the end document's error is null. */
static void test_json_stream_ok(void)
{
	struct bp_result *r = running_result();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bp_live *l = bp_live_new(f, BP_LIVE_JSON_STREAM);
	json_t *j;

	bp_live_start(l, r);
	CHECK_INT(bp_live_finish(l, r), 0);
	CHECK_INT(count_lines(buf), 2);
	j = line_json(buf, 1);
	CHECK_STR(event_of(j), "end");
	CHECK(json_is_null(json_object_get(json_object_get(j, "data"), "error")));
	json_decref(j);
	bp_live_free(l);
	fclose(f);
	free(buf);
	bp_result_free(r);
}

/* After live lines the end-of-test text has the params and the summary, not the rest again. */
static void test_text_after_live(void)
{
	struct bp_result *r = running_result();
	struct bp_interval *iv = bp_result_add_interval(r, 0, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bp_interval_add_metric(iv, "sender.bitrate", 941e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sender.bitrate", 941e6, "bit/s", BP_BETTER_HIGHER);
	CHECK_INT(bp_render_text_after_live(f, r), 0);
	fclose(f);
	CHECK_STR(buf, "\nparams: host=198.18.0.2 port=5201\n"
		       "\n"
		       "metric          value\n"
		       "sender.bitrate    941 Mbit/s\n");
	free(buf);
	bp_result_free(r);
}

int main(void)
{
	test_text_new_columns();
	test_text_lines();
	test_json_stream();
	test_json_stream_ok();
	test_text_after_live();
	return tap_done();
}
