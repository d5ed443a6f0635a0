/*
 * merge (src/merge/): testers' result documents made one. The latency histograms a result
 * carries are checked to come back bucket for bucket (the percentiles read off them are the
 * original's exactly), and the merged percentiles are checked against one histogram that
 * recorded every tester's values: the ground truth the merge must reproduce, not an average.
 * Sums, the catalogue's other rules, intervals, carried warnings, a missing tester, skewed
 * and unknown starts, and the documents that do not merge.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "merge/merge.h"
#include "result/latency_histogram.h"
#include "result/render.h"
#include "result/result_doc.h"
#include "result/result_latency.h"
#include "stats/histogram.h"
#include "tap.h"

/* A pseudo-random latency in ns, spread over three decades like a loaded round trip. */
static uint64_t latency_ns(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return 20000 + (uint64_t)((*seed >> 8) % 1000) * (uint64_t)((*seed >> 20) % 97 + 1) * 13;
}

/* An rr tester's document: transactions, rate, failure ratio, latency from n values. */
static json_t *rr_doc(unsigned seed, size_t n, double start_s, const char *share,
		      struct bp_histo *all, const char *warning)
{
	struct bp_result *r = bp_result_new("rr");
	struct bp_histo *h = bp_histo_new();
	struct bp_interval *iv;
	unsigned id = seed;
	json_t *doc;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = latency_ns(&seed);

		bp_histo_record(h, v);
		if (all)
			bp_histo_record(all, v);
	}
	bp_result_set_params(r, json_pack("{s:f, s:f, s:s?}", "time", 2.0, "rate", 3000.0,
					  "share", share));
	bp_result_set_env(r, isnan(start_s) ? json_object() :
			  json_pack("{s:{s:f}}", "start", "actual_epoch_s", start_s));
	bp_result_add_metric(r, "transactions", (double)n, "count", BP_BETTER_NONE);
	bp_result_add_metric(r, "transactions.rate", (double)n / 2, "op/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "failure_ratio", (double)(id % 3), "percent", BP_BETTER_LOWER);
	bp_result_add_latency_histo(r, "transaction", h);
	for (int k = 0; k < 2; k++) {
		iv = bp_result_add_interval(r, k, k + 1);
		bp_interval_add_metric(iv, "transactions.rate", (double)n / 2 + k, "op/s",
				       BP_BETTER_HIGHER);
		bp_interval_add_metric(iv, "latency.p50", 1000, "ns", BP_BETTER_LOWER);
	}
	if (warning)
		bp_result_add_warning(r, warning, "something %s", warning);
	doc = bp_result_to_json(r);
	bp_result_free(r);
	bp_histo_free(h);
	return doc;
}

static const struct bp_metric *metric(const struct bp_result *r, const char *name)
{
	return bp_result_find_metric(r, name);
}

static const struct bp_warning *warning(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return &r->warnings[i];
	return NULL;
}

/* Merges docs (NULL: a tester without a result) into a new result; rc in *rc. */
static struct bp_result *merge(json_t *const *docs, size_t n, int *rc, char *err, size_t len)
{
	static const char *const names[] = { "b1", "b2", "b3", "b4" };
	struct bp_merge_input in[4];
	struct bp_result *r = bp_result_new("merge");

	for (size_t i = 0; i < n; i++)
		in[i] = (struct bp_merge_input){ .name = names[i], .source = names[i],
						 .doc = docs[i], .why = "no such file" };
	err[0] = '\0';
	*rc = bp_merge_build(in, n, r, err, len);
	return r;
}

static void free_docs(json_t **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
}

/* The histogram a document carries comes back whole: the same percentiles, exactly. */
static void test_round_trip(void)
{
	struct bp_histo *h = bp_histo_new(), *back;
	struct bp_histo_summary s, t;
	struct bp_result *r = bp_result_new("rr"), *again;
	unsigned seed = 7;
	char err[256];
	json_t *doc;

	for (int i = 0; i < 50000; i++)
		bp_histo_record(h, latency_ns(&seed));
	bp_result_add_latency_histo(r, "transaction", h);
	doc = bp_result_to_json(r);
	again = bp_result_from_json(doc, err, sizeof(err));
	CHECK(again && again->nlatency == 1 && again->latency[0].histogram);
	back = again ? bp_latency_histogram_load(&again->latency[0], err, sizeof(err)) : NULL;
	CHECK(back != NULL);
	if (back) {
		unsigned a = 0, b = 0;
		uint64_t la, ha, lb, hb, na, nb;
		int same = 1;

		bp_histo_summarize(h, &s);
		bp_histo_summarize(back, &t);
		CHECK(s.count == t.count && s.min == t.min && s.max == t.max && s.p50 == t.p50 &&
		      s.p90 == t.p90 && s.p99 == t.p99 && s.p999 == t.p999 && s.p9999 == t.p9999);
		do {
			na = bp_histo_next_bucket(h, &a, &la, &ha);
			nb = bp_histo_next_bucket(back, &b, &lb, &hb);
			same &= na == nb && (!na || (la == lb && ha == hb));
		} while (na && nb);
		CHECK(same);
	}
	/* the size budget (latency_histogram.h): three decades of round trips */
	{
		char *text = json_dumps(json_object_get(json_object_get(json_object_get(doc,
				"latency"), "transaction"), "histogram"), JSON_COMPACT);
		size_t len = text ? strlen(text) : 0;

		printf("# 50000 round trips over three decades: histogram of %zu bytes\n", len);
		CHECK(len > 0 && len < 16384);
		free(text);
	}
	bp_histo_free(back);
	bp_result_free(again);
	bp_result_free(r);
	json_decref(doc);
	bp_histo_free(h);
}

/* A histogram from another board is checked pair by pair before a count is added. */
static void test_load_refuses(void)
{
	static const struct { const char *buckets; uint64_t count; double min, max;
			      const char *why; } bad[] = {
		{ "\"\"", 0, 0, 0, "non-empty string" },
		{ "[[256, 1]]", 1, 256, 256, "non-empty string" },
		{ "\"301:1\"", 1, 301, 301, "not the low end" },
		{ "\"256:1 128:1\"", 2, 128, 256, "increasing" },
		{ "\"256:1 256:1\"", 2, 256, 256, "increasing" },
		{ "\"256:0\"", 0, 256, 256, "COUNT above 0" },
		{ "\"-2:1\"", 1, 0, 0, "whole numbers" },
		{ "\"2.5:1\"", 1, 2, 2, "whole numbers" },
		{ "\"256:1  512:1\"", 2, 256, 512, "pair 2: expected" },
		{ "\"256:1 \"", 1, 256, 256, "pair 2: expected" },
		{ "\"256:1,512:1\"", 2, 256, 512, "pair 1: expected" },
		{ "\"1000000000000000000:1\"", 1, 0, 0, "whole numbers" },
		{ "\"256:2\"", 3, 256, 257, "hold 2 values" },
		{ "\"256:1 512:1\"", 2, 100, 512, "first and last" },
		{ "\"256:1 512:1\"", 2, 256, 9000, "first and last" },
		{ "\"256:1\"", 1, 258, 256, "min <= max" },
		{ "\"256:1 512:1\"", 2, 256.5, 512, "whole numbers, min <= max" },
		{ "\"256:999999999999999999 512:999999999999999999 1024:999999999999999999 "
		  "2048:999999999999999999 4096:999999999999999999 8192:999999999999999999 "
		  "16384:999999999999999999 32768:999999999999999999 65536:999999999999999999 "
		  "131072:999999999999999999 262144:999999999999999999 524288:999999999999999999 "
		  "1048576:999999999999999999 2097152:999999999999999999 4194304:999999999999999999 "
		  "8388608:999999999999999999 16777216:999999999999999999 33554432:999999999999999999 "
		  "67108864:999999999999999999 134217728:999999999999999999\"", 0, 256, 134217728,
		  "pair 19: the counts overflow" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024], err[256] = "";
		json_t *hist;
		struct bp_latency l = { .what = "x", .unit = "ns", .count = bad[i].count,
					.min = bad[i].min, .max = bad[i].max };
		struct bp_histo *h;

		snprintf(text, sizeof(text), "{\"buckets\": %s}", bad[i].buckets);
		hist = json_loads(text, 0, NULL);
		l.histogram = hist;
		h = bp_latency_histogram_load(&l, err, sizeof(err));
		CHECK(hist && !h && strstr(err, bad[i].why));
		if (h || !strstr(err, bad[i].why))
			printf("# %s: %s\n", bad[i].buckets, err);
		bp_histo_free(h);
		json_decref(hist);
	}
}

/* Three testers: sums, the mean rule, percentiles off one histogram of every value. */
static void test_three_testers(void)
{
	struct bp_histo *all = bp_histo_new();
	struct bp_histo_summary s;
	json_t *docs[3] = {
		rr_doc(1, 30000, 1796599800.000, "1/3", all, NULL),
		rr_doc(2, 20000, 1796599800.002, "2/3", all, "tester-cpu-bound"),
		rr_doc(3, 10000, 1796599800.001, "3/3", all, NULL),
	};
	char err[512];
	int rc;
	struct bp_result *r = merge(docs, 3, &rc, err, sizeof(err));
	const struct bp_latency *l = r->nlatency ? &r->latency[0] : NULL;
	const struct bp_warning *w;
	json_t *testers = json_object_get(r->merged, "testers");

	CHECK_INT(rc, 0);
	CHECK_STR(r->test, "rr");
	CHECK(metric(r, "transactions") && metric(r, "transactions")->value == 60000);
	CHECK(metric(r, "transactions.rate") && metric(r, "transactions.rate")->value == 30000);
	CHECK(metric(r, "failure_ratio") &&
	      fabs(metric(r, "failure_ratio")->value - 1.0) < 1e-9);  /* mean of 1, 2, 0 */
	bp_histo_summarize(all, &s);
	CHECK(l && !strcmp(l->what, "transaction") && l->count == 60000);
	CHECK(l && l->min == s.min && l->max == s.max && l->p50 == s.p50 && l->p90 == s.p90 &&
	      l->p99 == s.p99 && l->p999 == s.p999 && l->p9999 == s.p9999);
	CHECK(l && fabs(l->mean - s.mean) < 1e-6 * s.mean);
	CHECK(l && l->histogram);
	printf("# merged p50 %.0f p99 %.0f, one histogram of all: %.0f %.0f\n",
	       l ? l->p50 : 0, l ? l->p99 : 0, s.p50, s.p99);
	/* intervals: the rate summed, the histogram-ruled figure left out */
	CHECK_INT((int)r->nintervals, 2);
	CHECK(r->nintervals == 2 && r->intervals[1].nmetrics == 1 &&
	      r->intervals[1].metrics[0].value == 30000 + 3);
	CHECK(!json_object_get(r->params, "share") && json_object_get(r->params, "rate"));
	CHECK_INT((int)json_array_size(testers), 3);
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(testers, 1), "share")) ?: "",
		      "2/3"));
	CHECK(fabs(json_number_value(json_object_get(json_array_get(testers, 1),
						     "start_offset_ms")) - 2.0) < 1e-3);
	CHECK(fabs(json_number_value(json_object_get(r->merged, "start_skew_ms")) - 2.0) < 1e-3);
	w = warning(r, "tester-cpu-bound");
	CHECK(w && !strncmp(w->message, "b2: ", 4));
	CHECK(!warning(r, "starts-skewed") && !warning(r, "tester-missing") && !r->error.code);
	bp_result_free(r);
	free_docs(docs, 3);
	bp_histo_free(all);
}

/* One tester without a result: named, the error says so, the others still merged. */
static void test_missing(void)
{
	json_t *docs[3] = { rr_doc(1, 1000, 1796599800.0, "1/3", NULL, NULL), NULL,
			    rr_doc(3, 1000, 1796599800.0, "3/3", NULL, NULL) };
	char err[512];
	int rc;
	struct bp_result *r = merge(docs, 3, &rc, err, sizeof(err));
	const json_t *b2 = json_array_get(json_object_get(r->merged, "testers"), 1);

	CHECK_INT(rc, -ENOENT);
	CHECK(r->error.code && !strcmp(r->error.code, "tester-missing"));
	CHECK(strstr(err, "1 of 3 testers") && strstr(err, "b2 (no such file)"));
	CHECK(warning(r, "tester-missing") && strstr(warning(r, "tester-missing")->message, "b2"));
	CHECK(json_is_string(json_object_get(b2, "missing")));
	CHECK(metric(r, "transactions") && metric(r, "transactions")->value == 2000);
	bp_result_free(r);
	free_docs(docs, 3);
}

/* Starts apart by more than 1 % of the test, or not known at all. */
static void test_starts(void)
{
	json_t *docs[2] = { rr_doc(1, 100, 1796599800.0, NULL, NULL, NULL),
			    rr_doc(2, 100, 1796599800.05, NULL, NULL, NULL) };
	char err[512];
	int rc;
	struct bp_result *r = merge(docs, 2, &rc, err, sizeof(err));

	CHECK(rc == 0 && warning(r, "starts-skewed") &&
	      strstr(warning(r, "starts-skewed")->message, "50.0 ms"));
	CHECK(fabs(json_number_value(json_object_get(r->merged, "overlap_percent")) - 97.5) < 1e-4);
	bp_result_free(r);
	json_decref(docs[1]);
	docs[1] = rr_doc(2, 100, 1796599800.01, NULL, NULL, NULL);  /* 0.5 %: together */
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == 0 && !warning(r, "starts-skewed"));
	bp_result_free(r);
	json_decref(docs[1]);
	docs[1] = rr_doc(2, 100, NAN, NULL, NULL, NULL);
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == 0 && warning(r, "starts-unknown") &&
	      json_is_null(json_object_get(r->merged, "start_skew_ms")));
	bp_result_free(r);
	free_docs(docs, 2);
}

/* What does not merge: other tests, suites, merged results; figures some testers lack. */
static void test_refusals(void)
{
	json_t *docs[2] = { rr_doc(1, 100, 1796599800.0, NULL, NULL, NULL), NULL };
	char err[512];
	int rc;
	struct bp_result *r;

	docs[1] = json_deep_copy(docs[0]);
	json_object_set_new(docs[1], "test", json_string("http"));
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "a rr result") && strstr(err, "a http one"));
	bp_result_free(r);
	json_object_set_new(docs[1], "test", json_string("rr"));
	json_object_set_new(docs[1], "results", json_array());
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "suite"));
	bp_result_free(r);
	json_object_del(docs[1], "results");
	json_object_set_new(docs[1], "merged", json_object());
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "merged result already"));
	bp_result_free(r);
	json_decref(docs[1]);
	/* a figure one tester lacks is not summed over the other alone */
	docs[1] = json_deep_copy(docs[0]);
	json_array_remove(json_object_get(docs[1], "metrics"), 0);  /* transactions */
	json_object_set_new(json_object_get(docs[1], "params"), "rate", json_real(4000));
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == 0 && !metric(r, "transactions") && warning(r, "not-merged") &&
	      strstr(warning(r, "not-merged")->message, "transactions (not every tester"));
	CHECK(warning(r, "params-differ") && strstr(warning(r, "params-differ")->message,
						     "rate (b2)"));
	bp_result_free(r);
	/* a latency without buckets (an older boardperf's result) is not averaged */
	json_object_del(json_object_get(json_object_get(docs[1], "latency"), "transaction"),
			"histogram");
	r = merge(docs, 2, &rc, err, sizeof(err));
	CHECK(rc == 0 && r->nlatency == 0 && warning(r, "not-merged") &&
	      strstr(warning(r, "not-merged")->message, "b2's result carries no histogram"));
	bp_result_free(r);
	free_docs(docs, 2);
	r = merge(docs, 0, &rc, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "expected 1 to"));
	bp_result_free(r);
}

int main(void)
{
	install_all_kinds();
	test_round_trip();
	test_load_refuses();
	test_three_testers();
	test_missing();
	test_starts();
	test_refusals();
	return tap_done();
}
