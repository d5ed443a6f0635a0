/*
 * The busy-poll window (io/busy_poll.c) on simulated waits: it grows while events come
 * soon after the loop runs out of work, stays while the poll serves them, shrinks and
 * closes when they come later than the longest poll, never outgrows its maximum or a
 * wait's own timeout, and turns off for a while when the poller is preempted in many polls
 * (a task sharing its core) but not for a kernel thread's rare preemption.
 */
#include <stdbool.h>
#include <stdint.h>

#include "io/busy_poll.h"
#include "tap.h"

#define US 1000u
#define MAX (100 * US)

/* A wait beginning at *now whose event comes after gap_ns: what the loop would do. */
static uint64_t wait_once(struct bp_busy_poll *b, uint64_t *now, uint64_t gap_ns,
			  bool preempted)
{
	uint64_t win = bp_busy_poll_window(b, *now, UINT64_MAX);

	*now += gap_ns;
	/* Only a wait that polled can have been preempted while polling. */
	bp_busy_poll_learn(b, *now, gap_ns, win, true, preempted && win);
	*now += 5 * US;  /* the work the event brought */
	return win;
}

int main(void)
{
	struct bp_busy_poll b;
	uint64_t now = 1000000000, win = 0;

	bp_busy_poll_init(&b, 0);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == 0);
	wait_once(&b, &now, 20 * US, false);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == 0);  /* off stays off */

	bp_busy_poll_init(&b, MAX);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == BP_BUSY_POLL_STEP_NS);
	/* Answers 25 us apart: the window doubles past 25 us and then serves every wait. */
	for (int i = 0; i < 10; i++)
		win = wait_once(&b, &now, 25 * US, false);
	CHECK(win >= 25 * US && win <= 50 * US);
	CHECK(b.hits >= 7 && b.hits < b.polls);
	/* Never past the maximum, nor past a wait's own timeout. */
	for (int i = 0; i < 10; i++)
		win = wait_once(&b, &now, 90 * US, false);
	CHECK(win == MAX);
	CHECK(bp_busy_poll_window(&b, now, 7 * US) == 7 * US);
	/* A timer's wait (no event) teaches nothing. */
	bp_busy_poll_learn(&b, now + MAX * 3, MAX * 3, MAX, false, false);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == MAX);
	/* Events later than the longest poll: the window halves to nothing. */
	for (int i = 0; i < 6; i++)
		wait_once(&b, &now, 5 * MAX, false);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == 0);
	/* ...and opens again once they come soon. */
	wait_once(&b, &now, 20 * US, false);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == BP_BUSY_POLL_STEP_NS);

	/* A rare preemption (one poll in 200) halves the window, no more. */
	bp_busy_poll_init(&b, MAX);
	for (int i = 0; i < 2000; i++)
		wait_once(&b, &now, 30 * US, i % 200 == 100);
	CHECK(now >= b.off_until);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) >= 30 * US);
	/* Preempted in every poll (a task shares the core): off for the cool-down. */
	for (int i = 0; i < 128 && now >= b.off_until; i++)
		wait_once(&b, &now, 30 * US, true);
	CHECK(now < b.off_until);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == 0);
	now = b.off_until;
	wait_once(&b, &now, 20 * US, false);
	CHECK(bp_busy_poll_window(&b, now, UINT64_MAX) == BP_BUSY_POLL_STEP_NS);
	return tap_done();
}
