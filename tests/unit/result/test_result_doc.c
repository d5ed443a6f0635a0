/* Result documents back into the model: a round trip gives the same document; bad ones are refused. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/render.h"
#include "result/result.h"
#include "result/result_doc.h"
#include "tap.h"

static struct bp_result *sample(const char *test)
{
	struct bp_result *r = bp_result_new(test);
	struct bp_latency lat = { .what = "rtt", .unit = "ns", .count = 9, .min = 1, .mean = 2,
				  .p50 = 2, .p90 = 3, .p99 = 4, .p999 = 5, .p9999 = NAN, .max = 6 };
	struct bp_interval *iv;

	bp_result_set_params(r, json_pack("{s:s, s:f}", "dir", "/mnt", "time", 2.0));
	bp_result_set_env(r, json_pack("{s:{s:s}}", "os", "kernel", "6.1"));
	bp_result_set_cpu(r, json_pack("{s:{s:f}}", "local", "user_s", 0.5));
	bp_result_add_metric(r, "receiver.bitrate", 94.1e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_metric(r, "sender.retransmits", 3, "count", BP_BETTER_NONE);
	bp_result_add_metric(r, "lat", NAN, "ns", BP_BETTER_LOWER);
	bp_result_add_latency(r, &lat);
	iv = bp_result_add_interval(r, 0, 1);
	bp_interval_add_metric(iv, "receiver.bitrate", 93e6, "bit/s", BP_BETTER_HIGHER);
	iv = bp_result_add_interval(r, 1, 2);
	bp_interval_add_metric(iv, "receiver.bitrate", 95e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_set_streams(r, json_pack("{s:[{s:i}], s:[[{s:i}], null]}", "end", "id", 1,
					   "intervals", "id", 1));
	bp_result_add_warning(r, "page-cache", "figures from RAM");
	bp_result_set_error(r, "peer-gone", "the server went away");
	return r;
}

static char *dump(const struct bp_result *r)
{
	json_t *j = bp_result_to_json(r);
	char *s = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);

	json_decref(j);
	return s;
}

/* The model a document is read into renders as the same document, children and all. */
static void test_round_trip(void)
{
	struct bp_result *r = bp_result_new("together"), *back;
	char err[256] = "", *a, *b;
	json_t *doc;

	bp_result_add_metric(r, "A.receiver.bitrate.alone", 1e6, "bit/s", BP_BETTER_HIGHER);
	bp_result_add_child(r, sample("tcp"));
	bp_result_add_child(r, sample("udp"));
	a = dump(r);
	doc = json_loads(a, 0, NULL);
	back = bp_result_from_json(doc, err, sizeof(err));
	CHECK(back != NULL);
	CHECK_STR(err, "");
	b = back ? dump(back) : NULL;
	CHECK_STR(b, a);
	if (back) {
		CHECK_INT(back->nchildren, 2);
		/* the interval's metric took the total's unit and direction */
		CHECK_STR(back->children[0]->intervals[1].metrics[0].unit, "bit/s");
		CHECK_INT(back->children[0]->intervals[1].metrics[0].better, BP_BETTER_HIGHER);
		CHECK(isnan(back->children[0]->metrics[2].value));
	}
	free(a);
	free(b);
	json_decref(doc);
	bp_result_free(r);
	bp_result_free(back);
}

static void refused(const char *text, const char *want)
{
	json_t *doc = json_loads(text, 0, NULL);
	char err[256] = "";
	struct bp_result *r = bp_result_from_json(doc, err, sizeof(err));

	CHECK(r == NULL);
	CHECK(strstr(err, want) != NULL);
	if (!strstr(err, want))
		printf("#   err: '%s' (want '%s')\n", err, want);
	bp_result_free(r);
	json_decref(doc);
}

static void test_refused(void)
{
	refused("[]", "schema");
	refused("{\"schema\": \"boardperf/2\", \"test\": \"tcp\"}", "schema");
	refused("{\"schema\": \"boardperf/1\"}", "test");
	refused("{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": "
		"[{\"name\": \"x\", \"value\": \"1\", \"unit\": \"B\", \"better\": \"higher\"}]}",
		"metrics[0]");
	refused("{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": "
		"[{\"name\": \"x\", \"value\": 1, \"unit\": \"B\", \"better\": \"up\"}]}",
		"better");
	refused("{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], "
		"\"latency\": {}, \"intervals\": [{\"start\": 0}]}", "intervals[0]");
	refused("{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], "
		"\"intervals\": [], \"latency\": {}, \"warnings\": [], \"error\": 3}", "error");
	refused("{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"intervals\": [],"
		" \"latency\": {}, \"warnings\": [], \"results\": [{\"schema\": \"x\"}]}",
		"results[0].schema");
	/* a suite of suites beyond the bound */
	refused("{\"schema\":\"boardperf/1\",\"test\":\"s\",\"metrics\":[],\"intervals\":[],"
		"\"latency\":{},\"warnings\":[],\"results\":[{\"schema\":\"boardperf/1\",\"test\":\"s\","
		"\"metrics\":[],\"intervals\":[],\"latency\":{},\"warnings\":[],\"results\":["
		"{\"schema\":\"boardperf/1\",\"test\":\"s\",\"metrics\":[],\"intervals\":[],"
		"\"latency\":{},\"warnings\":[],\"results\":[{\"schema\":\"boardperf/1\",\"test\":\"s\","
		"\"metrics\":[],\"intervals\":[],\"latency\":{},\"warnings\":[],\"results\":["
		"{\"schema\":\"boardperf/1\",\"test\":\"s\",\"metrics\":[],\"intervals\":[],"
		"\"latency\":{},\"warnings\":[],\"results\":[]}]}]}]}]}", "nesting");
}

int main(void)
{
	test_round_trip();
	test_refused();
	return tap_done();
}
