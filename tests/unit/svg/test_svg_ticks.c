/*
 * Tick choice, unit labels and scaling of the SVG axes (src/svg): the nice 1-2-5 steps,
 * the extents, the prefixes, and the edge cases a chart of real results meets (one point,
 * all values equal, zero, negatives, ranges of hundreds of decades) and the ones it must
 * refuse (NaN, infinities, zero on a log scale, 100 % on the percentile scale).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "svg/svg_axis.h"
#include "svg/svg_ticks.h"
#include "svg/svg_units.h"
#include "tap.h"

static char err[256];

/* Every tick inside the extent, strictly rising, the data inside it, never -0. */
static int well_formed(const struct bp_svg_ticks *t, double lo, double hi)
{
	if (t->n < 2 || t->n > BP_SVG_MAX_TICKS || t->lo > lo || t->hi < hi)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i] < t->lo - fabs(t->lo) * 1e-12 || t->v[i] > t->hi + fabs(t->hi) * 1e-12)
			return 0;
		if ((i && t->v[i] <= t->v[i - 1]) || (t->v[i] == 0 && signbit(t->v[i])))
			return 0;
	}
	return 1;
}

static void test_linear(void)
{
	struct bp_svg_ticks t;

	CHECK_INT(bp_svg_ticks_linear(0, 10, 5, &t, err, sizeof(err)), 0);
	CHECK_NEAR(t.step, 2, 0);
	CHECK_INT(t.n, 6);
	CHECK_NEAR(t.v[5], 10, 0);
	CHECK_INT(bp_svg_ticks_linear(0, 9.5, 5, &t, err, sizeof(err)), 0);
	CHECK(t.step == 2 && t.hi == 10 && well_formed(&t, 0, 9.5));
	CHECK_INT(bp_svg_ticks_linear(0.13, 0.87, 5, &t, err, sizeof(err)), 0);
	CHECK(fabs(t.step - 0.2) < 1e-15 && fabs(t.lo) < 1e-15 && fabs(t.hi - 1) < 1e-12);
	CHECK_INT(bp_svg_ticks_linear(3, 27, 5, &t, err, sizeof(err)), 0);
	CHECK(t.step == 5 && t.lo == 0 && t.hi == 30 && t.n == 7);
	/* one point, and many equal values: widened around it by a tenth */
	CHECK_INT(bp_svg_ticks_linear(5, 5, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, 5, 5) && t.lo < 5 && t.hi > 5 && t.hi - t.lo <= 2);
	CHECK_INT(bp_svg_ticks_linear(1, 1 + 1e-13, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, 1, 1) && t.hi - t.lo >= 0.2);
	/* zero alone: [0, 1] */
	CHECK_INT(bp_svg_ticks_linear(0, 0, 5, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 0 && t.hi == 1 && t.n == 6 && fabs(t.step - 0.2) < 1e-15);
	/* negatives, and a range across zero ticks zero exactly (not -0) */
	CHECK_INT(bp_svg_ticks_linear(-7, -3, 5, &t, err, sizeof(err)), 0);
	CHECK(t.step == 1 && t.lo == -7 && t.hi == -3 && well_formed(&t, -7, -3));
	CHECK_INT(bp_svg_ticks_linear(-1, 1, 5, &t, err, sizeof(err)), 0);
	CHECK(t.step == 0.5 && t.n == 5 && t.v[2] == 0 && !signbit(t.v[2]));
	CHECK_INT(bp_svg_ticks_linear(-42, -42, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, -42, -42));
	/* huge: 1e300 and either end of the doubles */
	CHECK_INT(bp_svg_ticks_linear(0, 1e300, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, 0, 1e300) && isfinite(t.hi) && t.step == 2e299);
	CHECK_INT(bp_svg_ticks_linear(-1e308, 1e308, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, -1e308, 1e308) && isfinite(t.lo) && isfinite(t.hi));
	CHECK_INT(bp_svg_ticks_linear(-DBL_MAX, DBL_MAX, 5, &t, err, sizeof(err)), -ERANGE);
	CHECK(strstr(err, "beyond what a double holds") != NULL);
	CHECK_INT(bp_svg_ticks_linear(1e-300, 3e-300, 5, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, 1e-300, 3e-300));
	/* a target out of range falls back to five; the tick count stays within the array */
	CHECK_INT(bp_svg_ticks_linear(0, 10, 1000, &t, err, sizeof(err)), 0);
	CHECK(t.step == 2);
	/* refused */
	CHECK_INT(bp_svg_ticks_linear(NAN, 1, 5, &t, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a number") != NULL);
	CHECK_INT(bp_svg_ticks_linear(0, NAN, 5, &t, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_svg_ticks_linear(0, INFINITY, 5, &t, err, sizeof(err)), -ERANGE);
	CHECK_INT(bp_svg_ticks_linear(2, 1, 5, &t, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "[2, 1]") != NULL);
}

static void test_log(void)
{
	struct bp_svg_ticks t;
	static const double want[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };

	CHECK_INT(bp_svg_ticks_log(1, 1000, 10, &t, err, sizeof(err)), 0);
	CHECK_INT(t.n, 10);
	CHECK(!memcmp(t.v, want, sizeof(want)));
	CHECK_INT(bp_svg_ticks_log(15000, 5e6, 10, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 1e4 && t.hi == 1e7 && t.n == 10 && well_formed(&t, 15000, 5e6));
	/* more than three decades: powers only */
	CHECK_INT(bp_svg_ticks_log(3, 3e6, 10, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 1 && t.hi == 1e7 && t.n == 8);
	/* one point: its decade */
	CHECK_INT(bp_svg_ticks_log(1000, 1000, 10, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 1000 && t.hi == 10000 && well_formed(&t, 1000, 1000));
	CHECK_INT(bp_svg_ticks_log(42, 42, 10, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 10 && t.hi == 100);
	/* six hundred decades: every k-th power, the tick count within the array */
	CHECK_INT(bp_svg_ticks_log(1e-300, 1e300, 10, &t, err, sizeof(err)), 0);
	CHECK(well_formed(&t, 1e-300, 1e300) && t.n < BP_SVG_MAX_TICKS);
	/* base 2 for binary units */
	CHECK_INT(bp_svg_ticks_log(4096, 1048576, 2, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 4096 && t.hi == 1048576 && t.n == 9 && t.v[1] == 8192);
	/* 4 KiB to 64 MiB: every other power, not fifteen labels side by side */
	CHECK_INT(bp_svg_ticks_log(4096, 64 << 20, 2, &t, err, sizeof(err)), 0);
	CHECK(t.n == 8 && t.v[1] == 16384 && t.hi == 64 << 20);
	/* refused */
	CHECK_INT(bp_svg_ticks_log(0, 10, 10, &t, err, sizeof(err)), -EDOM);
	CHECK(strstr(err, "above zero") != NULL);
	CHECK_INT(bp_svg_ticks_log(-5, 10, 10, &t, err, sizeof(err)), -EDOM);
	CHECK_INT(bp_svg_ticks_log(NAN, 10, 10, &t, err, sizeof(err)), -EINVAL);
	CHECK_INT(bp_svg_ticks_log(1, INFINITY, 10, &t, err, sizeof(err)), -ERANGE);
	CHECK_INT(bp_svg_ticks_log(5e-324, 1, 10, &t, err, sizeof(err)), -ERANGE);
	CHECK_INT(bp_svg_ticks_log(1, DBL_MAX, 10, &t, err, sizeof(err)), -ERANGE);
}

static void test_percentile(void)
{
	struct bp_svg_ticks t;
	static const double want[] = { 50, 90, 99, 99.9, 99.99 };

	CHECK_INT(bp_svg_ticks_percentile(50, 99.99, &t, err, sizeof(err)), 0);
	CHECK_INT(t.n, 5);
	CHECK(!memcmp(t.v, want, sizeof(want)));
	CHECK_INT(bp_svg_ticks_percentile(55, 99.5, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 50 && t.hi == 99.9 && t.n == 4);
	CHECK_INT(bp_svg_ticks_percentile(99.99, 99.99, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 99.99 && t.hi == 99.999);
	CHECK_INT(bp_svg_ticks_percentile(99.9999, 99.9999, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 99.999 && t.hi == 99.9999);
	CHECK_INT(bp_svg_ticks_percentile(0, 0, &t, err, sizeof(err)), 0);
	CHECK(t.lo == 0 && t.hi == 50);
	CHECK_INT(bp_svg_ticks_percentile(50, 100, &t, err, sizeof(err)), -EDOM);
	CHECK_INT(bp_svg_ticks_percentile(-1, 50, &t, err, sizeof(err)), -EDOM);
	CHECK_INT(bp_svg_ticks_percentile(NAN, 50, &t, err, sizeof(err)), -EINVAL);
	/* each nine one step along the axis */
	CHECK_NEAR(bp_svg_percentile_coord(90), 1, 1e-12);
	CHECK_NEAR(bp_svg_percentile_coord(99), 2, 1e-12);
	CHECK_NEAR(bp_svg_percentile_coord(99.99), 4, 1e-9);
}

static void check_labels(const struct bp_svg_axis *a, const char *const *want, size_t n)
{
	CHECK_INT(a->ticks.n, n);
	for (size_t i = 0; i < n && i < a->ticks.n; i++)
		CHECK_STR(a->labels[i], want[i]);
}

static void test_axis(void)
{
	struct bp_svg_axis a;
	static const char *const gbit[] = { "0", "5 Gbit/s", "10 Gbit/s", "15 Gbit/s",
					    "20 Gbit/s", "25 Gbit/s" };
	static const char *const us[] = { "0", "0.5 \xc2\xb5s", "1.0 \xc2\xb5s", "1.5 \xc2\xb5s" };
	static const char *const mib[] = { "0", "50 MiB/s", "100 MiB/s", "150 MiB/s" };
	static const char *const logns[] = { "10 \xc2\xb5s", "20 \xc2\xb5s", "50 \xc2\xb5s",
					     "100 \xc2\xb5s", "200 \xc2\xb5s", "500 \xc2\xb5s",
					     "1 ms", "2 ms", "5 ms", "10 ms" };
	static const char *const kib[] = { "4 KiB", "16 KiB", "64 KiB", "256 KiB", "1 MiB" };
	static const char *const pct[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	static const char *const neg[] = { "-5", "-4", "-3", "-2", "-1" };

	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "bit/s", 1.2e10, 2.3e10, true, err,
				  sizeof(err)), 0);
	check_labels(&a, gbit, 6);
	CHECK_NEAR(a.raw[1], 5e9, 1e-3);
	CHECK_NEAR(bp_svg_axis_frac(&a, 12.5e9), 0.5, 1e-12);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "ns", 0, 1500, false, err, sizeof(err)), 0);
	check_labels(&a, us, 4);
	CHECK_NEAR(bp_svg_axis_frac(&a, 1500), 1, 1e-12);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "B/s", 1.32e8, 1.32e8, true, err,
				  sizeof(err)), 0);
	check_labels(&a, mib, 4);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "count", -5, -1, false, err, sizeof(err)), 0);
	check_labels(&a, neg, 5);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LOG, "ns", 15000, 5e6, false, err, sizeof(err)), 0);
	check_labels(&a, logns, 10);
	CHECK_NEAR(bp_svg_axis_frac(&a, 1e5), 1.0 / 3, 1e-12);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LOG, "B", 4096, 1048576, false, err, sizeof(err)), 0);
	CHECK(a.ticks.n == 9 && !strcmp(a.labels[0], kib[0]) && !strcmp(a.labels[2], kib[1]) &&
	      !strcmp(a.labels[4], kib[2]) && !strcmp(a.labels[6], kib[3]) &&
	      !strcmp(a.labels[8], kib[4]));
	CHECK_STR(a.labels[1], "8 KiB");
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_PERCENTILE, NULL, 50, 99.99, false, err,
				  sizeof(err)), 0);
	check_labels(&a, pct, 5);
	CHECK_NEAR(bp_svg_axis_frac(&a, 50), 0, 1e-12);
	CHECK_NEAR(bp_svg_axis_frac(&a, 99.99), 1, 1e-12);
	/* the chart's refusals come through the axis */
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "ns", NAN, 1, false, err, sizeof(err)),
		  -EINVAL);
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LOG, "ns", 0, 1, false, err, sizeof(err)), -EDOM);
	/* all zero with zero included: [0, 1] in the unit, no prefix */
	CHECK_INT(bp_svg_axis_fit(&a, BP_SVG_LINEAR, "percent", 0, 0, true, err, sizeof(err)), 0);
	CHECK(a.ticks.n == 6 && !strcmp(a.labels[5], "1.0 %"));
}

static void test_format(void)
{
	char b[BP_SVG_LABEL_MAX];

	bp_svg_format_value(b, sizeof(b), "ns", 1500);
	CHECK_STR(b, "1.50 \xc2\xb5s");
	bp_svg_format_value(b, sizeof(b), "ns", 10000);
	CHECK_STR(b, "10 \xc2\xb5s");
	bp_svg_format_value(b, sizeof(b), "B", 4096);
	CHECK_STR(b, "4 KiB");
	bp_svg_format_value(b, sizeof(b), "B", 1000);
	CHECK_STR(b, "1000 B");
	bp_svg_format_value(b, sizeof(b), "bit/s", 123456789);
	CHECK_STR(b, "123 Mbit/s");
	bp_svg_format_value(b, sizeof(b), "bit/s", 0);
	CHECK_STR(b, "0");
	bp_svg_format_value(b, sizeof(b), "percent", 46.5390843608659);
	CHECK_STR(b, "46.5 %");
	bp_svg_format_value(b, sizeof(b), "count", 12345);
	CHECK_STR(b, "12.3 k");
	bp_svg_format_value(b, sizeof(b), "op/s", 2693.87);
	CHECK_STR(b, "2.69 kop/s");
	bp_svg_format_value(b, sizeof(b), "pkt/s", -1.5e6);
	CHECK_STR(b, "-1.50 Mpkt/s");
	bp_svg_format_value(b, sizeof(b), "s", 0.2);
	CHECK_STR(b, "200 ms");
}

int main(void)
{
	test_linear();
	test_log();
	test_percentile();
	test_axis();
	test_format();
	return tap_done();
}
