/*
 * The spread of repeated runs against values worked by hand: odd and even medians, the
 * sample (n - 1) deviation, CoV's undefined cases, NaN runs left out, order not mattering.
 */
#include "stats/run_stats.h"

#include <math.h>

#include "tap.h"

int main(void)
{
	struct bp_run_stats s;
	/* mean 5, squared deviations 9+1+1+9 = 20, sample variance 20/3 */
	const double four[] = { 8, 2, 4, 6 };
	const double odd[] = { 30, 10, 20 };
	const double same[] = { 7, 7, 7 };
	const double zeros[] = { 0, 0 };
	const double mixed[] = { -1, 1 };
	const double holes[] = { NAN, 3, INFINITY, 1 };
	const double big[] = { 1e10 + 1, 1e10 - 1, 1e10 + 1, 1e10 - 1 };

	bp_run_stats_of(four, 4, &s);
	CHECK_INT(s.n, 4);
	CHECK_NEAR(s.median, 5, 0);
	CHECK_NEAR(s.min, 2, 0);
	CHECK_NEAR(s.max, 8, 0);
	CHECK_NEAR(s.mean, 5, 1e-12);
	CHECK_NEAR(s.stddev, sqrt(20.0 / 3), 1e-12);
	CHECK_NEAR(s.cov, sqrt(20.0 / 3) / 5 * 100, 1e-9);

	bp_run_stats_of(odd, 3, &s);
	CHECK_NEAR(s.median, 20, 0);
	CHECK_NEAR(s.cov, 50, 1e-9);  /* stddev 10 over mean 20 */

	bp_run_stats_of(odd, 1, &s);
	CHECK_INT(s.n, 1);
	CHECK_NEAR(s.median, 30, 0);
	CHECK_NEAR(s.stddev, 0, 0);
	CHECK(isnan(s.cov));  /* one run says nothing about the spread */

	bp_run_stats_of(same, 3, &s);
	CHECK_NEAR(s.cov, 0, 0);
	bp_run_stats_of(zeros, 2, &s);
	CHECK_NEAR(s.cov, 0, 0);  /* no retransmits in every run: stable */
	bp_run_stats_of(mixed, 2, &s);
	CHECK(isnan(s.cov));      /* a zero mean of values that differ */

	bp_run_stats_of(holes, 4, &s);
	CHECK_INT(s.n, 2);
	CHECK_NEAR(s.median, 2, 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 3, 0);

	bp_run_stats_of(holes, 1, &s);  /* only a NaN */
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.median) && isnan(s.min) && isnan(s.cov));
	bp_run_stats_of(NULL, 0, &s);
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.mean));

	/* a large offset: the deviation of +-1 around 1e10 keeps its digits */
	bp_run_stats_of(big, 4, &s);
	CHECK_NEAR(s.stddev, sqrt(4.0 / 3), 1e-5);
	CHECK_NEAR(s.median, 1e10, 0);
	return tap_done();
}
