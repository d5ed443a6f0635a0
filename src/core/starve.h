/*
 * The CPU the tester did not get. A tester whose threads are kept off the CPU by other
 * load shows a *low* busy share, so tester-cpu-bound never fires for it; its figures are
 * low all the same. This measures, over the span of a test:
 *
 * - run-queue wait: the time the process's threads were runnable but not running, from
 *   the scheduler's own account (/proc/self/task/TID/schedstat, second field, ns), summed
 *   over every thread, those that exited during the span included (see
 *   bp_starve_thread_exit);
 * - the machine's steal, idle and iowait time (/proc/stat's "cpu" line): steal is time a
 *   hypervisor gave this machine's CPUs to someone else, which the tester's threads do not
 *   see as waiting;
 * - involuntary context switches of the process (getrusage ru_nivcsw), a hint only: a
 *   switch says the scheduler preferred another task, not for how long.
 *
 * bp_starve_judge holds the threshold (docs/json.md, "The tester's CPU").
 */
#ifndef BP_CORE_STARVE_H
#define BP_CORE_STARVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/proc_stat.h"

/*
 * Every time a thread is put on a CPU it may have waited a little without anyone taking
 * its CPU: the wake-up itself (an IPI, leaving idle), or a hand-over from a thread of its
 * own test that woke it and is about to sleep (rr's request and answer, a server on the
 * same machine). Measured on a 2-vCPU VM over loopback, the tester's scheduling group at
 * nice -15 against the machine's other load: 3-6 us per time on a CPU for rr, 8-13 for
 * udp at 100 Mbit/s, 16-17 for crr; under a CPU hog on every CPU 90 us (rr) to 34 ms
 * (cpu). What a thread waited beyond this allowance per time on a CPU is time another
 * task held the CPU it needed: "starved". A ping-pong test on a loaded machine can wait
 * in many pieces each within the allowance (rr at 14 us per time when other load halved
 * its rate): the raw wait stays in the figures (runqueue_wait_*) for the reader.
 */
#define BP_STARVE_WAKE_ALLOWANCE_NS 20000ULL
/*
 * The threads were starved at least this share of the time they were runnable (on a CPU or
 * waiting for one; with several threads a share of the span could pass 100 %). On a quiet machine
 * the figure stays under 1-5 %; a tenth of the test is time the figures lost to other work.
 */
#define BP_STARVE_PERCENT 10.0
/* ... and at least this long, so that a few late wake-ups in a very short test do not count. */
#define BP_STARVE_MIN_NS (20ULL * 1000000ULL)
/* The hypervisor took at least this share of the machine's CPU time (steal). */
#define BP_STARVE_STEAL_PERCENT 5.0
/*
 * Late wake-ups: an event loop that slept until a deadline and woke later than it. Neither
 * the run-queue wait nor steal sees every such loss: a guest the host paused without
 * counting steal, a softirq pass held up, a timer that fired late. A loop's timed wake
 * comes 50-100 us late on a quiet machine (timer slack, leaving idle) and up to 1 ms where
 * the wait is rounded to milliseconds (no epoll_pwait2): beyond this allowance each wake
 * counts. A paced sender loses what it was not woken for at the end of its test (tcp -b
 * 10M read 97.9 % of the rate in CI, run-queue wait under the threshold).
 */
#define BP_STARVE_LATE_ALLOWANCE_NS (5ULL * 1000000ULL)
/* Late beyond the allowance, summed, for at least this share of the span (and
 * BP_STARVE_MIN_NS): a figure over the span may read that much low. */
#define BP_STARVE_LATE_PERCENT 1.0

/* One line of schedstat: on-CPU time, run-queue wait (both ns) and timeslices run. */
struct bp_schedstat {
	uint64_t run_ns, wait_ns, slices;
};

/* "RUN WAIT SLICES\n". Returns 0 or -EINVAL for anything else. */
int bp_schedstat_parse(const char *text, struct bp_schedstat *s);

/*
 * Sum the schedstat of every task under taskdir (normally "/proc/self/task"; a fixture
 * tree in tests) into *sum; *ntasks counts them. skip (n entries, may be NULL) lists
 * TIDs left out. Returns 0, or -errno when taskdir cannot be read, -EINVAL when no task's
 * schedstat could be parsed.
 */
int bp_schedstat_sum_tasks(const char *taskdir, const int *skip, size_t nskip,
			   struct bp_schedstat *sum, int *ntasks);

/*
 * A thread of this process that is about to exit calls this last: it adds the thread's
 * own totals to the process's account, which would otherwise lose them with its
 * /proc/self/task entry. Cheap (one small file read); safe from any thread.
 */
void bp_starve_thread_exit(void);

/*
 * An event loop (io/loop.c) that asked to wake at a deadline and woke late_ns after it.
 * Lock-free, any thread; only the part beyond BP_STARVE_LATE_ALLOWANCE_NS is counted.
 */
void bp_starve_note_late(uint64_t late_ns);

/* The process's account and the machine's counters at one moment. */
struct bp_starve_snap {
	uint64_t wall_ns;
	struct bp_schedstat sched;  /* every thread, live and exited */
	bool sched_ok;
	struct bp_cpu_ticks sys;
	bool sys_ok;
	long nivcsw;
	bool nivcsw_ok;
	uint64_t late_ns, late_wakes;  /* bp_starve_note_late's sums so far */
};

/* Take a snapshot from /proc/self/task, /proc/stat and getrusage. Never fails: what
 * cannot be read is marked unknown. */
void bp_starve_snap_take(struct bp_starve_snap *s);

/* What happened between two snapshots. Percentages are NAN when unknown. */
struct bp_starve_figures {
	double span_s;
	double wait_s;          /* run-queue wait, summed over threads */
	double wait_percent;    /* wait_s over the threads' runnable time (run + wait), x100 */
	double slices;          /* times a thread was put on a CPU */
	double starved_s;       /* wait_s less BP_STARVE_WAKE_ALLOWANCE_NS per slice, >= 0 */
	double starved_percent; /* starved_s over the same runnable time, x100 */
	double steal_percent;   /* of all CPUs' time in the span */
	double idle_percent;
	double iowait_percent;
	long nivcsw;            /* -1 when unknown */
	double late_s;          /* timed wake-ups past the allowance: the time beyond it */
	double late_wakes;      /* how many such wake-ups */
};

void bp_starve_between(const struct bp_starve_snap *a, const struct bp_starve_snap *b,
		       struct bp_starve_figures *f);

/* From s0 to now: bp_starve_snap_take and bp_starve_between in one call. */
void bp_starve_since(const struct bp_starve_snap *s0, struct bp_starve_figures *f);

/*
 * The threshold: true when the threads were starved (starved_percent) for at least
 * BP_STARVE_PERCENT of their runnable time and BP_STARVE_MIN_NS, or steal was at least
 * BP_STARVE_STEAL_PERCENT, or the loops woke late (late_s) for BP_STARVE_LATE_PERCENT of
 * the span and BP_STARVE_MIN_NS. Then msg holds the warning's sentence ("the tester's threads
 * waited 412 ms for a CPU (41 % of the time they were ready to run, in a 1.00 s test;
 * 380 ms beyond what 640 wake-ups cost): other load took it; ..."); msg may be NULL when msglen is 0. Unknown figures
 * never make a tester starved.
 */
bool bp_starve_judge(const struct bp_starve_figures *f, char *msg, size_t msglen);

/*
 * The figures as the keys of a result's cpu.local: runqueue_wait_s,
 * runqueue_wait_percent, timeslices_count, starved_percent, involuntary_switches_count,
 * machine_steal_percent, machine_idle_percent, machine_iowait_percent (null when
 * unknown), late_wakeups_count, late_wakeups_s. Added to obj.
 */
void bp_starve_json_into(json_t *obj, const struct bp_starve_figures *f);

#endif
