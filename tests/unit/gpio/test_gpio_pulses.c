/*
 * --loop-to's arithmetic: edge events into a count and pulse widths. A square wave of known
 * widths gives exactly those widths; an edge the kernel dropped (a gap in line_seqno) still
 * counts but breaks no width into a false one; two equal edges in a row give no width.
 */
#include <stdint.h>

#include "gpio/gpio_pulses.h"
#include "stats/histogram.h"
#include "tap.h"

static void test_square(void)
{
	struct bp_gpio_pulses p = { .widths = bp_histo_new() };
	uint64_t t = 1000000;

	/* 100 edges, high for 300 ns, low for 700 ns */
	for (uint32_t s = 1; s <= 100; s++) {
		bp_gpio_pulses_feed(&p, t, s % 2 == 1, s);
		t += s % 2 == 1 ? 300 : 700;
	}
	CHECK_INT(p.edges, 100);
	CHECK_INT(p.received, 100);
	CHECK_INT(bp_gpio_pulses_lost(&p), 0);
	CHECK_INT(bp_histo_count(p.widths), 99);
	CHECK_INT(bp_histo_min(p.widths), 300);
	CHECK_INT(bp_histo_max(p.widths), 700);
	CHECK_NEAR(bp_histo_mean(p.widths), (50.0 * 300 + 49.0 * 700) / 99, 1e-9);
	CHECK_INT(p.first_ns, 1000000);
	bp_histo_free(p.widths);
}

static void test_gaps(void)
{
	struct bp_gpio_pulses p = { .widths = bp_histo_new() };

	bp_gpio_pulses_feed(&p, 1000, true, 1);
	bp_gpio_pulses_feed(&p, 1500, false, 2);  /* width 500 */
	/* 3 and 4 dropped by the FIFO: 2 -> 5 is not one pulse */
	bp_gpio_pulses_feed(&p, 9000, true, 5);
	bp_gpio_pulses_feed(&p, 9200, false, 6);  /* width 200 */
	/* the same edge twice (a glitch too short to see low): no width */
	bp_gpio_pulses_feed(&p, 9300, false, 7);
	CHECK_INT(p.edges, 7);
	CHECK_INT(p.received, 5);
	CHECK_INT(bp_gpio_pulses_lost(&p), 2);
	CHECK_INT(bp_histo_count(p.widths), 2);
	CHECK_INT(bp_histo_min(p.widths), 200);
	CHECK_INT(bp_histo_max(p.widths), 500);
	bp_histo_free(p.widths);
}

static void test_none(void)
{
	struct bp_gpio_pulses p = { 0 };

	CHECK_INT(p.edges, 0);
	CHECK_INT(bp_gpio_pulses_lost(&p), 0);
	bp_gpio_pulses_feed(&p, 5, true, 1);  /* no histogram: counted, nothing recorded */
	CHECK_INT(p.edges, 1);
}

int main(void)
{
	test_square();
	test_gaps();
	test_none();
	return tap_done();
}
