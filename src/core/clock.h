/* Monotonic time in integer nanoseconds: every duration in boardperf comes from here. */
#ifndef BP_CORE_CLOCK_H
#define BP_CORE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define BP_NS_PER_SEC 1000000000ULL
#define BP_NS_PER_MS  1000000ULL
#define BP_NS_PER_US  1000ULL

/* CLOCK_MONOTONIC in ns. Wall time never measures anything; it only labels stored results. */
uint64_t bp_now_ns(void);

/* Sleep until the monotonic deadline (absolute ns); returns early only on a signal (-EINTR). */
int bp_sleep_until_ns(uint64_t deadline_ns);

/*
 * A fake clock, for unit tests of timing logic (a timer's due time, a deadline, a window).
 * Checked against CLOCK_MONOTONIC, such a test can only bound how late a thing happens, and
 * a busy machine (TSan, qemu-user, parallel tests on two cores) breaks any bound tight
 * enough to mean something. Under the fake clock time stands still until something waits:
 *   - bp_now_ns() returns the fake time, from every thread;
 *   - bp_sleep_until_ns() moves it on to the deadline and returns at once;
 *   - code that blocks in the kernel until a deadline (epoll_wait in io/loop.c, poll in
 *     proto/control.c) asks the kernel only what is ready now (bp_clock_wait_ns/_ms), and
 *     when nothing is, moves the time on to its deadline (bp_clock_timed_out): what
 *     sleeping through the timeout would have done, without the sleep;
 *   - a test moves it on by hand with bp_clock_fake_advance().
 * So a timer due in 30 ms fires when the loop has nothing else to do, at exactly its due
 * time, and a check can say "== due" instead of "between due and due + a second". A wait
 * without a deadline (epoll_wait(-1), poll(-1)) still blocks for real: only another thread
 * or the kernel can end it. While it runs, time never goes back: a sleep or a timed-out wait
 * whose deadline has passed moves nothing. Production code never starts it; what it costs
 * there is one load of a flag and a predictable branch per reading (measured in the commit
 * that added it). A start sets the time it is given, and readings taken before a start or
 * a stop mean nothing after it: the two clocks differ.
 */
void bp_clock_fake_start(uint64_t start_ns);
void bp_clock_fake_stop(void);
void bp_clock_fake_advance(uint64_t ns);
bool bp_clock_is_fake(void);

/*
 * The timeout for a kernel wait that bp_now_ns() computed (ns for epoll_pwait2, ms for poll):
 * unchanged under the real clock; 0 under the fake one (only what is ready now), except a
 * wait without limit (UINT64_MAX, a negative ms), which stays one.
 */
uint64_t bp_clock_wait_ns(uint64_t ns);
int bp_clock_wait_ms(int ms);
/*
 * After such a wait returned with nothing ready: under the fake clock the time moves on to
 * the wait's deadline (absolute ns), never back; under the real clock nothing happens.
 */
void bp_clock_timed_out(uint64_t deadline_ns);

#endif
