/*
 * compare: the model against figures worked out by hand from the fixtures (ratios, the
 * direction of each mark, the geometric means, metrics only some runs have, parameters that
 * differ and those that may), its errors, the escaping of each format, and the five
 * renderings of three runs pinned by golden files (BP_UPDATE_GOLDEN=1 rewrites them).
 *
 * Fixtures (tests/unit/compare/fixtures): opi.json and rpi.json are suites of cpu, udp, rr
 * (and mem, only in opi); pc-cpu.json a single cpu result that could not finish.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare/compare.h"
#include "compare/compare_model.h"
#include "compare/compare_render.h"
#include "kinds.h"
#include "tap.h"
#include "golden_check.h"

static const char *fixtures, *golden;

static json_t *load(const char *name)
{
	char path[4096];
	json_error_t e;
	json_t *doc;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	doc = json_load_file(path, 0, &e);
	if (!doc)
		printf("# %s: %s\n", path, e.text);
	return doc;
}

static char *render(const struct bp_compare *c, enum bp_compare_format f)
{
	char *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	int rc;

	if (!m)
		return NULL;
	rc = bp_compare_render(c, f, m);
	fclose(m);
	if (rc) {
		printf("# bp_compare_render: %d\n", rc);
		free(buf);
		return NULL;
	}
	return buf;
}

/* A rendering against the golden file of that name (golden_check.h). */
static void golden_compare(const struct bp_compare *c, enum bp_compare_format f,
			   const char *name)
{
	char *got = render(c, f);

	golden_check_text(golden, got, name);
	free(got);
}

/* The three fixtures as one comparison: opi, rpi3, pc. */
static struct bp_compare *three(char *err, size_t errlen)
{
	json_t *docs[3] = { load("opi.json"), load("rpi.json"), load("pc-cpu.json") };
	const char *names[3] = { "opi-zero", "rpi3", "pc-cpu.json" };
	struct bp_compare *c = NULL;

	if (docs[0] && docs[1] && docs[2])
		c = bp_compare_build(docs, names, 3, err, errlen);
	for (int i = 0; i < 3; i++)
		json_decref(docs[i]);
	return c;
}

static const struct bp_cmp_group *group(const struct bp_compare *c, const char *test)
{
	for (size_t i = 0; c && i < c->ngroups; i++)
		if (!strcmp(c->groups[i].test, test))
			return &c->groups[i];
	return NULL;
}

static const struct bp_cmp_row *row(const struct bp_cmp_group *g, const char *name)
{
	for (size_t i = 0; g && i < g->nrows; i++)
		if (!strcmp(g->rows[i].name, name))
			return &g->rows[i];
	return NULL;
}

static void test_model(void)
{
	char err[256] = "";
	struct bp_compare *c = three(err, sizeof(err));
	const struct bp_cmp_group *cpu = group(c, "cpu"), *udp = group(c, "udp");
	const struct bp_cmp_group *rr = group(c, "rr");
	const struct bp_cmp_row *r;

	CHECK(c != NULL);
	if (!c) {
		printf("# %s\n", err);
		return;
	}
	CHECK_INT(c->nruns, 3);
	CHECK_STR(c->runs[0].board, "Xunlong Orange Pi Zero");
	CHECK_STR(c->runs[2].board, "2x AMD EPYC");  /* no board model: the CPU */
	CHECK_STR(c->runs[1].label, "rpi3");
	CHECK_STR(c->runs[0].date, "2026-12-01T10:00:00Z");
	CHECK_INT(c->ngroups, 3);
	/* cpu in all three, udp and rr in the two suites, mem only in opi */
	CHECK(cpu && cpu->ncols == 3 && cpu->run[2] == 2);
	CHECK(udp && udp->ncols == 2 && rr && rr->ncols == 2);
	CHECK_INT(c->nsingles, 1);
	CHECK_STR(c->singles[0].test, "mem");
	CHECK_INT(c->singles[0].run, 0);

	/* ratios to the first run, marks by "better" */
	r = row(cpu, "sha256.8192");
	CHECK(r && r->ratio[0] == 1 && r->ratio[1] == 1.5 && r->ratio[2] == 0.5);
	CHECK(r && r->mark[0] == BP_CMP_MARK_NONE && r->mark[1] == BP_CMP_MARK_BETTER &&
	      r->mark[2] == BP_CMP_MARK_WORSE);
	r = row(cpu, "sha256.8192.cpu");  /* "none": a ratio, no mark; a null value: n/a */
	CHECK(r && r->better == BP_BETTER_NONE && fabs(r->ratio[1] - 99.0 / 99.5) < 1e-12);
	CHECK(r && r->mark[1] == BP_CMP_MARK_NONE && isnan(r->value[2]) && isnan(r->ratio[2]));
	r = row(udp, "jitter");           /* lower is better: half the jitter is better */
	CHECK(r && r->ratio[1] == 0.5 && r->mark[1] == BP_CMP_MARK_BETTER);
	r = row(udp, "receiver.pps");
	CHECK(r && r->ratio[1] == 0.8 && r->mark[1] == BP_CMP_MARK_WORSE);
	r = row(udp, "loss.percent");     /* 0 -> 0.5 %: no ratio, still worse */
	CHECK(r && isnan(r->ratio[1]) && r->mark[1] == BP_CMP_MARK_WORSE);
	r = row(rr, "latency.transaction.p50");
	CHECK(r && r->better == BP_BETTER_LOWER && r->ratio[1] == 0.875 &&
	      r->mark[1] == BP_CMP_MARK_BETTER);
	r = row(rr, "latency.transaction.p99");  /* null in rpi3 */
	CHECK(r && isnan(r->value[1]) && r->mark[1] == BP_CMP_MARK_NONE);
	CHECK(row(rr, "latency.transaction.mean") == NULL);  /* only p50 and p99 count */

	/* geometric means over the oriented ratios of the kind's headline figures */
	CHECK(cpu && cpu->geocount[1] == 1 && cpu->geomean[1] == 1.5);
	CHECK(cpu && cpu->geocount[2] == 1 && cpu->geomean[2] == 0.5 &&
	      cpu->geomark[2] == BP_CMP_MARK_WORSE);
	/* udp's headline: pps 0.8; loss (0 to 0.5 %) has no ratio: named, not dropped; jitter
	 * is no headline figure */
	CHECK(udp && udp->geocount[1] == 1);
	CHECK_NEAR(udp ? udp->geomean[1] : 0, 0.8, 1e-12);
	CHECK_STR(udp && udp->left_out[1] ? udp->left_out[1] : "(none)",
		  "loss.percent (0 in the base run)");
	CHECK(udp && !udp->mixed[1]);
	/* rr: rate 1.2, p50 1/0.875; p99 is null */
	CHECK(rr && rr->geocount[1] == 2);
	CHECK_NEAR(rr ? rr->geomean[1] : 0, sqrt(1.2 / 0.875), 1e-12);
	CHECK(cpu && isnan(cpu->geomean[0]));

	/* metrics only some runs have: listed with the runs that have them */
	CHECK(cpu && cpu->npartial == 1 && !strcmp(cpu->partial[0].name, "rsa2048.sign") &&
	      cpu->partial[0].mask == 2u && cpu->partial[0].value[1] == 120);

	/* parameters: udp's length differs; port, client, server never count */
	CHECK(udp && udp->nparams == 1 && !strcmp(udp->params[0].name, "length"));
	CHECK(udp && udp->nparams == 1 && !udp->params[0].differs[0] &&
	      udp->params[0].differs[1]);
	/* cpu: openssl's version, the CPU features and workers are the machine's */
	CHECK(cpu && cpu->nparams == 0);
	CHECK(rr && rr->nparams == 0);

	/* warnings and errors, per column */
	CHECK_STR(udp ? udp->warnings[0] : NULL, "tester-cpu-bound");
	CHECK(udp && udp->warnings[1] == NULL);
	CHECK_STR(cpu ? cpu->error[2] : NULL, "stopped by signal 2 before the second item");
	bp_compare_free(c);
}

static void test_goldens(void)
{
	char err[256] = "";
	struct bp_compare *c = three(err, sizeof(err));

	CHECK(c != NULL);
	if (!c)
		return;
	golden_compare(c, BP_COMPARE_TEXT, "compare.txt");
	golden_compare(c, BP_COMPARE_MARKDOWN, "compare.md");
	golden_compare(c, BP_COMPARE_CSV, "compare.csv");
	golden_compare(c, BP_COMPARE_HTML, "compare.html");
	golden_compare(c, BP_COMPARE_JSON, "compare.json");
	bp_compare_free(c);
}

/* The JSON rendering says what the model holds (and reads back as JSON). */
static void test_json_shape(void)
{
	char err[256] = "";
	struct bp_compare *c = three(err, sizeof(err));
	char *text = c ? render(c, BP_COMPARE_JSON) : NULL;
	json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
	json_t *udp = json_array_get(json_object_get(doc, "tests"), 1);
	json_t *m = json_array_get(json_object_get(udp, "metrics"), 0);

	CHECK(doc != NULL);
	CHECK_STR(json_string_value(json_object_get(doc, "schema")), "boardperf-compare/1");
	CHECK_STR(json_string_value(json_object_get(udp, "test")), "udp");
	CHECK_STR(json_string_value(json_object_get(m, "name")), "receiver.pps");
	CHECK(json_real_value(json_array_get(json_object_get(m, "ratios"), 1)) == 0.8);
	CHECK_STR(json_string_value(json_array_get(json_object_get(m, "marks"), 1)), "worse");
	CHECK(json_is_null(json_array_get(json_object_get(m, "marks"), 0)));
	CHECK_INT(json_integer_value(json_array_get(json_object_get(json_object_get(udp,
		  "geomean"), "counts"), 1)), 1);
	CHECK_STR(json_string_value(json_array_get(json_object_get(json_object_get(udp,
		  "geomean"), "left_out"), 1)), "loss.percent (0 in the base run)");
	CHECK_INT(json_array_size(json_object_get(doc, "not_compared")), 1);
	json_decref(doc);
	free(text);
	bp_compare_free(c);
}

static json_t *tiny(const char *test, const char *metric, double value, const char *label)
{
	return json_pack("{s:s, s:s, s:{s:s}, s:[{s:s, s:f, s:s, s:s}], s:{}, s:[], s:n}",
			 "schema", "boardperf/1", "test", test, "params", "label", label,
			 "metrics", "name", metric, "value", value, "unit", "B/s", "better",
			 "higher", "latency", "warnings", "error");
}

static void check_build_fails(json_t *const *docs, const char *const *names, size_t n,
			      const char *want)
{
	char err[256] = "";
	struct bp_compare *c = bp_compare_build(docs, names, n, err, sizeof(err));

	CHECK(c == NULL);
	CHECK_STR(err, want);
	bp_compare_free(c);
}

static void test_errors(void)
{
	json_t *a = tiny("tcp", "x", 1, "a"), *b = tiny("udp", "x", 2, "b");
	json_t *bad = json_pack("{s:s}", "test", "tcp");
	json_t *v2 = json_pack("{s:s, s:s}", "schema", "boardperf/2", "test", "tcp");
	json_t *suite = json_pack("{s:s, s:s, s:[i]}", "schema", "boardperf/1", "test", "run",
				  "results", 3);
	json_t *arr = json_array();

	check_build_fails((json_t *[]){ a }, (const char *[]){ "a" }, 1,
			  "compare needs two to 16 runs, got 1");
	check_build_fails((json_t *[]){ a, b }, (const char *[]){ "a.json", "b.json" }, 2,
			  "no test that two of the runs have: 'a.json' ran tcp, 'b.json' ran udp");
	check_build_fails((json_t *[]){ a, bad }, (const char *[]){ "a", "bad.json" }, 2,
			  "'bad.json': not a boardperf result (expected a JSON object with "
			  "\"schema\": \"boardperf/1\")");
	check_build_fails((json_t *[]){ arr, a }, (const char *[]){ "list.json", "a" }, 2,
			  "'list.json': not a boardperf result (expected a JSON object with "
			  "\"schema\": \"boardperf/1\")");
	check_build_fails((json_t *[]){ a, v2 }, (const char *[]){ "a", "new.json" }, 2,
			  "'new.json': schema 'boardperf/2' is not one this boardperf reads "
			  "(boardperf/1)");
	check_build_fails((json_t *[]){ a, suite }, (const char *[]){ "a", "s" }, 2,
			  "'s': results[0] is not a result (no \"test\")");
	json_decref(a);
	json_decref(b);
	json_decref(bad);
	json_decref(v2);
	json_decref(suite);
	json_decref(arr);
}

/* Names given twice or not at all; 0 against 0; a test a suite ran twice. */
static void test_names_and_edges(void)
{
	json_t *a = tiny("tcp", "x", 0, "a"), *b = tiny("tcp", "x", 0, "b");
	json_t *s1 = json_pack("{s:s, s:s, s:[O, O]}", "schema", "boardperf/1", "test", "run",
			       "results", a, a);
	char err[256] = "";
	struct bp_compare *c = bp_compare_build((json_t *[]){ a, b, a },
						(const char *[]){ "x", "x", NULL }, 3, err,
						sizeof(err));

	CHECK(c != NULL);
	CHECK_STR(c ? c->runs[0].name : NULL, "x");
	CHECK_STR(c ? c->runs[1].name : NULL, "x (2)");
	CHECK_STR(c ? c->runs[2].name : NULL, "run 3");
	CHECK(c && c->groups[0].rows[0].ratio[1] == 1 &&
	      c->groups[0].rows[0].mark[1] == BP_CMP_MARK_SAME);
	bp_compare_free(c);
	c = bp_compare_build((json_t *[]){ s1, s1 }, (const char *[]){ "s", "t" }, 2, err,
			     sizeof(err));
	CHECK(c && c->ngroups == 2);
	CHECK_STR(c && c->ngroups == 2 ? c->groups[1].test : NULL, "tcp (2)");
	bp_compare_free(c);
	json_decref(a);
	json_decref(b);
	json_decref(s1);
}

static void test_marks_and_ratios(void)
{
	static const struct {
		enum bp_better better;
		double base, value, ratio;
		enum bp_cmp_mark want;
	} cases[] = {
		{ BP_BETTER_HIGHER, 100, 130, 1.3, BP_CMP_MARK_BETTER },
		{ BP_BETTER_HIGHER, 100, 70, 0.7, BP_CMP_MARK_WORSE },
		{ BP_BETTER_LOWER, 100, 70, 0.7, BP_CMP_MARK_BETTER },
		{ BP_BETTER_LOWER, 100, 130, 1.3, BP_CMP_MARK_WORSE },
		{ BP_BETTER_HIGHER, 1000, 1004, 1.004, BP_CMP_MARK_SAME },  /* prints 1.00x */
		{ BP_BETTER_HIGHER, 1000, 1006, 1.006, BP_CMP_MARK_BETTER }, /* prints 1.01x */
		{ BP_BETTER_LOWER, 0, 5, NAN, BP_CMP_MARK_WORSE },          /* 0 -> 5 retransmits */
		{ BP_BETTER_NONE, 100, 130, 1.3, BP_CMP_MARK_NONE },
		{ BP_BETTER_HIGHER, NAN, 130, NAN, BP_CMP_MARK_NONE },
	};
	static const struct {
		double ratio;
		const char *want;
	} formats[] = {
		{ 1.3, "1.30x" }, { 0.875, "0.88x" }, { 9.996, "10.0x" }, { 27.54, "27.5x" },
		{ 340.2, "340x" }, { 0.0123, "0.012x" }, { 0, "0.00x" }, { NAN, "n/a" },
	};
	char buf[BP_CMP_RATIO_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(bp_cmp_mark_of(cases[i].better, cases[i].base, cases[i].value,
					 cases[i].ratio), cases[i].want);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		CHECK_STR(bp_cmp_format_ratio(buf, formats[i].ratio), formats[i].want);
	CHECK(bp_cmp_param_ignored("port") && bp_cmp_param_ignored("openssl"));
	CHECK(!bp_cmp_param_ignored("length") && !bp_cmp_param_ignored("parallel"));
}

/* The path's facts that change a network figure are compared; the device's name is not. */
static void test_path_facts(void)
{
	json_t *a = tiny("tcp", "receiver.bitrate", 9e8, "a"), *b = tiny("tcp", "receiver.bitrate", 3e8, "b");
	json_t *c2 = tiny("tcp", "receiver.bitrate", 8e8, "c");
	const char *names[2] = { "cable", "radio" };
	char err[256] = "";
	struct bp_compare *c;
	const struct bp_cmp_group *g;
	char *text;

	json_object_set_new(a, "env", json_pack("{s:{s:s, s:s, s:n, s:{s:i, s:s}}}", "path",
						"device", "eth0", "medium", "wired", "vlan_id",
						"nic", "speed_mbps", 1000, "duplex", "full"));
	json_object_set_new(b, "env", json_pack("{s:{s:s, s:s, s:n, s:{s:n, s:n}}}", "path",
						"device", "wlan0", "medium", "wifi", "vlan_id",
						"nic", "speed_mbps", "duplex"));
	json_object_set_new(c2, "env", json_pack("{s:{s:s, s:s, s:n, s:{s:i, s:s}}}", "path",
						 "device", "end0", "medium", "wired", "vlan_id",
						 "nic", "speed_mbps", 1000, "duplex", "full"));
	c = bp_compare_build((json_t *[]){ a, b }, names, 2, err, sizeof(err));
	g = c ? group(c, "tcp") : NULL;
	CHECK(g && g->nparams == 3);
	for (size_t i = 0; g && i < g->nparams; i++)
		CHECK(!strcmp(g->params[i].name, "path.medium") ||
		      !strcmp(g->params[i].name, "path.speed_mbps") ||
		      !strcmp(g->params[i].name, "path.duplex"));
	text = c ? render(c, BP_COMPARE_TEXT) : NULL;
	CHECK(text && strstr(text, "path.medium") && strstr(text, "wifi"));
	free(text);
	bp_compare_free(c);
	/* two boards' wired ports, named apart: nothing differs */
	c = bp_compare_build((json_t *[]){ a, c2 }, names, 2, err, sizeof(err));
	g = c ? group(c, "tcp") : NULL;
	CHECK(g && g->nparams == 0);
	bp_compare_free(c);
	json_decref(a);
	json_decref(b);
	json_decref(c2);
}

/* Characters that mean something in each format, in names, labels and parameters. */
static void test_escaping(void)
{
	json_t *a = tiny("tcp", "odd|name_<b>*", 1, "a"), *b = tiny("tcp", "odd|name_<b>*", 2, "b");
	const char *names[2] = { "lab|el, \"q\"", "<rpi> & *3*" };
	char err[256] = "";
	struct bp_compare *c;
	char *md, *html, *csv, *text;

	json_object_set_new(json_object_get(a, "params"), "mode", json_string("x,\"y\""));
	json_object_set_new(json_object_get(b, "params"), "mode", json_string("a|b\nc"));
	c = bp_compare_build((json_t *[]){ a, b }, names, 2, err, sizeof(err));
	CHECK(c != NULL);
	if (!c)
		goto out;
	md = render(c, BP_COMPARE_MARKDOWN);
	html = render(c, BP_COMPARE_HTML);
	csv = render(c, BP_COMPARE_CSV);
	text = render(c, BP_COMPARE_TEXT);
	CHECK(md && strstr(md, "| odd\\|name\\_\\<b\\>\\* | 1 B/s | 2 B/s | 2.00x better |"));
	CHECK(md && strstr(md, "| lab\\|el, \"q\" | \\<rpi\\> & \\*3\\* |"));
	CHECK(md && strstr(md, "| param mode | x,\"y\" | a\\|b c | **differs** |"));
	CHECK(html && strstr(html, "<td>odd|name_&lt;b&gt;*</td>"));
	CHECK(html && strstr(html, "<th>lab|el, &quot;q&quot;</th><th>&lt;rpi&gt; &amp; *3*</th>"));
	CHECK(html && !strstr(html, "<rpi>"));
	CHECK(csv && strstr(csv, "test,kind,name,unit,better,\"lab|el, \"\"q\"\"\",<rpi> & *3*,"));
	CHECK(csv && strstr(csv, "tcp,param,mode,,,\"x,\"\"y\"\"\",\"a|b\nc\",,,,differs\n"));
	CHECK(csv && strstr(csv, "tcp,metric,odd|name_<b>*,B/s,higher,1,2,1,2,,better\n"));
	CHECK(text && strstr(text, "param mode") && strstr(text, "a|b c") && !strstr(text, "b\nc"));
	free(md);
	free(html);
	free(csv);
	free(text);
	bp_compare_free(c);
out:
	json_decref(a);
	json_decref(b);
}

static int count_lines_with(const char *text, const char *start)
{
	int n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, start, strlen(start));
	return n;
}

/* A tcp result of those two headline figures. */
static json_t *tcp_doc(double bitrate, double retransmits)
{
	return json_pack("{s:s, s:s, s:[{s:s, s:f, s:s, s:s}, {s:s, s:f, s:s, s:s}]}", "schema",
			 "boardperf/1", "test", "tcp", "metrics", "name", "receiver.bitrate",
			 "value", bitrate, "unit", "bit/s", "better", "higher", "name",
			 "sender.retransmits", "value", retransmits, "unit", "count", "better",
			 "lower");
}

/*
 * The case a new user caught: both bitrates 0.98x, retransmits 10 against 11 swung the mean
 * to "better". The mean says so: mixed, naming which way each figure went.
 */
static void test_mixed(void)
{
	char err[256] = "";
	json_t *docs[2] = { tcp_doc(1e9, 11), tcp_doc(0.98e9, 10) };
	const char *names[2] = { "a", "b" };
	struct bp_compare *c = bp_compare_build(docs, names, 2, err, sizeof(err));
	const struct bp_cmp_group *g = group(c, "tcp");
	char *text = c ? render(c, BP_COMPARE_TEXT) : NULL;

	CHECK(g && g->geocount[1] == 2 && g->geomark[1] == BP_CMP_MARK_BETTER);
	CHECK_STR(g && g->mixed[1] ? g->mixed[1] : "(none)",
		  "receiver.bitrate worse, sender.retransmits better");
	CHECK(text && strstr(text, "  mixed ") &&
	      strstr(text, "receiver.bitrate worse, sender.retransmits better"));
	free(text);
	/* wide enough: one table, the values and the ratio side by side; at 80 in two parts */
	setenv("COLUMNS", "200", 1);
	text = c ? render(c, BP_COMPARE_TEXT) : NULL;
	CHECK(text && strstr(text, "metric  a  b  b vs a") == NULL &&
	      strstr(text, "b vs a\n") && count_lines_with(text, "metric") == 1);
	free(text);
	setenv("COLUMNS", "40", 1);
	text = c ? render(c, BP_COMPARE_TEXT) : NULL;
	CHECK(text && count_lines_with(text, "metric") >= 2);
	free(text);
	setenv("COLUMNS", "80", 1);
	bp_compare_free(c);
	for (int i = 0; i < 2; i++)
		json_decref(docs[i]);
}

int main(int argc, char **argv)
{
	install_all_kinds();
	/* text fits the width (core/term.h): the goldens are 80 columns, wherever they run */
	setenv("COLUMNS", "80", 1);
	if (argc < 3) {
		fprintf(stderr, "usage: %s FIXTURES GOLDEN\n", argv[0]);
		return 2;
	}
	fixtures = argv[1];
	golden = argv[2];
	test_model();
	test_mixed();
	test_goldens();
	test_json_shape();
	test_errors();
	test_names_and_edges();
	test_marks_and_ratios();
	test_escaping();
	test_path_facts();
	return tap_done();
}
