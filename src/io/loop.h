/*
 * A per-thread event loop: one epoll set, each flow a small state machine whose handler
 * is swapped as its state changes (the neper idea). Timers are a sorted list whose head
 * sets the epoll_wait timeout, so pacing needs no timerfd per flow. One loop per worker
 * thread; nothing here is shared between threads except bp_loop_wake().
 */
#ifndef BP_IO_LOOP_H
#define BP_IO_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct bp_loop;
struct bp_flow;

/* Called with the epoll events (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP) seen for the flow. */
typedef void (*bp_flow_handler)(struct bp_flow *f, uint32_t events);

struct bp_flow {
	int fd;
	uint32_t events;          /* what the flow waits for now */
	bp_flow_handler handler;
	void *data;               /* the owner's state */
	struct bp_loop *loop;
};

struct bp_timer;
typedef void (*bp_timer_fn)(struct bp_timer *t, uint64_t now_ns);

struct bp_timer {
	uint64_t due_ns;          /* bp_now_ns() deadline */
	bp_timer_fn fn;
	void *data;
	/* private: list linkage */
	struct bp_timer *next;
	bool armed;
};

struct bp_loop *bp_loop_new(void);
void bp_loop_free(struct bp_loop *l);

/* Register, change or remove a flow (0 or -errno). The flow memory is the caller's. */
int bp_loop_add(struct bp_loop *l, struct bp_flow *f);
int bp_loop_mod(struct bp_flow *f, uint32_t events);
int bp_loop_del(struct bp_flow *f);

/* Arm (or re-arm) a timer for t->due_ns; cancel one. Timers fire in due order. */
void bp_timer_arm(struct bp_loop *l, struct bp_timer *t, uint64_t due_ns);
void bp_timer_cancel(struct bp_loop *l, struct bp_timer *t);

/*
 * Run until bp_loop_stop(), SIGINT/SIGTERM (bp_stop_requested), or until_ns passes (0: no
 * limit). Returns 0 or a negative errno from epoll.
 */
int bp_loop_run(struct bp_loop *l, uint64_t until_ns);
/*
 * End the current run, or the next one if none is active; from any thread (another thread
 * then also calls bp_loop_wake so that a loop asleep in epoll_wait notices).
 */
void bp_loop_stop(struct bp_loop *l);

/*
 * True when the current run is to end: bp_loop_stop was called (how a worker is told that a
 * command waits for it) or SIGINT/SIGTERM came. A handler that keeps its thread for a while
 * (waiting alone in a blocking call) checks this between waits.
 */
bool bp_loop_stopping(const struct bp_loop *l);

/*
 * True while the calling handler's flow is all the loop has: one flow registered (besides
 * the loop's own wake-up), no timer armed, no stop pending (bp_loop_stop, SIGINT/SIGTERM).
 * A flow may then wait inside a blocking system call of its own instead of returning to
 * epoll_wait, as long as each wait is short and it checks this again after each one: a
 * command for the loop's thread arrives as a bp_loop_stop.
 */
bool bp_loop_sole_flow(const struct bp_loop *l);

/*
 * Poll for at most max_ns before each wait instead of sleeping at once, the window
 * adapting to how soon events come (io/busy_poll.h: why, and when it stops); 0: never
 * (the default). For the loop's own thread, before or between runs.
 */
void bp_loop_set_busy_poll(struct bp_loop *l, uint64_t max_ns);
/* Waits that polled, the time they polled, and those the poll served. */
void bp_loop_busy_poll_stats(const struct bp_loop *l, uint64_t *polls, uint64_t *polled_ns,
			     uint64_t *hits);

/* Wake a loop blocked in epoll_wait from another thread (an eventfd write). */
void bp_loop_wake(struct bp_loop *l);

#endif
