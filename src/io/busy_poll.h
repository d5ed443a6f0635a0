/*
 * How long a loop polls (epoll_wait without sleeping) before it sleeps, learnt from how
 * long it has been idle: the window grows while the next event keeps coming soon after the
 * loop ran out of work, and shrinks when it comes late or never, as the kernel's haltpoll
 * idle governor does for a virtual CPU.
 *
 * Why a tester polls at all: when it sleeps in epoll_wait, the peer whose answer arrives
 * wakes it, and on one machine (a server on loopback or on this host's own address) that
 * wake-up is the server's work: its send runs the receive path up to waking the client's
 * thread, an inter-processor interrupt to a halted core, about 10 us per answer in a VM
 * against nginx's own 20 us. A client that is faster than its server sleeps once per
 * answer, and the server it measures slows down by half as much again (docs/latency.md,
 * "HTTP load"). Polling is the client's CPU: it is used only where a core is spare, and
 * stops for a while once the poller is preempted in many polls (a task shares its core).
 */
#ifndef BP_IO_BUSY_POLL_H
#define BP_IO_BUSY_POLL_H

#include <stdbool.h>
#include <stdint.h>

/* The window's first step and its floor: below it the window closes. */
#define BP_BUSY_POLL_STEP_NS 10000u
/* How long polling stays off once the poller is preempted in one poll of eight. */
#define BP_BUSY_POLL_COOLDOWN_NS 100000000u

struct bp_busy_poll {
	uint64_t max_ns;       /* 0: never poll */
	uint64_t window_ns;    /* how long the next wait polls first */
	uint64_t off_until;    /* bp_now_ns() before which nothing is polled (preempted) */
	int64_t preempted_share;  /* of recent polls, those preempted (65536: all) */
	uint64_t polls, polled_ns, hits;  /* waits that polled, their time, those it served */
};

/* Polling of at most max_ns before each wait (0: none). */
void bp_busy_poll_init(struct bp_busy_poll *b, uint64_t max_ns);

/* The time to poll before a wait beginning at now, at most the wait's own timeout_ns. */
uint64_t bp_busy_poll_window(const struct bp_busy_poll *b, uint64_t now, uint64_t timeout_ns);

/*
 * After a wait that began at now - idle_ns and ended with an event (or its timeout) at
 * now, having polled for window_ns first: learn. preempted: the poller lost its core
 * meanwhile (an involuntary context switch), so polling now costs another task its CPU.
 */
void bp_busy_poll_learn(struct bp_busy_poll *b, uint64_t now, uint64_t idle_ns,
			uint64_t window_ns, bool got_event, bool preempted);

#endif
