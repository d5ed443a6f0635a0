/*
 * The tester's own CPU use. A measurement tool must say when it, not the thing measured,
 * was the limit: each worker samples its thread's user+system time, and the machine's
 * busy share comes from /proc/stat.
 */
#ifndef BP_CORE_CPUACCT_H
#define BP_CORE_CPUACCT_H

#include <stdint.h>

#include <jansson.h>

/* A worker busy above this share of one core is taken as the limit (tester-cpu-bound). */
#define BP_CPU_BOUND_SHARE 0.90

struct bp_cpu_times {
	uint64_t user_ns;
	uint64_t sys_ns;
	uint64_t wall_ns; /* bp_now_ns() when sampled */
	int source;       /* what was summed (0: one thread or the process, as asked; see
			   * side_cpu.h); samples of two sources are no span */
};

/* The calling thread's CPU time (getrusage RUSAGE_THREAD). Returns 0 or -errno. */
int bp_cpu_thread_times(struct bp_cpu_times *t);
/* The whole process, all threads. */
int bp_cpu_process_times(struct bp_cpu_times *t);

struct bp_cpu_usage {
	double user_s, sys_s, wall_s;
	double busy_share; /* (user + sys) / wall: 1.0 is one core fully busy */
};

void bp_cpu_usage_between(const struct bp_cpu_times *a, const struct bp_cpu_times *b,
			  struct bp_cpu_usage *u);

/* Machine-wide jiffies from /proc/stat's "cpu" line. */
struct bp_sys_cpu {
	uint64_t busy;  /* user + nice + system + irq + softirq + steal */
	uint64_t total; /* busy + idle + iowait */
};

/* path: normally "/proc/stat" (a fixture in tests). Returns 0 or -errno / -EINVAL. */
int bp_sys_cpu_read(const char *path, struct bp_sys_cpu *s);

/* Share of all cores' time that was busy between two samples, 0..1; NAN if no time passed. */
double bp_sys_cpu_busy_share(const struct bp_sys_cpu *a, const struct bp_sys_cpu *b);

/* {"user_s", "system_s", "wall_s", "busy_share"} for a result's "cpu" section. */
json_t *bp_cpu_usage_json(const struct bp_cpu_usage *u);

/*
 * A board test's "cpu" section: {"local": the whole process since c0, with
 * "machine_busy_share" since s0 (from /proc/stat) when s0 is not NULL}. New reference, or
 * NULL when the process's times cannot be read.
 */
json_t *bp_cpu_local_since(const struct bp_cpu_times *c0, const struct bp_sys_cpu *s0);

#endif
