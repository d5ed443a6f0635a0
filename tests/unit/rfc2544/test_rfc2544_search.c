/*
 * The throughput search against simulated paths with a known zero-loss rate: a device that
 * loses above its rate, behind a tester whose own egress may carry less than the medium.
 */
#include "rfc2544/rfc2544_search.h"

#include <math.h>

#include "tap.h"

struct path {
	double egress;     /* the most the tester's egress carries (0: no limit) */
	double overshoot;  /* what a saturated egress seems to carry, as a share above egress */
	double device;     /* the device loses above this rate (0: never) */
	int starved;       /* this trial (1, 2, ...) the tester's CPU offers only ... */
	double starved_share;  /* ... this share of its target (0: never) */
	/* Failed trials tell the search what arrived (bp_search_note_delivered): the device's
	 * rate, this share above it (its queue, a tbf bucket); negative: a device that loses
	 * a little at every rate, everything but that share of the target arriving. */
	bool hints;
	double burst;
};

struct outcome {
	double result;
	int trials;
	bool egress_bound;
};

/*
 * One trial as the command sees it: a target above the egress is offered only up to it
 * (plus what the tester's queue held at the end, as a saturated tbf's backlog does), and
 * the receiver sees at most what the egress carries; the device loses what exceeds its rate.
 */
static void trial(struct bp_search *s, const struct path *p, double target)
{
	double offered = target, carried = target;
	bool lossless;

	if (p->egress > 0 && target > p->egress) {
		offered = p->egress * 1.05;
		if (offered > target)
			offered = target;
		carried = p->egress * (1 + p->overshoot);
	}
	if (s->trials + 1 == p->starved && offered > target * p->starved_share)
		offered = carried = target * p->starved_share;
	lossless = p->device <= 0 || carried <= p->device;
	if (offered >= BP_SEARCH_OFFERED_SHARE * target) {
		bp_search_record(s, target, lossless);
		if (!lossless && p->hints)
			bp_search_note_delivered(s, target, p->burst < 0 ?
						 target * (1 + p->burst) :
						 fmin(p->device * (1 + p->burst), target * 0.999));
	} else
		bp_search_record_short(s, target, lossless ? carried : offered, lossless);
}

static struct outcome search(double max, double resolution, const struct path *p)
{
	struct bp_search s;
	double rate;

	bp_search_init(&s, max, resolution);
	while ((rate = bp_search_next(&s)) > 0) {
		/* The next target never exceeds what the egress carried: it cannot be offered. */
		CHECK(s.egress <= 0 || rate <= s.egress * (1 + resolution));
		trial(&s, p, rate);
	}
	return (struct outcome){ bp_search_result(&s), s.trials, bp_search_egress_bound(&s) };
}

#define MAX64 1488095.0  /* 64-byte frames/s of 1 Gbit/s */

int main(void)
{
	struct outcome o;

	/* A device that takes everything: one trial at the maximum is the answer. */
	o = search(MAX64, 0.01, &(struct path){ 0 });
	CHECK_NEAR(o.result, MAX64, 0);
	CHECK_INT(o.trials, 1);
	CHECK(!o.egress_bound);
	/* A limit inside the range: found to within the resolution of the rate found (not of
	 * the maximum: 1 % of MAX64 would be 14,881 frames/s), never above it. */
	o = search(MAX64, 0.01, &(struct path){ .device = 208333 });
	CHECK(o.result <= 208333 && o.result >= 208333 * 0.99);
	CHECK(o.trials <= 12);
	o = search(MAX64, 0.01, &(struct path){ .device = 5000 });
	CHECK(o.result <= 5000 && o.result >= 5000 * 0.99);
	CHECK(o.trials <= 20);
	/* Nothing passes: the answer is 0, after a bounded number of trials. */
	o = search(1000, 0.01, &(struct path){ .device = 1e-9 });
	CHECK_NEAR(o.result, 0, 0);
	CHECK(o.trials <= 11);

	/* The tester's egress is the narrowest point (a 40 Mbit/s tbf on a veth read as
	 * 10 Gbit/s: 9,842 frames/s of 512 B against 2,349,624): the first trial carries the
	 * egress rate without loss, the second confirms it. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842 });
	CHECK(o.result >= 9842 * 0.99 && o.result <= 9842 * 1.01);
	CHECK_INT(o.trials, 2);
	CHECK(o.egress_bound);
	/* The same with a device that could take a little more than the egress. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .device = 9900 });
	CHECK(o.result >= 9842 * 0.99 && o.result <= 9842 * 1.01);
	CHECK(o.egress_bound);
	/* A receiver's figure 3 % above what the egress carries: the trial at it is refused
	 * again, and the search settles on the egress within the resolution. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .overshoot = 0.03 });
	CHECK(o.result >= 9842 * 0.99 && o.result <= 9842 * 1.04);
	CHECK(o.trials <= 10);
	CHECK(o.egress_bound);
	/* The tester's CPU falls behind in the trial that confirms the egress rate: a rate that
	 * passed stays passed, and the search neither starts over nor settles lower. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .starved = 2,
						   .starved_share = 0.7 });
	CHECK(o.result >= 9842 * 0.99 && o.result <= 9842 * 1.01);
	CHECK_INT(o.trials, 2);
	CHECK(o.egress_bound);
	/* ... or in the first trial (a busy tester offering 70 % of what the egress carries):
	 * the confirmation passes, and the answer is what that trial carried, no less. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .starved = 1,
						   .starved_share = 0.7 * 9842 / 2349624 });
	CHECK(o.result >= 0.7 * 9842 * 0.99 && o.result <= 9842 * 1.01);
	CHECK(o.trials <= 3);
	/* A device that loses below the egress rate: the search goes below what the egress
	 * carried and finds the device, and the egress is not blamed. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .device = 4000 });
	CHECK(o.result <= 4000 && o.result >= 4000 * 0.99);
	CHECK(!o.egress_bound);
	CHECK(o.trials <= 12);
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .device = 9600 });
	CHECK(o.result <= 9600 && o.result >= 9600 * 0.99);
	CHECK(!o.egress_bound);
	/* A coarse resolution is relative too: 10 % of the rate found. */
	o = search(2349624, 0.10, &(struct path){ .egress = 9842, .device = 3000 });
	CHECK(o.result <= 3000 && o.result >= 3000 * 0.90);
	CHECK(o.trials <= 8);
	/* What arrived in a failed trial leads the next one: a device that forwards its rate
	 * and no more (and 0.2 % from its queue) is found in 3 trials, the same rate the
	 * bisection finds in 10 at 1 %, never above it. */
	o = search(MAX64, 0.01, &(struct path){ .device = 208333, .hints = true, .burst = 0.002 });
	CHECK(o.result <= 208333 && o.result >= 208333 * 0.99);
	CHECK_INT(o.trials, 3);
	o = search(MAX64, 0.001, &(struct path){ .device = 5000, .hints = true });
	CHECK(o.result <= 5000 && o.result >= 5000 * 0.999);
	CHECK(o.trials <= 4);
	/* 3 % arrives above the rate (a tbf bucket in a short trial): hints 0.5 % and 2 %
	 * below it fail, 8 % below passes, then bisection; fewer than bisection's 10 all the
	 * same. */
	o = search(MAX64, 0.01, &(struct path){ .device = 208333, .hints = true, .burst = 0.03 });
	CHECK(o.result <= 208333 && o.result >= 208333 * 0.99);
	CHECK(o.trials <= 8);
	/* A device that loses 0.1 % at every rate: four hints, then bisection to the floor; 0,
	 * at most the 4 hints more than without them. */
	o = search(1000, 0.01, &(struct path){ .device = 1e-9, .hints = true, .burst = -0.001 });
	CHECK_NEAR(o.result, 0, 0);
	CHECK(o.trials <= 11 + BP_SEARCH_HINTS);
	/* A hint never takes the search outside its bracket: behind a narrow egress the
	 * device's limit is still found below what the egress carried. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .device = 4000, .hints = true });
	CHECK(o.result <= 4000 && o.result >= 4000 * 0.99);
	CHECK(!o.egress_bound);
	/* An egress far below the maximum and a device that loses everything: 0, bounded. */
	o = search(2349624, 0.01, &(struct path){ .egress = 9842, .device = 1e-9 });
	CHECK_NEAR(o.result, 0, 0);
	CHECK(o.trials <= 12);
	return tap_done();
}
