/*
 * The toggle loop with a fake method that counts its writes, remembers the level and, when
 * told, reads back the wrong level every Kth read or fails its Nth write: the counts the
 * loop reports (pairs, writes, checks, mismatches, samples, interval pairs) must be exactly
 * those the fake saw, and a failed write must end the loop at once with its errno.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "gpio/gpio_loop.h"
#include "gpio/gpio_method.h"
#include "stats/histogram.h"
#include "tap.h"

struct bp_gpio_line {
	int level;
	uint64_t sets, gets;
	uint64_t wrong_every;   /* every Kth read returns the other level; 0: never */
	uint64_t fail_at;       /* the Nth write fails with EIO; 0: never */
	int last_set;
};

static struct bp_gpio_line fake;

static struct bp_gpio_line *fake_open(const struct bp_gpio_target *t, char *err,
				      size_t errlen, const char **code)
{
	(void)t, (void)err, (void)errlen, (void)code;
	return &fake;
}

static int fake_set(struct bp_gpio_line *l, int v)
{
	if (l->fail_at && l->sets + 1 == l->fail_at)
		return -EIO;
	l->sets++;
	/* the loop alternates 1, 0, 1, 0 */
	if (l->sets > 1 && v == l->last_set)
		return -EPROTO;
	l->last_set = v;
	l->level = v;
	return 0;
}

static int fake_get(struct bp_gpio_line *l)
{
	l->gets++;
	if (l->wrong_every && l->gets % l->wrong_every == 0)
		return !l->level;
	return l->level;
}

static void fake_close(struct bp_gpio_line *l)
{
	(void)l;
}

static const char *fake_describe(const struct bp_gpio_line *l)
{
	(void)l;
	return "fake";
}

static const struct bp_gpio_method fake_method = {
	.name = "fake", .open = fake_open, .set = fake_set, .get = fake_get,
	.close = fake_close, .describe = fake_describe,
};

static uint64_t interval_pairs, interval_start, last_end, short_full;
static int intervals;

/* Counts the intervals; short_full counts those but the last that spanned less than the
 * test's 10 ms interval (a mark is only ever set once a whole interval has passed). */
static void count_interval(void *arg, uint64_t start, uint64_t end, uint64_t pairs)
{
	(void)arg;
	if (end > start)
		intervals++;
	if (last_end && last_end - interval_start < 10000000)
		short_full++;
	interval_start = start;
	last_end = end;
	interval_pairs += pairs;
}

static void reset(uint64_t wrong_every, uint64_t fail_at)
{
	fake = (struct bp_gpio_line){ .wrong_every = wrong_every, .fail_at = fail_at };
}

static void test_plain(void)
{
	struct bp_gpio_loop_cfg cfg = { .time_ns = 30000000, .interval_ns = 10000000,
					.on_interval = count_interval };
	struct bp_gpio_loop_result res = { .histo = bp_histo_new() };

	reset(0, 0);
	interval_pairs = interval_start = last_end = short_full = 0;
	intervals = 0;
	CHECK_INT(bp_gpio_loop_run(&fake_method, &fake, &cfg, &res), 0);
	CHECK(res.pairs > 0);
	CHECK_INT(res.pairs % BP_GPIO_SAMPLE_EVERY, 0);
	CHECK_INT(res.writes, fake.sets);
	CHECK_INT(res.writes, 2 * res.pairs);
	CHECK_INT(fake.gets, 0);
	CHECK_INT(res.checks, 0);
	/* one timed pair per 1024 */
	CHECK_INT(bp_histo_count(res.histo), res.pairs / BP_GPIO_SAMPLE_EVERY);
	CHECK(res.elapsed_ns >= cfg.time_ns);
	/*
	 * Every pair is in an interval, unless the part after the last mark was under a tenth
	 * of one (dropped, as iperf3 drops it). A loop descheduled for the whole 30 ms (a busy
	 * machine) reports a single interval, so the count is only at least one.
	 */
	CHECK(interval_pairs == res.pairs ||
	      (interval_pairs < res.pairs &&
	       res.start_ns + res.elapsed_ns - last_end <= cfg.interval_ns / 10));
	CHECK(intervals >= 1);
	CHECK_INT(short_full, 0);
	CHECK_NEAR(bp_gpio_loop_period_rate(&res),
		   (double)res.pairs * 1e9 / (double)res.elapsed_ns, 1e-6);
	CHECK_NEAR(bp_gpio_loop_write_ns(&res), (double)res.elapsed_ns / (double)res.writes,
		   1e-9);
	CHECK(!res.stopped && !res.error);
	bp_histo_free(res.histo);
}

static void test_readback(void)
{
	struct bp_gpio_loop_cfg cfg = { .time_ns = 20000000, .readback = 4 };
	struct bp_gpio_loop_result res = { 0 };

	reset(5, 0);
	CHECK_INT(bp_gpio_loop_run(&fake_method, &fake, &cfg, &res), 0);
	CHECK_INT(res.checks, res.writes / 4);
	CHECK_INT(res.checks, fake.gets);
	CHECK_INT(res.mismatches, fake.gets / 5);

	/* every write checked, none wrong */
	cfg.readback = 1;
	reset(0, 0);
	CHECK_INT(bp_gpio_loop_run(&fake_method, &fake, &cfg, &res), 0);
	CHECK_INT(res.checks, res.writes);
	CHECK_INT(res.mismatches, 0);
}

static void test_failure(void)
{
	struct bp_gpio_loop_cfg cfg = { .time_ns = 1000000000 };
	struct bp_gpio_loop_result res = { 0 };

	/* write 5001 fails: 2500 whole pairs, then the loop ends at once */
	reset(0, 5001);
	CHECK_INT(bp_gpio_loop_run(&fake_method, &fake, &cfg, &res), -EIO);
	CHECK_INT(res.error, -EIO);
	CHECK_INT(res.pairs, 2500);
	CHECK(res.elapsed_ns < cfg.time_ns);
}

static void test_baseline(void)
{
	struct bp_gpio_loop_cfg cfg = { .time_ns = 20000000 };
	struct bp_gpio_loop_result res = { .histo = bp_histo_new() };
	struct bp_gpio_line *l = bp_gpio_loop_baseline_line();

	CHECK(bp_gpio_loop_baseline.open(NULL, NULL, 0, NULL) == l);
	CHECK_INT(bp_gpio_loop_run(&bp_gpio_loop_baseline, l, &cfg, &res), 0);
	CHECK(res.pairs >= BP_GPIO_SAMPLE_EVERY);
	CHECK_INT(bp_gpio_loop_baseline.get(l), 0);  /* the last write was a 0 */
	CHECK(isfinite(bp_gpio_loop_write_ns(&res)));
	CHECK(bp_gpio_clock_cost_ns() < 1000000);
	bp_histo_free(res.histo);
}

static void test_empty(void)
{
	struct bp_gpio_loop_result res = { 0 };

	CHECK(isnan(bp_gpio_loop_write_ns(&res)));
	CHECK(isnan(bp_gpio_loop_period_rate(&res)));
}

int main(void)
{
	test_plain();
	test_readback();
	test_failure();
	test_baseline();
	test_empty();
	return tap_done();
}
