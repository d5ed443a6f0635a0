/* The throughput search against simulated devices with a known zero-loss rate. */
#include "rfc2544/rfc2544_search.h"
#include "tap.h"

/* Run the search against a device that passes every rate up to limit. */
static double search(double max, double resolution, double limit, int *trials)
{
	struct bp_search s;
	double rate;

	bp_search_init(&s, max, resolution);
	while ((rate = bp_search_next(&s)) > 0)
		bp_search_record(&s, rate, rate <= limit);
	*trials = s.trials;
	return bp_search_result(&s);
}

int main(void)
{
	int trials;
	double r;

	/* A device that takes everything: one trial at the maximum is the answer. */
	r = search(1488095, 14881, 2e6, &trials);
	CHECK_NEAR(r, 1488095, 0);
	CHECK_INT(trials, 1);
	/* A limit inside the range: found to within the resolution, never above it. */
	r = search(1488095, 14881, 208333, &trials);
	CHECK(r <= 208333 && r >= 208333 - 14881);
	CHECK(trials <= 8);
	r = search(81274, 81.274, 40000, &trials);
	CHECK(r <= 40000 && r >= 40000 - 81.274);
	/* Nothing passes: the answer is 0, after a bounded number of trials. */
	r = search(1000, 10, 0, &trials);
	CHECK_NEAR(r, 0, 0);
	CHECK(trials <= 8);
	return tap_done();
}
