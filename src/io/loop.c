#include "io/loop.h"

#include <errno.h>
#include <limits.h>
#include <time.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/signals.h"
#include "core/starve.h"
#include "io/busy_poll.h"

/* Events taken per epoll_wait; more are simply reported by the next call (level-triggered). */
#define LOOP_BATCH 64
/*
 * Timers fired per pass before the sockets get a turn: a pacer that has fallen behind
 * re-arms itself in the past, and must not starve I/O while it catches up.
 */
#define LOOP_TIMER_BURST 64

struct bp_loop {
	int epfd;
	int wakefd;
	struct bp_flow wake;
	struct bp_timer *timers;  /* sorted by due_ns, earliest first */
	int stop;                 /* atomic: bp_loop_stop may come from another thread */
	int nflows;               /* flows registered, the wake-up flow not counted */
	/*
	 * The batch being dispatched: bp_loop_del blanks the later events of a flow it removes,
	 * because a handler may free another flow whose event is still waiting in this batch.
	 */
	int batch_next, batch_n;
	struct bp_busy_poll busy;  /* polling before a wait (off unless bp_loop_set_busy_poll) */
	struct epoll_event ev[LOOP_BATCH];
};

static void on_wake(struct bp_flow *f, uint32_t events)
{
	uint64_t count;
	ssize_t n;

	(void)events;
	/* Only to reset the counter; the reason for the wake-up is in the waker's state. */
	n = read(f->fd, &count, sizeof(count));
	(void)n;
}

struct bp_loop *bp_loop_new(void)
{
	struct bp_loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->wakefd = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		goto error;
	l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->wakefd < 0)
		goto error;
	l->wake.fd = l->wakefd;
	l->wake.events = EPOLLIN;
	l->wake.handler = on_wake;
	if (bp_loop_add(l, &l->wake))
		goto error;
	l->nflows = 0;
	return l;
error:
	bp_loop_free(l);
	return NULL;
}

void bp_loop_free(struct bp_loop *l)
{
	if (!l)
		return;
	if (l->wakefd >= 0)
		close(l->wakefd);
	if (l->epfd >= 0)
		close(l->epfd);
	free(l);
}

int bp_loop_add(struct bp_loop *l, struct bp_flow *f)
{
	struct epoll_event ev = { .events = f->events, .data.ptr = f };

	f->loop = l;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, f->fd, &ev))
		return -errno;
	l->nflows++;
	return 0;
}

int bp_loop_mod(struct bp_flow *f, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = f };

	f->events = events;
	if (epoll_ctl(f->loop->epfd, EPOLL_CTL_MOD, f->fd, &ev))
		return -errno;
	return 0;
}

int bp_loop_del(struct bp_flow *f)
{
	struct bp_loop *l = f->loop;
	/* Kernels before 2.6.9 wanted a non-NULL event even for DEL. */
	struct epoll_event ev = { 0 };
	int rc = 0;

	if (!l)
		return -EINVAL;
	if (epoll_ctl(l->epfd, EPOLL_CTL_DEL, f->fd, &ev))
		rc = -errno;
	/* EBADF: the fd was closed first, which took it out of the set as well. */
	if (!rc || rc == -EBADF)
		l->nflows--;
	/* Even when DEL failed (fd already closed): its pending events must not be dispatched. */
	for (int i = l->batch_next; i < l->batch_n; i++)
		if (l->ev[i].data.ptr == f)
			l->ev[i].data.ptr = NULL;
	return rc;
}

static void timer_unlink(struct bp_loop *l, struct bp_timer *t)
{
	struct bp_timer **pp = &l->timers;

	while (*pp && *pp != t)
		pp = &(*pp)->next;
	if (*pp)
		*pp = t->next;
	t->next = NULL;
	t->armed = false;
}

void bp_timer_arm(struct bp_loop *l, struct bp_timer *t, uint64_t due_ns)
{
	struct bp_timer **pp = &l->timers;

	if (t->armed)
		timer_unlink(l, t);
	t->due_ns = due_ns;
	/* After every timer due at the same time: equal deadlines fire in arming order. */
	while (*pp && (*pp)->due_ns <= due_ns)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
	t->armed = true;
}

void bp_timer_cancel(struct bp_loop *l, struct bp_timer *t)
{
	if (t->armed)
		timer_unlink(l, t);
}

static void fire_timers(struct bp_loop *l, uint64_t now)
{
	for (int i = 0; i < LOOP_TIMER_BURST; i++) {
		struct bp_timer *t = l->timers;

		if (!t || t->due_ns > now)
			return;
		l->timers = t->next;
		t->next = NULL;
		t->armed = false;
		t->fn(t, now);
	}
}

/*
 * Nanoseconds until the next deadline; UINT64_MAX when there is none. A flow that needs
 * finer timing than the wait gives re-checks the clock when it runs.
 */
static uint64_t wait_ns(const struct bp_loop *l, uint64_t now, uint64_t until_ns)
{
	uint64_t due = l->timers ? l->timers->due_ns : UINT64_MAX;

	if (until_ns && until_ns < due)
		due = until_ns;
	if (due == UINT64_MAX)
		return UINT64_MAX;
	return due <= now ? 0 : due - now;
}

/*
 * Wait for events until the deadline. epoll_pwait2 (Linux 5.11) takes nanoseconds, which a
 * paced UDP sender needs: at 85,000 datagrams/s a batch is due every 0.75 ms, and a wait
 * rounded up to whole milliseconds would cap the rate. Where it is missing (older kernels,
 * qemu-user) the wait is rounded up to milliseconds, so the loop never spins.
 */
static int wait_events(struct bp_loop *l, uint64_t ns)
{
	static int have_pwait2 = 1;
	uint64_t ms;

#ifdef BP_HAVE_EPOLL_PWAIT2
	if (__atomic_load_n(&have_pwait2, __ATOMIC_RELAXED) && ns != UINT64_MAX) {
		struct timespec ts = { .tv_sec = (time_t)(ns / BP_NS_PER_SEC),
				       .tv_nsec = (long)(ns % BP_NS_PER_SEC) };
		int n = epoll_pwait2(l->epfd, l->ev, LOOP_BATCH, &ts, NULL);

		if (n >= 0 || errno != ENOSYS)
			return n;
		__atomic_store_n(&have_pwait2, 0, __ATOMIC_RELAXED);
	}
#endif
	(void)have_pwait2;
	if (ns == UINT64_MAX)
		return epoll_wait(l->epfd, l->ev, LOOP_BATCH, -1);
	ms = (ns + BP_NS_PER_MS - 1) / BP_NS_PER_MS;
	return epoll_wait(l->epfd, l->ev, LOOP_BATCH, ms > INT_MAX ? INT_MAX : (int)ms);
}

static void dispatch(struct bp_loop *l, int n)
{
	l->batch_n = n;
	for (l->batch_next = 0; l->batch_next < n;) {
		struct epoll_event *e = &l->ev[l->batch_next++];
		struct bp_flow *f = e->data.ptr;

		/* The handler may free f: nothing touches it afterwards. */
		if (f)
			f->handler(f, e->events);
	}
	l->batch_n = 0;
	l->batch_next = 0;
}

void bp_loop_set_busy_poll(struct bp_loop *l, uint64_t max_ns)
{
	bp_busy_poll_init(&l->busy, max_ns);
}

void bp_loop_busy_poll_stats(const struct bp_loop *l, uint64_t *polls, uint64_t *polled_ns,
			     uint64_t *hits)
{
	*polls = l->busy.polls;
	*polled_ns = l->busy.polled_ns;
	*hits = l->busy.hits;
}

/* Involuntary context switches of the calling thread so far. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/*
 * A wait that polls first (io/busy_poll.h says why): epoll_wait without sleeping until an
 * event, the window's end or the timeout, then the sleeping wait for the rest of the
 * timeout; the window learns from how long the loop was idle.
 */
static int wait_polling(struct bp_loop *l, uint64_t timeout, uint64_t *woke)
{
	uint64_t t0 = bp_now_ns(), t = t0;
	uint64_t win = bp_busy_poll_window(&l->busy, t0, timeout);
	long pre = win ? preemptions() : 0;
	int n = 0;

	while (win && t - t0 < win) {
		n = epoll_wait(l->epfd, l->ev, LOOP_BATCH, 0);
		if (n)
			break;
		t = bp_now_ns();
	}
	if (!n)
		n = wait_events(l, timeout == UINT64_MAX ? UINT64_MAX :
				   timeout > t - t0 ? timeout - (t - t0) : 0);
	t = bp_now_ns();
	*woke = t;
	if (n >= 0)
		bp_busy_poll_learn(&l->busy, t, t - t0, win, n > 0, win && preemptions() != pre);
	return n;
}

/*
 * A stop is consumed by the run it ends; one that arrives while no run is active ends the
 * next run at once, so a stop posted from another thread cannot be lost.
 */
int bp_loop_run(struct bp_loop *l, uint64_t until_ns)
{
	while (!__atomic_exchange_n(&l->stop, 0, __ATOMIC_ACQ_REL) && !bp_stop_requested()) {
		uint64_t timeout = UINT64_MAX, now = 0, woke = 0;
		int n;

		/* Without timers or a deadline the loop needs no clock at all. */
		if (l->timers || until_ns) {
			now = bp_now_ns();
			if (until_ns && now >= until_ns)
				break;
			fire_timers(l, now);
			if (__atomic_load_n(&l->stop, __ATOMIC_RELAXED))
				continue;
			/*
			 * The clock again: a timer may have worked a while and re-armed itself (or
			 * another) for a time after `now`; waiting from the stale reading would sleep
			 * through that work's length once more.
			 */
			now = bp_now_ns();
			timeout = wait_ns(l, now, until_ns);
		}
		/* A fake clock (tests, core/clock.h) waits for nothing and moves on to the deadline. */
		n = l->busy.max_ns && timeout ? wait_polling(l, bp_clock_wait_ns(timeout), &woke) :
						wait_events(l, bp_clock_wait_ns(timeout));
		/*
		 * Back past the deadline, with events, without, or interrupted (a process stopped
		 * and continued gets EINTR, signal(7)): the kernel owed the wake by then, so the
		 * time beyond it is time the tester was not run (core/starve.h).
		 */
		if (timeout != UINT64_MAX && !bp_clock_is_fake()) {
			if (!woke)  /* a polling wait read the clock on its way out */
				woke = bp_now_ns();
			if (woke > now + timeout)
				bp_starve_note_late(woke - now - timeout);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0 && timeout != UINT64_MAX)
			bp_clock_timed_out(now + timeout);
		dispatch(l, n);
	}
	return 0;
}

bool bp_loop_stopping(const struct bp_loop *l)
{
	return __atomic_load_n(&l->stop, __ATOMIC_ACQUIRE) || bp_stop_requested();
}

bool bp_loop_sole_flow(const struct bp_loop *l)
{
	return l->nflows == 1 && !l->timers && !bp_loop_stopping(l);
}

void bp_loop_stop(struct bp_loop *l)
{
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
}

void bp_loop_wake(struct bp_loop *l)
{
	uint64_t one = 1;
	/* EAGAIN means the counter is already non-zero: the loop wakes anyway. */
	ssize_t n = write(l->wakefd, &one, sizeof(one));

	(void)n;
}
