#include "gpio/gpio_loop.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/signals.h"
#include "stats/histogram.h"

/* What the baseline's set() stores to; volatile so the compiler keeps every store. */
struct bp_gpio_line {
	volatile int level;
};

static struct bp_gpio_line baseline_line;

static struct bp_gpio_line *baseline_open(const struct bp_gpio_target *t, char *err,
					  size_t errlen, const char **code)
{
	(void)t, (void)err, (void)errlen, (void)code;
	return &baseline_line;
}

static int baseline_set(struct bp_gpio_line *l, int value)
{
	l->level = value;
	return 0;
}

static int baseline_get(struct bp_gpio_line *l)
{
	return l->level;
}

static void baseline_close(struct bp_gpio_line *l)
{
	(void)l;
}

static const char *baseline_describe(const struct bp_gpio_line *l)
{
	(void)l;
	return "a volatile store (the loop's own cost)";
}

const struct bp_gpio_method bp_gpio_loop_baseline = {
	.name = "loop",
	.open = baseline_open,
	.set = baseline_set,
	.get = baseline_get,
	.close = baseline_close,
	.describe = baseline_describe,
};

struct bp_gpio_line *bp_gpio_loop_baseline_line(void)
{
	return &baseline_line;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t bp_gpio_clock_cost_ns(void)
{
	uint64_t d[255];

	for (unsigned i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		uint64_t a = bp_now_ns();

		d[i] = bp_now_ns() - a;
	}
	qsort(d, sizeof(d) / sizeof(d[0]), sizeof(d[0]), cmp_u64);
	return d[sizeof(d) / sizeof(d[0]) / 2];
}

/* n pairs with no readback: the hot path. 0 or the failed write's -errno. */
static int pairs_plain(const struct bp_gpio_method *m, struct bp_gpio_line *l, unsigned n,
		       uint64_t *done)
{
	int (*set)(struct bp_gpio_line *, int) = m->set;
	int rc = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		rc = set(l, 1);
		if (__builtin_expect(rc != 0, 0))
			break;
		rc = set(l, 0);
		if (__builtin_expect(rc != 0, 0))
			break;
	}
	*done += i;
	return rc;
}

/* The level read back after every Nth write, counted. */
struct readback {
	unsigned every, left;
	uint64_t checks, mismatches;
};

static int write_checked(const struct bp_gpio_method *m, struct bp_gpio_line *l, int v,
			 struct readback *rb)
{
	int rc = m->set(l, v);

	if (rc || --rb->left)
		return rc;
	rb->left = rb->every;
	rc = m->get(l);
	if (rc < 0)
		return rc;
	rb->checks++;
	rb->mismatches += rc != v;
	return 0;
}

static int pairs_readback(const struct bp_gpio_method *m, struct bp_gpio_line *l, unsigned n,
			  uint64_t *done, struct readback *rb)
{
	int rc = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		rc = write_checked(m, l, 1, rb);
		if (rc)
			break;
		rc = write_checked(m, l, 0, rb);
		if (rc)
			break;
	}
	*done += i;
	return rc;
}

static int run_pairs(const struct bp_gpio_method *m, struct bp_gpio_line *l, unsigned n,
		     uint64_t *done, struct readback *rb)
{
	return rb->every ? pairs_readback(m, l, n, done, rb) : pairs_plain(m, l, n, done);
}

/* An interval mark passed at now: report it and set the next. */
static void mark_interval(const struct bp_gpio_loop_cfg *cfg, uint64_t now, uint64_t pairs,
			  uint64_t *mark_ns, uint64_t *mark_pairs)
{
	if (!cfg->interval_ns || now < *mark_ns + cfg->interval_ns)
		return;
	if (cfg->on_interval)
		cfg->on_interval(cfg->arg, *mark_ns, now, pairs - *mark_pairs);
	*mark_ns = now;
	*mark_pairs = pairs;
}

int bp_gpio_loop_run(const struct bp_gpio_method *m, struct bp_gpio_line *l,
		     const struct bp_gpio_loop_cfg *cfg, struct bp_gpio_loop_result *res)
{
	struct readback rb = { .every = cfg->readback, .left = cfg->readback };
	uint64_t start = bp_now_ns(), deadline = start + cfg->time_ns, now = start;
	uint64_t mark_ns = start, mark_pairs = 0, pairs = 0;
	struct bp_histo *h = res->histo;
	int rc = 0;

	*res = (struct bp_gpio_loop_result){ .histo = h, .start_ns = start };
	while (now < deadline && !bp_stop_requested()) {
		/* the timed pair: its two writes between two clock reads */
		uint64_t before = pairs;

		rc = run_pairs(m, l, 1, &pairs, &rb);
		uint64_t t1 = bp_now_ns();

		if (rc)
			break;
		if (h && pairs > before) {
			uint64_t span = t1 - now;

			bp_histo_record(h, span > cfg->clock_ns ? (span - cfg->clock_ns) / 2 : 0);
		}
		rc = run_pairs(m, l, BP_GPIO_SAMPLE_EVERY - 1, &pairs, &rb);
		if (rc)
			break;
		now = bp_now_ns();
		mark_interval(cfg, now, pairs, &mark_ns, &mark_pairs);
	}
	now = bp_now_ns();
	/* the last part interval, when it is more than a tenth of one */
	if (cfg->interval_ns && now > mark_ns + cfg->interval_ns / 10 && cfg->on_interval &&
	    pairs > mark_pairs)
		cfg->on_interval(cfg->arg, mark_ns, now, pairs - mark_pairs);
	res->pairs = pairs;
	res->writes = 2 * pairs;
	res->elapsed_ns = now - start;
	res->checks = rb.checks;
	res->mismatches = rb.mismatches;
	res->error = rc;
	res->stopped = !rc && bp_stop_requested() && now < deadline;
	return rc;
}

double bp_gpio_loop_write_ns(const struct bp_gpio_loop_result *res)
{
	return res->writes ? (double)res->elapsed_ns / (double)res->writes : NAN;
}

double bp_gpio_loop_period_rate(const struct bp_gpio_loop_result *res)
{
	return res->elapsed_ns ? (double)res->pairs * 1e9 / (double)res->elapsed_ns : NAN;
}
