/* Monotonic time in integer nanoseconds: every duration in boardperf comes from here. */
#ifndef BP_CORE_CLOCK_H
#define BP_CORE_CLOCK_H

#include <stdint.h>

#define BP_NS_PER_SEC 1000000000ULL
#define BP_NS_PER_MS  1000000ULL
#define BP_NS_PER_US  1000ULL

/* CLOCK_MONOTONIC in ns. Wall time never measures anything; it only labels stored results. */
uint64_t bp_now_ns(void);

/* Sleep until the monotonic deadline (absolute ns); returns early only on a signal (-EINTR). */
int bp_sleep_until_ns(uint64_t deadline_ns);

#endif
