/* Pinned workers: every one runs, gets its argument, meets the others at the barrier,
 * and a failure comes back with its message. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/workers.h"
#include "tap.h"

struct slot {
	int seen_index;
	int cpu;
	uint64_t before_sync, after_sync;
};

static int record(struct bp_worker *w)
{
	struct slot *s = w->arg;

	s->seen_index = w->index;
	s->cpu = w->cpu;
	/* Stagger arrival so that a barrier that does not wait would show. */
	bp_sleep_until_ns(bp_now_ns() + (uint64_t)w->index * 20 * BP_NS_PER_MS);
	s->before_sync = bp_now_ns();
	bp_worker_sync(w);
	s->after_sync = bp_now_ns();
	return 0;
}

static int fail_third(struct bp_worker *w)
{
	if (w->index != 2)
		return 0;
	snprintf(w->err, sizeof(w->err), "worker %d: disk on fire", w->index);
	return -EIO;
}

int main(void)
{
	struct slot slots[4] = { 0 };
	void *args[4] = { &slots[0], &slots[1], &slots[2], &slots[3] };
	char err[256] = "";
	uint64_t last_arrival = 0;
	int ncpu = bp_workers_available_cpus();

	CHECK(ncpu >= 1);
	CHECK_INT(bp_workers_run(4, true, record, args, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_INT(slots[i].seen_index, i);
		/* Pinned, wrapping around the allowed CPUs. */
		CHECK(slots[i].cpu >= 0);
		if (slots[i].before_sync > last_arrival)
			last_arrival = slots[i].before_sync;
	}
	CHECK(slots[0].cpu != slots[1 % ncpu].cpu || ncpu == 1);
	for (int i = 0; i < 4; i++)
		CHECK(slots[i].after_sync >= last_arrival);
	CHECK_INT(bp_workers_run(3, false, record, args, err, sizeof(err)), 0);
	CHECK_INT(slots[0].cpu, -1);
	CHECK_INT(bp_workers_run(4, false, fail_third, NULL, err, sizeof(err)), -EIO);
	CHECK_STR(err, "worker 2: disk on fire");
	return tap_done();
}
