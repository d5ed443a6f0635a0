/*
 * The CPU time of one side of a test when both sides may share this process. `boardperf
 * run` runs the server of its network tests in its own process, so process-wide times
 * (getrusage RUSAGE_SELF) would give client and server the same figure, the sum of both.
 * A side is instead the threads named as the calling thread: Linux names a new thread after
 * the thread that created it, so every thread a side starts shares its name. In a process of
 * its own (`boardperf tcp`, `boardperf serve`) that is every thread; the in-process server's
 * thread takes BP_THREAD_NAME_LOCAL_SERVER before it starts anything, so its workers carry
 * that name and the client's keep the command's.
 */
#ifndef BP_CORE_SIDE_CPU_H
#define BP_CORE_SIDE_CPU_H

#include "core/cpuacct.h"

/* At most 15 characters: the kernel's limit for a thread's name. */
#define BP_THREAD_NAME_LOCAL_SERVER "bp-local-server"

/* struct bp_cpu_times.source: what bp_cpu_side_times summed (two sources are no span). */
#define BP_CPU_SOURCE_SIDE 1
#define BP_CPU_SOURCE_PROCESS 2

/*
 * User and system time of this process's threads named as the calling thread, from
 * /proc/self/task/TID/stat (the kernel's per-thread times, in clock ticks: 10 ms steps per
 * thread where USER_HZ is 100), and bp_now_ns(). Without /proc (or out of descriptors to
 * read it), the whole process's times, marked as such in t->source.
 * The side's threads must outlive the span measured: an exited thread's time leaves the sum.
 * Returns 0 or a negative errno.
 */
int bp_cpu_side_times(struct bp_cpu_times *t);

/*
 * Same from a task directory laid out as /proc/self/task (a fixture in tests), for the
 * threads named name, with ticks_per_sec clock ticks per second.
 */
int bp_cpu_side_times_at(const char *task_dir, const char *name, long ticks_per_sec,
			 struct bp_cpu_times *t);

#endif
