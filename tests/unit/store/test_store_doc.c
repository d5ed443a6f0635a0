/* Result documents from files: each malformed one refused with the reason a user can act on,
 * each valid one (the renderer's shape, a suite, later fields) accepted. */
#include <string.h>

#include "store/store_doc.h"
#include "tests/unit/tap.h"

#define OK_METRIC "{\"name\": \"rtt\", \"value\": 1.5, \"unit\": \"ns\", \"better\": \"lower\"}"

#define LEAF(t) "{\"schema\": \"boardperf/1\", \"test\": \"" t "\", \"metrics\": []}"
#define DEEP(t, kid) "{\"schema\": \"boardperf/1\", \"test\": \"" t "\", \"metrics\": [], " \
	"\"results\": [" kid "]}"

static const struct {
	const char *json;
	const char *why;  /* NULL: accepted; else a part of the reason */
} cases[] = {
	{ "{\"schema\": \"boardperf/1\", \"test\": \"rr\", \"metrics\": [" OK_METRIC "]}", NULL },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], \"error\": null,"
	  " \"params\": {\"label\": \"opi\"}, \"env\": {\"collected_at\": \"2026-11-30T12:00:00Z\"},"
	  " \"new-field\": [1, 2]}", NULL },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"rr\", \"metrics\": [{\"name\": \"x\","
	  " \"value\": null, \"unit\": \"\", \"better\": \"none\"}]}", NULL },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"cpu\", \"metrics\": [" OK_METRIC "]}]}", NULL },
	{ "", "not JSON: line 1" },
	{ "[1, 2]", "the document: expected a JSON object" },
	{ "{\"schema\": \"boardperf/1\", \"schema\": \"boardperf/1\"}", "duplicate" },
	{ "{\"test\": \"tcp\", \"metrics\": []}", "schema: expected \"boardperf/1\"" },
	{ "{\"schema\": \"boardperf/2\", \"test\": \"tcp\", \"metrics\": []}", "schema: expected" },
	{ "{\"schema\": \"boardperf/1\", \"metrics\": []}", "test: expected a command name" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"TCP; DROP\", \"metrics\": []}", "test:" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"\", \"metrics\": []}", "test:" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\"}", "metrics: expected an array" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [1]}",
	  "metrics[0]: expected an object" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [" OK_METRIC ", {\"value\":"
	  " 1, \"unit\": \"\", \"better\": \"none\"}]}", "metrics[1].name" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [{\"name\": \"x\","
	  " \"value\": \"fast\", \"unit\": \"\", \"better\": \"none\"}]}",
	  "metrics[0].value: expected a number or null" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [{\"name\": \"x\","
	  " \"value\": 1, \"better\": \"none\"}]}", "metrics[0].unit" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [{\"name\": \"x\","
	  " \"value\": 1, \"unit\": \"\", \"better\": \"faster\"}]}", "metrics[0].better" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], \"params\": 3}",
	  "params: expected an object" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], \"params\":"
	  " {\"label\": 7}}", "params.label" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], \"env\": []}",
	  "env: expected an object" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"tcp\", \"metrics\": [], \"env\":"
	  " {\"collected_at\": \"yesterday\"}}", "env.collected_at" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"results\": {}}",
	  "results: expected an array" },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"cpu\"}]}", "results[0].metrics" },
	/* a suite of suites (run's latency step) is read, its grandchildren checked too */
	{ "{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"latency\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"rr\", \"metrics\": []}]}]}", NULL },
	{ "{\"schema\": \"boardperf/1\", \"test\": \"run\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"latency\", \"metrics\": [], \"results\": ["
	  "{\"schema\": \"boardperf/1\", \"test\": \"rr\", \"metrics\": {}}]}]}",
	  "results[0].results[0].metrics: expected an array" },
	/* as deep as result_doc.c reads (BP_RESULT_DOC_DEPTH), no deeper */
	{ DEEP("run", DEEP("run", DEEP("run", DEEP("run", LEAF("cpu"))))), NULL },
	{ DEEP("run", DEEP("run", DEEP("run", DEEP("run", DEEP("run", LEAF("cpu")))))),
	  "results[0].results[0].results[0].results[0].results: expected at most 4 levels" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[512] = "";
		json_t *doc = bp_store_doc_parse(cases[i].json, strlen(cases[i].json), err,
						 sizeof(err));

		if (!cases[i].why) {
			CHECK(doc != NULL);
			if (!doc)
				printf("#   case %zu refused: %s\n", i, err);
		} else {
			CHECK(doc == NULL && strstr(err, cases[i].why) && !strchr(err, '\n'));
			if (doc || !strstr(err, cases[i].why))
				printf("#   case %zu: '%s', want '%s'\n", i, err, cases[i].why);
		}
		json_decref(doc);
	}
	{
		char err[512] = "";

		CHECK(bp_store_doc_load("/nonexistent/x.json", err, sizeof(err)) == NULL);
		CHECK(strstr(err, "/nonexistent/x.json: No such file") != NULL);
		CHECK(bp_store_doc_load("/dev/null", err, sizeof(err)) == NULL);
		CHECK(strstr(err, "/dev/null: expected a result document file") != NULL);
	}
	return tap_done();
}
