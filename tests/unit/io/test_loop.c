/* The per-thread event loop: timers in order and on time, flows on a socketpair, a wake
 * from another thread, flows deleted (and freed) by handlers in the same batch, until_ns,
 * and bp_loop_sole_flow's count of registered flows.
 *
 * The timer logic (order, due times, a pacer's catch-up, until_ns, a run that must not wait)
 * runs on the fake clock of core/clock.h, where a waiting loop moves the time on to its next
 * deadline: its checks are exact ("fired at its due time") and no load can break them. What
 * only the kernel can show (a wake from another thread, the loop asleep rather than
 * spinning) runs on the real clock with bounds a busy machine does not reach. */
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "io/loop.h"
#include "core/signals.h"
#include "tap.h"

/*
 * How late a return on the real clock may be. The bounds below are there to catch a loop
 * that misses its wake (and so sleeps to a later deadline, or for ever), not to time the
 * scheduler: on two vCPUs with other builds beside them a runnable process waits 100 ms and
 * more for a core (80 ms failed there), so the bound is seconds; the lower bounds (never
 * early) and the fake-clock checks are the exact ones.
 */
#define LATE_NS (5 * BP_NS_PER_SEC)

/* Where the fake clock starts: any time will do, but not 0, which until_ns reads as "none". */
#define FAKE_T0 (1000 * BP_NS_PER_SEC)

struct fired {
	struct bp_loop *loop;
	int order[4];
	uint64_t at[4];
	int n;
	int stop_after;
};

static void on_timer(struct bp_timer *t, uint64_t now)
{
	struct fired *f = t->data;

	f->order[f->n] = (int)(t->due_ns % 10);
	f->at[f->n++] = now;
	if (f->n == f->stop_after)
		bp_loop_stop(f->loop);
}

/* On the fake clock: each timer fires at exactly its due time, in due order. */
static void test_timers(struct bp_loop *l)
{
	struct fired f = { .loop = l, .stop_after = 3 };
	struct bp_timer t[4] = { 0 };
	uint64_t base, due[4];

	bp_clock_fake_start(FAKE_T0);
	/* The last digit of each deadline tells which timer fired. */
	base = bp_now_ns() / 10 * 10;

	due[0] = base + 30 * BP_NS_PER_MS + 1;
	due[1] = base + 10 * BP_NS_PER_MS + 2;
	due[2] = base + 20 * BP_NS_PER_MS + 3;
	due[3] = base + 15 * BP_NS_PER_MS + 4;
	for (int i = 0; i < 4; i++) {
		t[i].fn = on_timer;
		t[i].data = &f;
		bp_timer_arm(l, &t[i], due[i]);
	}
	bp_timer_cancel(l, &t[3]);
	CHECK(!t[3].armed);
	CHECK_INT(bp_loop_run(l, 0), 0);
	CHECK_INT(f.n, 3);
	CHECK_INT(f.order[0], 2);
	CHECK_INT(f.order[1], 3);
	CHECK_INT(f.order[2], 1);
	CHECK_INT(f.at[0], due[1]);
	CHECK_INT(f.at[1], due[2]);
	CHECK_INT(f.at[2], due[0]);
	/* The stop from the third handler ended the run there: no time passed after it. */
	CHECK_INT(bp_now_ns(), due[0]);
	bp_clock_fake_stop();
}

struct pacer {
	struct bp_loop *loop;
	uint64_t step;
	int n;
	int off_due;  /* firings whose `now` was not their due time */
};

static void on_pace(struct bp_timer *t, uint64_t now)
{
	struct pacer *p = t->data;

	if (now != t->due_ns)
		p->off_due++;
	p->n++;
	bp_timer_arm(p->loop, t, t->due_ns + p->step);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * BP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * A pacer re-arming itself every 300 us for 200 ms, on the fake clock: it fires exactly
 * 666 times (due at 0.3 to 199.8 ms; the one due at 200.1 ms is past until_ns), each at its
 * due time, and the run ends at until_ns exactly.
 */
static void test_pacer_count(struct bp_loop *l)
{
	struct pacer p = { .loop = l, .step = 300 * BP_NS_PER_US };
	struct bp_timer t = { .fn = on_pace, .data = &p };
	uint64_t t0;

	bp_clock_fake_start(FAKE_T0);
	t0 = bp_now_ns();
	bp_timer_arm(l, &t, t0 + p.step);
	CHECK_INT(bp_loop_run(l, t0 + 200 * BP_NS_PER_MS), 0);
	CHECK_INT(bp_now_ns() - t0, 200 * BP_NS_PER_MS);
	CHECK_INT(p.n, 666);
	CHECK_INT(p.off_due, 0);
	bp_timer_cancel(l, &t);
	bp_clock_fake_stop();
}

/*
 * Sub-millisecond timers round the wait up: the loop sleeps rather than spins (real clock:
 * CPU time against wall time). How many fire is test_pacer_count's business: here a
 * machine that holds the process 100 ms past the end takes firings off, but can never add.
 */
static void test_no_spin(struct bp_loop *l)
{
	struct pacer p = { .loop = l, .step = 300 * BP_NS_PER_US };
	struct bp_timer t = { .fn = on_pace, .data = &p };
	uint64_t t0 = bp_now_ns(), cpu0 = thread_cpu_ns(), wall, cpu;

	bp_timer_arm(l, &t, t0 + p.step);
	CHECK_INT(bp_loop_run(l, t0 + 200 * BP_NS_PER_MS), 0);
	wall = bp_now_ns() - t0;
	cpu = thread_cpu_ns() - cpu0;
	bp_timer_cancel(l, &t);
	CHECK(wall >= 200 * BP_NS_PER_MS && wall < 200 * BP_NS_PER_MS + LATE_NS);
	/* The pacer catches up in bursts: roughly 200 ms / 0.3 ms firings in all. */
	CHECK(p.n > 0 && p.n <= 666);
	CHECK(cpu < wall / 4);
	printf("# pacer: %d firings, %.1f ms CPU in %.1f ms\n", p.n, cpu / 1e6, wall / 1e6);
}

struct reader {
	int got;
	char last;
	struct bp_flow *other;  /* deleted and freed by this handler */
	bool free_self;
};

static void on_readable(struct bp_flow *f, uint32_t events)
{
	struct reader *r = f->data;
	struct bp_loop *l = f->loop;
	char c;

	if ((events & EPOLLIN) && read(f->fd, &c, 1) == 1) {
		r->got++;
		r->last = c;
	}
	if (r->other) {
		bp_loop_del(r->other);
		free(r->other);
		r->other = NULL;
	}
	if (r->free_self) {
		bp_loop_del(f);
		free(f);
	}
	/* A stop from a handler ends the run after this batch. */
	bp_loop_stop(l);
}

/* On the fake clock: an AF_UNIX write is readable at once, so nothing here needs a wait. */
static void test_flow(struct bp_loop *l)
{
	int sv[2];
	struct reader r = { 0 };
	struct bp_flow f = { .events = EPOLLIN, .handler = on_readable, .data = &r };
	uint64_t t0;

	bp_clock_fake_start(FAKE_T0);
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	f.fd = sv[0];
	CHECK_INT(bp_loop_add(l, &f), 0);
	CHECK_INT(write(sv[1], "x", 1), 1);
	t0 = bp_now_ns();
	CHECK_INT(bp_loop_run(l, t0 + 2 * BP_NS_PER_SEC), 0);
	CHECK_INT(r.got, 1);
	CHECK_INT(r.last, 'x');
	/* The handler's stop ended the run before any wait. */
	CHECK_INT(bp_now_ns(), t0);
	/* Not watched: the byte waits, and until_ns ends the run at exactly its time. */
	CHECK_INT(bp_loop_mod(&f, 0), 0);
	CHECK_INT(write(sv[1], "y", 1), 1);
	t0 = bp_now_ns();
	CHECK_INT(bp_loop_run(l, t0 + 50 * BP_NS_PER_MS), 0);
	CHECK_INT(bp_now_ns() - t0, 50 * BP_NS_PER_MS);
	CHECK_INT(r.got, 1);
	CHECK_INT(bp_loop_del(&f), 0);
	close(sv[0]);
	close(sv[1]);
	bp_clock_fake_stop();
}

/*
 * Two readable flows in one batch: whichever runs first deletes and frees the other (and
 * itself). Only one handler may run; ASan reports the use of a freed flow otherwise.
 */
static void test_delete_in_handler(struct bp_loop *l)
{
	int a[2], b[2];
	struct reader ra = { .free_self = true }, rb = { .free_self = true };
	struct bp_flow *fa = calloc(1, sizeof(*fa)), *fb = calloc(1, sizeof(*fb));

	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	*fa = (struct bp_flow){ .fd = a[0], .events = EPOLLIN, .handler = on_readable, .data = &ra };
	*fb = (struct bp_flow){ .fd = b[0], .events = EPOLLIN, .handler = on_readable, .data = &rb };
	ra.other = fb;
	rb.other = fa;
	CHECK_INT(bp_loop_add(l, fa), 0);
	CHECK_INT(bp_loop_add(l, fb), 0);
	CHECK_INT(write(a[1], "a", 1), 1);
	CHECK_INT(write(b[1], "b", 1), 1);
	CHECK_INT(bp_loop_run(l, bp_now_ns() + 2 * BP_NS_PER_SEC), 0);
	CHECK_INT(ra.got + rb.got, 1);
	/* Both gone from the set: more data wakes nobody. */
	CHECK_INT(write(a[1], "a", 1), 1);
	CHECK_INT(bp_loop_run(l, bp_now_ns() + 30 * BP_NS_PER_MS), 0);
	CHECK_INT(ra.got + rb.got, 1);
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
	}
}

static void *stop_later(void *arg)
{
	struct bp_loop *l = arg;

	bp_sleep_until_ns(bp_now_ns() + 50 * BP_NS_PER_MS);
	bp_loop_stop(l);
	bp_loop_wake(l);
	return NULL;
}

static void test_wake(struct bp_loop *l)
{
	pthread_t th;
	uint64_t t0 = bp_now_ns(), dt;

	CHECK_INT(pthread_create(&th, NULL, stop_later, l), 0);
	/* No timer, no deadline: only the other thread can end this run. */
	CHECK_INT(bp_loop_run(l, 0), 0);
	dt = bp_now_ns() - t0;
	pthread_join(th, NULL);
	CHECK(dt >= 40 * BP_NS_PER_MS && dt < 50 * BP_NS_PER_MS + LATE_NS);
	/*
	 * The fake clock from here: no other thread. A stop posted while no run is active ends
	 * the next run at once: no time passes (a run that waited would move it on to 1 s).
	 */
	bp_clock_fake_start(FAKE_T0);
	bp_loop_stop(l);
	t0 = bp_now_ns();
	CHECK_INT(bp_loop_run(l, t0 + BP_NS_PER_SEC), 0);
	CHECK_INT(bp_now_ns() - t0, 0);
	/* A wake alone does not end a run: the deadline does, exactly. */
	bp_loop_wake(l);
	t0 = bp_now_ns();
	CHECK_INT(bp_loop_run(l, t0 + 30 * BP_NS_PER_MS), 0);
	CHECK_INT(bp_now_ns() - t0, 30 * BP_NS_PER_MS);
	bp_clock_fake_stop();
}

/* SIGINT/SIGTERM end a run at once (the loop checks before it waits). Last: it sticks. */
static void test_signal(struct bp_loop *l)
{
	struct bp_timer t = { .fn = on_pace };
	uint64_t t0;

	CHECK_INT(bp_signals_install(), 0);
	CHECK_INT(raise(SIGINT), 0);
	CHECK(bp_stop_requested());
	/* On the fake clock: a run that waited for the timer would move the time on by 1 s. */
	bp_clock_fake_start(FAKE_T0);
	bp_timer_arm(l, &t, bp_now_ns() + BP_NS_PER_SEC);
	t0 = bp_now_ns();
	CHECK_INT(bp_loop_run(l, t0 + 5 * BP_NS_PER_SEC), 0);
	CHECK_INT(bp_now_ns() - t0, 0);
	bp_timer_cancel(l, &t);
	bp_clock_fake_stop();
}

static void sole_ignore(struct bp_flow *f, uint32_t events)
{
	(void)f;
	(void)events;
}

static void sole_timer(struct bp_timer *t, uint64_t now)
{
	(void)t;
	(void)now;
}

/*
 * bp_loop_sole_flow: what a flow checks before it waits inside a blocking call of its own
 * (the rr responder's fast path). It must say "sole" only while exactly one flow is
 * registered and nothing else may need the loop (a timer, a stop); a wrong "yes" would
 * stall the other flows of a worker.
 */
static void test_sole_flow(void)
{
	struct bp_loop *l = bp_loop_new();
	struct bp_flow a = { .fd = eventfd(0, EFD_NONBLOCK), .events = EPOLLIN,
			     .handler = sole_ignore };
	struct bp_flow b = a;
	struct bp_timer t = { .fn = sole_timer };

	b.fd = eventfd(0, EFD_NONBLOCK);
	CHECK(l != NULL);
	if (!l)
		return;
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
	CHECK(bp_loop_stopping(l));
	CHECK(!bp_loop_sole_flow(l));
	CHECK_INT(bp_loop_run(l, 0), 0);  /* consumes the stop */
	CHECK(!bp_loop_stopping(l));
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
}

int main(void)
{
	struct bp_loop *l = bp_loop_new();

	/* First: test_signal leaves a stop requested for the whole process. */
	test_sole_flow();
	CHECK(l != NULL);
	if (!l)
		return tap_done();
	test_timers(l);
	test_pacer_count(l);
	test_no_spin(l);
	test_flow(l);
	test_delete_in_handler(l);
	test_wake(l);
	test_signal(l);
	bp_loop_free(l);
	return tap_done();
}
