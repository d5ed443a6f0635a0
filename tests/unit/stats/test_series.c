/* The interval series: appending, reading back, sums, growth, and refused rows. */
#include "stats/series.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#define NS 1000000000ULL

static const struct bp_series_column cols[] = {
	{ "receiver.bytes", "B", 0 },
	{ "receiver.bitrate", "bit/s", 1 },
	{ "rtt.mean", "ns", 2 },
};

static void test_basic(void)
{
	struct bp_series *s = bp_series_new(cols, 3);
	double row0[] = { 1000, 8000, 50000 }, row1[] = { 2000, 16000, 40000 };

	CHECK(s != NULL);
	CHECK_INT(bp_series_nrows(s), 0);
	CHECK_INT(bp_series_ncols(s), 3);
	CHECK_NEAR(bp_series_sum(s, 0), 0.0, 0.0);  /* no rows yet */
	CHECK_INT(bp_series_append(s, 0, NS, row0), 0);
	CHECK_INT(bp_series_append(s, NS, 2 * NS, row1), 0);
	CHECK_INT(bp_series_nrows(s), 2);
	CHECK(bp_series_start_ns(s, 1) == NS && bp_series_end_ns(s, 1) == 2 * NS);
	CHECK(bp_series_start_ns(s, 0) == 0 && bp_series_end_ns(s, 0) == NS);
	CHECK_NEAR(bp_series_value(s, 0, 2), 50000, 0.0);
	CHECK_NEAR(bp_series_value(s, 1, 1), 16000, 0.0);
	CHECK_NEAR(bp_series_sum(s, 0), 3000, 0.0);
	CHECK_NEAR(bp_series_sum(s, 2), 90000, 0.0);
	CHECK_STR(bp_series_column(s, 1)->name, "receiver.bitrate");
	CHECK_STR(bp_series_column(s, 1)->unit, "bit/s");
	CHECK_INT(bp_series_column(s, 2)->better, 2);
	CHECK(bp_series_column(s, 3) == NULL);
	CHECK_INT(bp_series_find_column(s, "rtt.mean"), 2);
	CHECK_INT(bp_series_find_column(s, "rtt"), -ENOENT);
	/* Out of range reads are visible, not garbage. */
	CHECK(isnan(bp_series_value(s, 2, 0)));
	CHECK(isnan(bp_series_value(s, 0, 3)));
	CHECK(isnan(bp_series_sum(s, 3)));
	CHECK(bp_series_start_ns(s, 2) == 0 && bp_series_end_ns(s, 2) == 0);
	bp_series_free(s);
}

/* Names are copied, and the caller's values are copied at append time. */
static void test_copies(void)
{
	char name[32] = "sender.bytes", unit[8] = "B";
	struct bp_series_column c = { name, unit, 0 };
	struct bp_series *s = bp_series_new(&c, 1);
	double v = 42;

	CHECK_INT(bp_series_append(s, 5, 10, &v), 0);
	strcpy(name, "overwritten");
	strcpy(unit, "x");
	v = -1;
	CHECK_STR(bp_series_column(s, 0)->name, "sender.bytes");
	CHECK_STR(bp_series_column(s, 0)->unit, "B");
	CHECK_NEAR(bp_series_value(s, 0, 0), 42, 0.0);
	bp_series_free(s);
}

/* Thousands of rows, far past the initial capacity: every row reads back intact. */
static void test_growth(void)
{
	struct bp_series *s = bp_series_new(cols, 3);
	double v[3];
	uint64_t i, n = 5000, bad = 0;

	for (i = 0; i < n; i++) {
		v[0] = (double)i;
		v[1] = (double)(i * 8);
		v[2] = (double)(n - i);
		if (bp_series_append(s, i * NS, (i + 1) * NS, v) != 0)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(bp_series_nrows(s), n);
	for (i = 0; i < n; i++)
		if (bp_series_start_ns(s, i) != i * NS || bp_series_end_ns(s, i) != (i + 1) * NS ||
		    bp_series_value(s, i, 0) != (double)i || bp_series_value(s, i, 2) != (double)(n - i))
			bad++;
	CHECK_INT(bad, 0);
	CHECK_NEAR(bp_series_sum(s, 0), (double)(n * (n - 1) / 2), 0.0);
	CHECK_NEAR(bp_series_sum(s, 1), (double)(8 * n * (n - 1) / 2), 0.0);
	CHECK_NEAR(bp_series_sum(s, 2), (double)(n * (n + 1) / 2), 0.0);
	bp_series_free(s);
}

/* Rows that would break the time order or count an instant twice are refused. */
static void test_refused(void)
{
	struct bp_series_column noname = { NULL, "B", 0 }, nounit = { "x", NULL, 0 };
	struct bp_series *s = bp_series_new(cols, 3);
	double v[3] = { 1, 2, 3 };

	CHECK_INT(bp_series_append(s, 10, 5, v), -EINVAL);  /* ends before it starts */
	CHECK_INT(bp_series_append(s, 10, 20, v), 0);
	CHECK_INT(bp_series_append(s, 15, 30, v), -EINVAL);  /* overlaps the previous row */
	CHECK_INT(bp_series_append(s, 5, 8, v), -EINVAL);    /* before the previous row */
	CHECK_INT(bp_series_nrows(s), 1);
	CHECK_NEAR(bp_series_sum(s, 0), 1.0, 0.0);
	CHECK_INT(bp_series_append(s, 20, 20, v), 0);  /* touching and empty are fine */
	CHECK_INT(bp_series_append(s, 25, 40, v), 0);  /* so is a gap */
	CHECK_INT(bp_series_nrows(s), 3);
	bp_series_free(s);
	CHECK(bp_series_new(&noname, 1) == NULL);
	CHECK(bp_series_new(&nounit, 1) == NULL);
	bp_series_free(NULL);
}

static void test_no_columns(void)
{
	struct bp_series *s = bp_series_new(NULL, 0);
	int i, bad = 0;

	CHECK(s != NULL);
	for (i = 0; i < 100; i++)
		bad += bp_series_append(s, (uint64_t)i * 10, (uint64_t)i * 10 + 10, NULL) != 0;
	CHECK_INT(bad, 0);
	CHECK_INT(bp_series_nrows(s), 100);
	CHECK(bp_series_end_ns(s, 99) == 1000);
	CHECK(isnan(bp_series_sum(s, 0)));
	bp_series_free(s);
}

/*
 * The sum is compensated: 1e16 + 1 - 1e16 is 0 in plain double arithmetic but 1 here, and
 * ten thousand intervals of 0.1 s add up to 1000 s to the last bit (a plain sum is off by
 * 1.6e-10).
 */
static void test_sum_accuracy(void)
{
	struct bp_series_column c = { "x", "s", 0 };
	struct bp_series *s = bp_series_new(&c, 1);
	double v;
	int i;

	v = 1e16;
	bp_series_append(s, 0, 1, &v);
	v = 1.0;
	bp_series_append(s, 1, 2, &v);
	v = -1e16;
	bp_series_append(s, 2, 3, &v);
	CHECK_NEAR(bp_series_sum(s, 0), 1.0, 0.0);
	bp_series_free(s);

	/* A term larger than the running sum: the sum's own low part must be kept (Neumaier). */
	s = bp_series_new(&c, 1);
	for (i = 0; i < 4; i++) {
		v = i == 1 ? 1e100 : i == 3 ? -1e100 : 1.0;
		bp_series_append(s, (uint64_t)i, (uint64_t)i + 1, &v);
	}
	CHECK_NEAR(bp_series_sum(s, 0), 2.0, 0.0);
	bp_series_free(s);

	s = bp_series_new(&c, 1);
	v = 0.1;
	for (i = 0; i < 10000; i++)
		bp_series_append(s, (uint64_t)i, (uint64_t)i + 1, &v);
	CHECK_NEAR(bp_series_sum(s, 0), 1000.0, 0.0);
	bp_series_free(s);
}

int main(void)
{
	test_basic();
	test_copies();
	test_growth();
	test_refused();
	test_no_columns();
	test_sum_accuracy();
	return tap_done();
}
