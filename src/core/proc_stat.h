/*
 * /proc/stat's CPU lines ("cpu  user nice system idle iowait irq softirq steal ...", and
 * "cpuN ..." per CPU), the one parser of them: the starvation check (core/starve.c) reads the
 * machine's "cpu " line, the monitor (board/monitor.c) sums the lines of the CPUs this
 * process may run on.
 */
#ifndef BP_CORE_PROC_STAT_H
#define BP_CORE_PROC_STAT_H

#include <sched.h>
#include <stdint.h>

/* Sums of /proc/stat's per-CPU counters, in clock ticks (USER_HZ). */
struct bp_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	int ncpus;	/* lines summed: a CPU that went offline changes it (no figure) */
};

/*
 * Sum the "cpuN" lines of /proc/stat text for every N in want (NULL: the "cpu " line of
 * all CPUs, ncpus then 0). A line needs user..idle; later fields missing read as 0 (old
 * kernels). Returns 0, -EINVAL for a malformed wanted line or when none was found.
 */
int bp_proc_stat_cpus_parse(const char *text, const cpu_set_t *want, struct bp_cpu_ticks *t);

#endif
