/*
 * The HTML page of `boardperf report` (src/report) from hand-made result documents: what
 * each chart draws is read back from the page and checked against the documents' values;
 * the page has no network reference, escapes what documents say, survives documents with
 * missing or mistyped members, and names a document that is not a result.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "kinds.h"
#include "tap.h"

static char err[256];

static json_t *doc(const char *text)
{
	json_error_t e;
	json_t *d = json_loads(text, 0, &e);

	if (!d)
		printf("# fixture: %s at %d\n", e.text, e.line);
	return d;
}

static const char tcp_a[] =
	"{\"schema\":\"boardperf/1\",\"test\":\"tcp\",\"params\":{\"label\":\"opi <zero>\"},"
	"\"env\":{\"boardperf\":{\"version\":\"0.1.0\"},\"collected_at\":\"2026-12-01T10:00:00Z\","
	"\"inventory\":{\"board\":{\"model\":\"Xunlong Orange Pi Zero\"}}},"
	"\"metrics\":[{\"name\":\"receiver.bitrate\",\"value\":94.1e6,\"unit\":\"bit/s\","
	"\"better\":\"higher\"},{\"name\":\"sender.span\",\"value\":1e9,\"unit\":\"ns\"}],"
	"\"latency\":{},\"intervals\":["
	"{\"start\":0,\"end\":0.5,\"metrics\":{\"receiver.bitrate\":93.5e6,\"sender.span\":5e8,"
	"\"rtt\":1200,\"cwnd\":65536}},"
	"{\"start\":0.5,\"end\":1.0,\"metrics\":{\"receiver.bitrate\":94.7e6,\"sender.span\":5e8,"
	"\"rtt\":null}}],\"warnings\":[],\"error\":null}";

static const char tcp_b[] =
	"{\"schema\":\"boardperf/1\",\"test\":\"tcp\",\"params\":{},"
	"\"env\":{\"boardperf\":{\"version\":\"0.1.0\"},\"collected_at\":\"2026-12-01T11:00:00Z\","
	"\"inventory\":{\"board\":{\"model\":null},\"cpu\":{\"summary\":\"4x Cortex-A53\"}}},"
	"\"metrics\":[{\"name\":\"receiver.bitrate\",\"value\":941e6,\"unit\":\"bit/s\","
	"\"better\":\"higher\"}],\"latency\":{},\"intervals\":["
	"{\"start\":0,\"end\":1,\"metrics\":{\"receiver.bitrate\":941e6,\"rtt\":250}}],"
	"\"warnings\":[],\"error\":null}";

/* a suite: rr with a latency summary, rfc2544, cpu with two workers */
static const char suite[] =
	"{\"schema\":\"boardperf/1\",\"test\":\"run\",\"params\":{\"label\":\"rpi3\"},"
	"\"env\":{\"collected_at\":\"2026-12-01T12:00:00Z\"},\"metrics\":[],\"latency\":{},"
	"\"intervals\":[],\"warnings\":[],\"error\":null,\"results\":["
	"{\"test\":\"rr\",\"metrics\":[],\"intervals\":[],\"latency\":{\"transaction\":"
	"{\"unit\":\"ns\",\"p50\":15071,\"p90\":18623,\"p99\":38271,\"p99.9\":3825663,"
	"\"p99.99\":5881855}}},"
	"{\"test\":\"rfc2544\",\"metrics\":["
	"{\"name\":\"frame1518.zero_loss.fps\",\"value\":16254.8,\"unit\":\"pkt/s\"},"
	"{\"name\":\"frame64.zero_loss.fps\",\"value\":138509.2,\"unit\":\"pkt/s\"},"
	"{\"name\":\"frame64.zero_loss.bitrate\",\"value\":70916699.9,\"unit\":\"bit/s\"}],"
	"\"intervals\":[{\"start\":0,\"end\":0.2,\"metrics\":{\"frame\":64}}]},"
	"{\"test\":\"cpu\",\"params\":{\"workers\":2},\"metrics\":["
	"{\"name\":\"sha256.16\",\"value\":38277609.2,\"unit\":\"B/s\"},"
	"{\"name\":\"sha256.16.worker0\",\"value\":39153653.3,\"unit\":\"B/s\"},"
	"{\"name\":\"sha256.16.all\",\"value\":62966253.1,\"unit\":\"B/s\"},"
	"{\"name\":\"sha256.16.scaling\",\"value\":82.2,\"unit\":\"percent\"},"
	"{\"name\":\"rsa2048.sign\",\"value\":2693.9,\"unit\":\"op/s\"}]}]}";

/* every member of the wrong type or missing */
static const char odd[] =
	"{\"test\":\"tcp\",\"params\":7,\"env\":[],\"metrics\":{\"x\":1},\"latency\":"
	"{\"rtt\":{\"p50\":\"fast\",\"p99\":null},\"bad\":3},\"intervals\":[1,{\"end\":\"x\","
	"\"metrics\":[]},{\"end\":2,\"metrics\":{\"receiver.bitrate\":\"lots\"}}],"
	"\"results\":\"none\"}";

static char *page(const struct bp_report_run *runs, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	*rc = bp_report_write(f, runs, n, err, sizeof(err));
	fclose(f);
	return buf;
}

/* The data-y values of class cls in chart id, in document order. */
static size_t chart_values(const char *html, const char *id, const char *cls, const char *attr,
			   double *v, size_t max)
{
	char key[200], ck[64], ak[32];
	const char *p, *end;
	size_t n = 0;

	snprintf(key, sizeof(key), "data-chart=\"%s\"", id);
	snprintf(ck, sizeof(ck), "class=\"%s\"", cls);
	snprintf(ak, sizeof(ak), " %s=\"", attr);
	p = strstr(html, key);
	end = p ? strstr(p, "</svg>") : NULL;
	for (p = p ? strstr(p, ck) : NULL; p && p < end && n < max; p = strstr(p + 1, ck)) {
		const char *a = strstr(p, ak);

		if (a && a < strchr(p, '>'))
			v[n++] = strtod(a + strlen(ak), NULL);
	}
	return n;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* No reference the page would fetch: every "//" is the SVG namespace's. */
static int no_network(const char *html)
{
	static const char ns[] = "http://www.w3.org/2000/svg";

	for (const char *p = strstr(html, "//"); p; p = strstr(p + 2, "//"))
		if (p < html + 5 || strncmp(p - 5, ns, strlen(ns)))
			return 0;
	return !strstr(html, "https:") && !strstr(html, "<script") && !strstr(html, "url(");
}

static void test_page(void)
{
	json_t *a = doc(tcp_a), *b = doc(tcp_b), *s = doc(suite);
	const struct bp_report_run runs[] = { { "a.json", a }, { "#2", b }, { "rpi3", s } };
	double v[16];
	char *html;
	int rc;

	html = page(runs, 3, &rc);
	CHECK_INT(rc, 0);
	CHECK(html && !strncmp(html, "<!DOCTYPE html>", 15));
	CHECK(no_network(html));
	CHECK(count(html, "http://www.w3.org/2000/svg") == count(html, "<svg"));
	/* the runs table: one row per run, the suite with its tests, unknowns said */
	CHECK_INT(count(html, "<tr class=\"run\">"), 3);
	CHECK(strstr(html, "<td>run: rr, rfc2544, cpu</td>") != NULL);
	CHECK(strstr(html, "<td>Xunlong Orange Pi Zero</td>") != NULL);
	/* no model: the CPU, as compare names it; nothing at all: unknown */
	CHECK(strstr(html, "<td>4x Cortex-A53</td>") != NULL);
	CHECK(strstr(html, "<td class=\"unknown\">unknown</td>") != NULL);
	CHECK(strstr(html, "<td>opi &lt;zero&gt;</td>") != NULL && !strstr(html, "<zero>"));
	/* tcp: both runs in one chart, each interval at its end; spans and cwnd not drawn */
	CHECK_INT(chart_values(html, "tcp.interval.receiver.bitrate", "point", "data-y", v, 16), 3);
	CHECK(v[0] == 93.5e6 && v[1] == 94.7e6 && v[2] == 941e6);
	CHECK_INT(chart_values(html, "tcp.interval.receiver.bitrate", "point", "data-x", v, 16), 3);
	CHECK(v[0] == 0.5 && v[1] == 1.0 && v[2] == 1);
	CHECK_INT(count(html, "class=\"legend-item\" data-series=\"a.json\""), 2);
	/* rtt's null is no point */
	CHECK_INT(chart_values(html, "tcp.interval.rtt", "point", "data-y", v, 16), 2);
	CHECK(v[0] == 1200 && v[1] == 250);
	CHECK(!strstr(html, "sender.span over time") && !strstr(html, "interval.cwnd"));
	/* the suite's children, test by test */
	CHECK_INT(chart_values(html, "rr.latency.transaction", "point", "data-y", v, 16), 5);
	CHECK(v[0] == 15071 && v[4] == 5881855);
	CHECK_INT(chart_values(html, "rr.latency.transaction", "point", "data-x", v, 16), 5);
	CHECK(v[0] == 50 && v[3] == 99.9 && v[4] == 99.99);
	CHECK_INT(chart_values(html, "rfc2544.zero_loss.fps", "bar", "data-y", v, 16), 2);
	CHECK(v[0] == 138509.2 && v[1] == 16254.8);
	CHECK(strstr(html, "data-x=\"64 B\"") && strstr(html, "data-x=\"1518 B\""));
	CHECK(!strstr(html, "rfc2544.interval."));
	CHECK_INT(chart_values(html, "cpu.threads.sha256.16", "point", "data-x", v, 16), 2);
	CHECK(v[0] == 1 && v[1] == 2);
	CHECK_INT(chart_values(html, "cpu.threads.sha256.16", "point", "data-y", v, 16), 2);
	CHECK(v[0] == 38277609.2 && v[1] == 62966253.1);
	CHECK_INT(chart_values(html, "cpu.scaling", "bar", "data-y", v, 16), 1);
	CHECK(v[0] == 82.2);
	CHECK_INT(chart_values(html, "cpu.one_core.op_s", "bar", "data-y", v, 16), 1);
	CHECK(!strstr(html, "cpu.threads.rsa2048.sign"));
	/* the compare table last, from src/compare */
	CHECK(strstr(html, "<section id=\"compare\">") != NULL);
	CHECK(strstr(html, "class=\"bp-compare\"") > strstr(html, "data-chart=\"cpu.scaling\""));
	free(html);
	/* one run: no table, and the page says why */
	html = page(runs, 1, &rc);
	CHECK_INT(rc, 0);
	CHECK(html && strstr(html, "<p class=\"note\">No comparison table: ") != NULL);
	free(html);
	json_decref(a);
	json_decref(b);
	json_decref(s);
}

static void test_odd(void)
{
	json_t *o = doc(odd), *bad = doc("{\"schema\":\"boardperf/1\",\"metrics\":[]}");
	const struct bp_report_run runs[] = { { "odd", o }, { "odd", o } };
	const struct bp_report_run notdoc[] = { { "odd", o }, { "x.json", bad } };
	char *html;
	int rc;

	html = page(runs, 2, &rc);
	CHECK_INT(rc, 0);
	CHECK(html && no_network(html));
	CHECK_INT(count(html, "<svg"), 0);
	/* a chart with nothing to draw is a line in its place */
	CHECK(strstr(html, "<p class=\"note\" data-chart=\"tcp.latency.rtt\">Not drawn: chart "
		     "&#39;tcp.latency.rtt&#39;: no point to draw</p>") != NULL);
	free(html);
	html = page(notdoc, 2, &rc);
	CHECK_INT(rc, -EINVAL);
	CHECK_STR(err, "run 'x.json': not a boardperf result (no \"test\")");
	free(html);
	json_decref(o);
	json_decref(bad);
}

/* Two runs with one name: the legend tells them apart. */
static void test_same_name(void)
{
	json_t *a = doc(tcp_a), *b = doc(tcp_b);
	const struct bp_report_run runs[] = { { "box", a }, { "box", b } };
	char *html;
	int rc;

	html = page(runs, 2, &rc);
	CHECK_INT(rc, 0);
	CHECK(html && strstr(html, "data-series=\"box (2)\"") != NULL);
	free(html);
	json_decref(a);
	json_decref(b);
}

int main(void)
{
	install_all_kinds(); /* the kinds say which charts and labels (result/kind.h) */
	test_page();
	test_odd();
	test_same_name();
	return tap_done();
}
