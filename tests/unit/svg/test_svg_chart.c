/*
 * The SVG charts (src/svg/svg_chart.h) against golden files, byte for byte
 * (tests/unit/golden/svg_*.svg; BP_UPDATE_GOLDEN=1 rewrites them, then review the diff and
 * open the files in a browser), and the points read back from the output: every point and
 * bar carries exactly the raw values it was given, names are escaped, and a refused chart
 * (NaN, nothing to draw, zero on a log axis) writes nothing.
 *
 * Usage: test_svg_chart GOLDEN_DIR
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg/svg_chart.h"
#include "tap.h"
#include "golden_check.h"

static const char *golden_dir = "tests/unit/golden";
static char err[256];

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void out_open(struct out *o)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
}

static char *out_close(struct out *o)
{
	fclose(o->f);
	return o->buf;
}

/* The values of attribute name on each element of class cls, in document order. */
static size_t read_attr(const char *svg, const char *cls, const char *name, double *v,
			size_t max)
{
	char key[64], attr[64];
	size_t n = 0;

	snprintf(key, sizeof(key), "class=\"%s\"", cls);
	snprintf(attr, sizeof(attr), " %s=\"", name);
	for (const char *p = strstr(svg, key); p && n < max; p = strstr(p + 1, key)) {
		const char *end = strchr(p, '>'), *a = strstr(p, attr);

		if (a && a < end)
			v[n++] = strtod(a + strlen(attr), NULL);
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

/* Two runs' throughput over time, one name with every character that needs escaping. */
static void test_line(void)
{
	static const double x1[] = { 0.2004, 0.4, 0.6, 0.8, 1.0 };
	static const double y1[] = { 22762629183.4199, 16e9, 15.5e9, 1.61e10, 0 };
	static const double x2[] = { 0.25, 0.5, 0.75 };
	static const double y2[] = { 9.41e9, 9.38e9, 9.4e9 };
	const struct bp_svg_series s[] = {
		{ "opi-zero", 5, x1, y1 },
		{ "rpi <3> & \"pi\" 'b'", 3, x2, y2 },
	};
	const struct bp_svg_line_chart c = {
		.id = "tcp.receiver.bitrate", .title = "tcp: receiver.bitrate over time",
		.x = { "time", "s", BP_SVG_LINEAR, true },
		.y = { "receiver.bitrate", "bit/s", BP_SVG_LINEAR, true },
		.nseries = 2, .series = s,
	};
	double got[16];
	struct out o;
	char *svg;

	out_open(&o);
	CHECK_INT(bp_svg_line_chart(o.f, &c, err, sizeof(err)), 0);
	svg = out_close(&o);
	golden_check_text(golden_dir, svg, "svg_line.svg");
	CHECK_INT(count(svg, "class=\"point\""), 8);
	CHECK_INT(read_attr(svg, "point", "data-y", got, 16), 8);
	CHECK(got[0] == y1[0] && got[4] == 0 && got[7] == y2[2]);
	CHECK_INT(read_attr(svg, "point", "data-x", got, 16), 8);
	CHECK(got[0] == x1[0] && got[5] == x2[0]);
	CHECK(strstr(svg, "rpi &lt;3&gt; &amp; &quot;pi&quot; &#39;b&#39;") != NULL);
	CHECK(!strstr(svg, "<3>"));
	CHECK_INT(count(svg, "class=\"legend-item\""), 2);
	/* the only URL is the namespace */
	CHECK_INT(count(svg, "http"), 1);
	free(svg);
}

/* Latency percentiles on the percentile axis, log time. */
static void test_percentile(void)
{
	static const double p[] = { 50, 90, 99, 99.9, 99.99 };
	static const double a[] = { 15071, 18623, 38271, 3825663, 5881855 };
	static const double b[] = { 3287, 4367, 10847, 74495, 803652 };
	const struct bp_svg_series s[] = { { "rr on box1", 5, p, a }, { "box2", 5, p, b } };
	const struct bp_svg_line_chart c = {
		.id = "rr.latency.transaction", .title = "rr: transaction latency",
		.x = { "percentile", NULL, BP_SVG_PERCENTILE, false },
		.y = { "latency", "ns", BP_SVG_LOG, false },
		.nseries = 2, .series = s,
	};
	struct out o;
	char *svg;

	out_open(&o);
	CHECK_INT(bp_svg_line_chart(o.f, &c, err, sizeof(err)), 0);
	svg = out_close(&o);
	golden_check_text(golden_dir, svg, "svg_percentile.svg");
	CHECK(strstr(svg, ">p99.99</text>") != NULL && strstr(svg, ">10 ms</text>") != NULL);
	CHECK(strstr(svg, "<title>box2: p99.9, 74.5 \xc2\xb5s</title>") != NULL);
	free(svg);
}

static void test_bar(void)
{
	static const char *const cats[] = { "64 B", "512 B", "1518 B" };
	static const char *const names[] = { "opi", "rpi" };
	const double v[] = { 138509.179645434, 46992.4812030075, 16254.8764629389,
			     148809.5, NAN, 8127.4 };
	const struct bp_svg_bar_chart c = {
		.id = "rfc2544.zero_loss.fps", .title = "rfc2544: zero-loss rate",
		.x_title = "frame size", .y = { "zero-loss rate", "pkt/s", BP_SVG_LINEAR, true },
		.ncategories = 3, .categories = cats, .nseries = 2, .series = names, .values = v,
	};
	double got[8];
	struct out o;
	char *svg;

	out_open(&o);
	CHECK_INT(bp_svg_bar_chart(o.f, &c, err, sizeof(err)), 0);
	svg = out_close(&o);
	golden_check_text(golden_dir, svg, "svg_bar.svg");
	/* the run without 512 B has a gap, not a zero */
	CHECK_INT(count(svg, "class=\"bar\""), 5);
	CHECK_INT(read_attr(svg, "bar", "data-y", got, 8), 5);
	CHECK(got[0] == v[0] && got[3] == v[3] && got[4] == v[5]);
	CHECK(strstr(svg, "data-series=\"rpi\" data-x=\"1518 B\" data-y=\"8127.3999999999996\"")
	      != NULL);
	free(svg);
}

/* Category labels wider than their band alternate between two rows, and the chart grows
 * by a row (360 px for one series, 374 so). */
static void test_bar_stagger(void)
{
	static const char *const cats[] = { "sha256.16", "rsa2048.sign", "rsa2048.verify",
					    "sha256.8192", "aes-128-gcm.16", "aes-128-gcm.8192",
					    "chacha20-poly1305.16", "chacha20-poly1305.8192" };
	static const char *const names[] = { "box" };
	const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const struct bp_svg_bar_chart c = {
		.id = "cpu.scaling", .title = "scaling", .x_title = "item",
		.y = { "scaling", "percent", BP_SVG_LINEAR, true },
		.ncategories = 8, .categories = cats, .nseries = 1, .series = names, .values = v,
	};
	struct out o;
	char *svg;

	out_open(&o);
	CHECK_INT(bp_svg_bar_chart(o.f, &c, err, sizeof(err)), 0);
	svg = out_close(&o);
	CHECK(strstr(svg, "y=\"296.0\" text-anchor=\"middle\">sha256.16<") != NULL);
	CHECK(strstr(svg, "y=\"310.0\" text-anchor=\"middle\">rsa2048.sign<") != NULL);
	CHECK(strstr(svg, "height=\"374\"") != NULL);
	free(svg);
}

/* A refused chart names the chart and the value, and writes nothing. */
static void test_refused(void)
{
	static const double x[] = { 0, 1 }, y_nan[] = { 1, NAN }, y_zero[] = { 0, 10 };
	static const char *const cats[] = { "a" };
	static const char *const names[] = { "s" };
	const double nan_only[] = { NAN };
	struct bp_svg_series s = { "run", 2, x, y_nan };
	struct bp_svg_line_chart c = {
		.id = "t.c", .title = "t", .x = { "time", "s", BP_SVG_LINEAR, true },
		.y = { "v", "ns", BP_SVG_LINEAR, false }, .nseries = 1, .series = &s,
	};
	struct bp_svg_bar_chart b = {
		.id = "t.b", .title = "t", .x_title = "x", .y = { "v", "B", BP_SVG_LINEAR, true },
		.ncategories = 1, .categories = cats, .nseries = 1, .series = names,
		.values = nan_only,
	};
	struct out o;
	char *svg;

	out_open(&o);
	CHECK_INT(bp_svg_line_chart(o.f, &c, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "chart 't.c': series 'run' point 2 is not a number");
	s.y = y_zero;
	c.y.scale = BP_SVG_LOG;
	CHECK_INT(bp_svg_line_chart(o.f, &c, err, sizeof(err)), -EDOM);
	CHECK(strstr(err, "chart 't.c': v axis:") && strstr(err, "above zero"));
	s.n = 0;
	CHECK_INT(bp_svg_line_chart(o.f, &c, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "chart 't.c': no point to draw");
	CHECK_INT(bp_svg_bar_chart(o.f, &b, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "chart 't.b': no bar to draw");
	b.y.scale = BP_SVG_LOG;
	b.values = y_zero;
	CHECK_INT(bp_svg_bar_chart(o.f, &b, err, sizeof(err)), -EINVAL);
	svg = out_close(&o);
	CHECK_INT(strlen(svg), 0);
	free(svg);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		golden_dir = argv[1];
	test_line();
	test_percentile();
	test_bar();
	test_bar_stagger();
	test_refused();
	return tap_done();
}
