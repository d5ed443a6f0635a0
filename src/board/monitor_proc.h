/*
 * The monitor's parsers of /proc text and its CPU-share arithmetic, kept apart from the
 * sampling so that unit tests and the fuzz target feed them bytes directly:
 *
 * - /proc/stat's per-CPU lines summed over a set of CPUs (those this process may run on),
 *   through core/proc_stat.h's parser;
 * - /proc/PID/stat's user and system time (fields 14 and 15, in clock ticks) of a peer,
 *   and /proc/net/tcp's listening sockets, which say which process is the peer;
 * - `vcgencmd get_throttled`'s output ("throttled=0x50005").
 *
 * The shares between two samples are percent of the summed CPUs' time: busy (everything
 * but idle and iowait, steal left out), steal, and "other": busy less the CPU time of this
 * process and of the boardperf peers found at the start (docs/json.md, "The monitor").
 */
#ifndef BP_BOARD_MONITOR_PROC_H
#define BP_BOARD_MONITOR_PROC_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/proc_stat.h"

/* utime + stime (clock ticks) of a /proc/PID/stat line. 0 or -EINVAL. */
int bp_proc_pid_stat_ticks(const char *text, uint64_t *ticks);

/*
 * The inode of a listening socket (state 0A) on local port in /proc/net/tcp or tcp6 text.
 * 0, or -ENOENT when no line listens there.
 */
int bp_proc_net_listen_inode(const char *text, int port, uint64_t *inode);

/* "throttled=0x50005" (vcgencmd get_throttled), trailing newline allowed. 0 or -EINVAL. */
int bp_vcgencmd_throttled_parse(const char *text, uint32_t *bits);

/* Percent of the CPUs' time between two samples; NAN when there is no figure. */
struct bp_cpu_shares {
	double busy_percent;	/* user+nice+system+irq+softirq over all ticks */
	double steal_percent;
	double other_percent;	/* busy less own_s: other processes (and unowned IRQ work) */
};

/*
 * a then b; own_s: the CPU seconds this process (and its peers) used between them; hz:
 * clock ticks per second. A counter that went backwards (a wrap, a reset, a CPU that went
 * offline) or no ticks at all is no figure: every share NAN, never a negative one. Own
 * time beyond the busy ticks (the kernel's tick accounting is coarser than getrusage's)
 * leaves other at 0.
 */
void bp_cpu_shares_between(const struct bp_cpu_ticks *a, const struct bp_cpu_ticks *b,
			   double own_s, long hz, struct bp_cpu_shares *s);

#endif
