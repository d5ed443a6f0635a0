/*
 * bp_loop_sole_flow: what a flow checks before it waits inside a blocking call of its own
 * (the rr responder's and client's fast path). It must say "sole" only while exactly one
 * flow is registered and nothing else may need the loop (a timer, a stop); a wrong "yes"
 * would stall the other flows of a worker.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/loop.h"
#include "tap.h"

static void ignore(struct bp_flow *f, uint32_t events)
{
	(void)f;
	(void)events;
}

static void fired(struct bp_timer *t, uint64_t now)
{
	(void)t;
	(void)now;
}

static struct bp_flow flow_on(int fd)
{
	return (struct bp_flow){ .fd = fd, .events = EPOLLIN, .handler = ignore };
}

int main(void)
{
	struct bp_loop *l = bp_loop_new();
	struct bp_flow a = flow_on(eventfd(0, EFD_NONBLOCK)), b = flow_on(eventfd(0, EFD_NONBLOCK));
	struct bp_timer t = { .fn = fired };

	CHECK(l != NULL);
	/* The loop's own wake-up flow does not count: an empty loop has no sole flow. */
	CHECK(!bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_add(l, &a), 0);
	CHECK(bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_add(l, &b), 0);
	CHECK(!bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_del(&b), 0);
	CHECK(bp_loop_sole_flow(l));
	/* Deleting it again is refused (ENOENT) and must not count it out twice. */
	CHECK_INT(bp_loop_del(&b), -ENOENT);
	CHECK(bp_loop_sole_flow(l));
	/* A timer is another flow's business: no waiting while one is armed. */
	bp_timer_arm(l, &t, 1);
	CHECK(!bp_loop_sole_flow(l));
	bp_timer_cancel(l, &t);
	CHECK(bp_loop_sole_flow(l));
	/* A stop (how a worker is told that a command waits) ends the waiting. */
	bp_loop_stop(l);
	CHECK(!bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_run(l, 0), 0);  /* consumes the stop */
	CHECK(bp_loop_sole_flow(l));
	/* A flow whose fd was closed before its delete is gone from the set all the same. */
	CHECK_INT(bp_loop_add(l, &b), 0);
	CHECK(!bp_loop_sole_flow(l));
	close(b.fd);
	CHECK_INT(bp_loop_del(&b), -EBADF);
	CHECK(bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_del(&a), 0);
	CHECK(!bp_loop_sole_flow(l));
	close(a.fd);
	bp_loop_free(l);
	return tap_done();
}
