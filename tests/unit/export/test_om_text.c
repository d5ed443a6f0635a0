/* The OpenMetrics / Prometheus text writer: escaping per the specs, headers, samples. */
#include <math.h>
#include <stdlib.h>

#include "export/om_text.h"
#include "tap.h"

/* What fn wrote, as a string (the caller frees it). */
#define CAPTURE(buf, code) do { \
	size_t len_; \
	FILE *out = open_memstream(&(buf), &len_); \
	code; \
	fclose(out); \
} while (0)

static char *escaped(enum bp_om_format f, const char *s, bool help)
{
	char *buf = NULL;

	CAPTURE(buf, bp_om_escape(out, f, s, help));
	return buf;
}

static void check_escape(enum bp_om_format f, const char *in, bool help, const char *want)
{
	char *got = escaped(f, in, help);

	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	char *buf = NULL;

	/* Label values: backslash, double quote and newline, in both formats. */
	check_escape(BP_OM_OPENMETRICS, "a\\b\"c\nd", false, "a\\\\b\\\"c\\nd");
	check_escape(BP_OM_PROMETHEUS, "a\\b\"c\nd", false, "a\\\\b\\\"c\\nd");
	/* HELP: the text format 0.0.4 keeps the quote, OpenMetrics escapes it. */
	check_escape(BP_OM_PROMETHEUS, "say \"hi\"\\\n", true, "say \"hi\"\\\\\\n");
	check_escape(BP_OM_OPENMETRICS, "say \"hi\"\\\n", true, "say \\\"hi\\\"\\\\\\n");
	/* UTF-8 passes; bytes that are not UTF-8 become '?' (overlong, surrogate, cut). */
	check_escape(BP_OM_OPENMETRICS, "Orange Pi \xc3\xa9\xe2\x82\xac\xf0\x9f\x8d\x8a", false,
		     "Orange Pi \xc3\xa9\xe2\x82\xac\xf0\x9f\x8d\x8a");
	check_escape(BP_OM_OPENMETRICS, "a\xc0\xafz", false, "a??z");
	check_escape(BP_OM_OPENMETRICS, "a\xed\xa0\x80z", false, "a???z");
	check_escape(BP_OM_OPENMETRICS, "a\xe2\x82", false, "a??");
	check_escape(BP_OM_OPENMETRICS, "\xff\xfe", false, "??");
	check_escape(BP_OM_OPENMETRICS, "\xf4\x90\x80\x80", false, "????");
	check_escape(BP_OM_OPENMETRICS, "", false, "");

	/* A gauge's header in OpenMetrics: TYPE, UNIT, HELP. */
	CAPTURE(buf, bp_om_family(out, BP_OM_OPENMETRICS, "boardperf_x_bytes", BP_OM_GAUGE,
				  "bytes", "the \"x\"\n"));
	CHECK_STR(buf, "# TYPE boardperf_x_bytes gauge\n# UNIT boardperf_x_bytes bytes\n"
		  "# HELP boardperf_x_bytes the \\\"x\\\"\\n\n");
	free(buf);
	/* A counter: OpenMetrics names the family, the text format its _total sample. */
	CAPTURE(buf, bp_om_family(out, BP_OM_OPENMETRICS, "boardperf_t", BP_OM_COUNTER, "",
				  "tests"));
	CHECK_STR(buf, "# TYPE boardperf_t counter\n# HELP boardperf_t tests\n");
	free(buf);
	CAPTURE(buf, bp_om_family(out, BP_OM_PROMETHEUS, "boardperf_t", BP_OM_COUNTER, "bytes",
				  "tests"));
	CHECK_STR(buf, "# TYPE boardperf_t_total counter\n# HELP boardperf_t_total tests\n");
	free(buf);

	/* Samples: empty labels left out, values as their shortest exact digits. */
	{
		struct bp_om_label l[3] = { { "test", "tcp" }, { "label", "" },
					    { "board", "Pi \"3\"" } };
		bool ok[5];

		CAPTURE(buf, (ok[0] = bp_om_sample(out, BP_OM_GAUGE, "g", l, 3, 11700000),
			      ok[1] = bp_om_sample(out, BP_OM_COUNTER, "c", l, 1, 3),
			      ok[2] = bp_om_sample(out, BP_OM_GAUGE, "g", NULL, 0, 0.1),
			      ok[3] = bp_om_sample(out, BP_OM_GAUGE, "g", l, 3, NAN),
			      ok[4] = bp_om_sample(out, BP_OM_GAUGE, "g", l, 3, -INFINITY)));
		CHECK_STR(buf, "g{test=\"tcp\",board=\"Pi \\\"3\\\"\"} 11700000\n"
			  "c_total{test=\"tcp\"} 3\ng 0.1\n");
		CHECK(ok[0] && ok[1] && ok[2]);
		CHECK(!ok[3] && !ok[4]);
		free(buf);
	}
	/* Every double reads back as itself. */
	{
		static const double v[] = { 1.0 / 3, 1e-300, 1.7976931348623157e308, 123456789.125,
					    -0.0, 4.9e-324 };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			CAPTURE(buf, bp_om_number(out, v[i]));
			CHECK(strtod(buf, NULL) == v[i]);
			free(buf);
		}
	}
	CAPTURE(buf, bp_om_end(out, BP_OM_OPENMETRICS));
	CHECK_STR(buf, "# EOF\n");
	free(buf);
	CAPTURE(buf, bp_om_end(out, BP_OM_PROMETHEUS));
	CHECK_STR(buf, "");
	free(buf);

	{
		char s[] = "ok \xc3\xa9 \xff\xc0\xaf \xe2\x82";

		bp_om_utf8_clean(s);
		CHECK_STR(s, "ok \xc3\xa9 ??? ??");
	}
	CHECK(bp_om_valid_name("boardperf_x:y", false));
	CHECK(!bp_om_valid_name("boardperf_x:y", true));
	CHECK(!bp_om_valid_name("1x", false));
	CHECK(!bp_om_valid_name("a-b", false));
	CHECK(!bp_om_valid_name("", true));
	CHECK_STR(bp_om_content_type(BP_OM_OPENMETRICS),
		  "application/openmetrics-text; version=1.0.0; charset=utf-8");
	CHECK_STR(bp_om_content_type(BP_OM_PROMETHEUS), "text/plain; version=0.0.4; charset=utf-8");
	return tap_done();
}
