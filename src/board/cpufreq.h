/*
 * Per-core clocks and governor from /sys/devices/system/cpu/cpuN/cpufreq, all in kHz as
 * the kernel gives them. A core pinned below its maximum, or a "powersave" governor,
 * explains a slow result; the CPU test warns from these values.
 */
#ifndef BP_BOARD_CPUFREQ_H
#define BP_BOARD_CPUFREQ_H

#include <stdint.h>

#include <jansson.h>

struct bp_cpufreq_core {
	int cpu;
	/* BP_INT_UNKNOWN when absent (no cpufreq driver: VMs, some boards) */
	int64_t cur_khz;		/* scaling_cur_freq, else cpuinfo_cur_freq */
	int64_t scaling_min_khz;	/* the governor's current limits */
	int64_t scaling_max_khz;
	int64_t cpuinfo_min_khz;	/* what the hardware/OPP table allows */
	int64_t cpuinfo_max_khz;
	char governor[32];		/* "ondemand", "schedutil", "performance", ... */
	char driver[32];		/* "cpufreq-dt", "intel_pstate", ... */
};

/* Fills f; -ENOENT when the CPU has no cpufreq directory (fields are then unknown). */
int bp_cpufreq_read(const char *root, int cpu, struct bp_cpufreq_core *f);

/* Just the current clock, for sampling during a test; BP_INT_UNKNOWN when unreadable. */
int64_t bp_cpufreq_cur_khz(const char *root, int cpu);

/* Flat members (cur_khz, ..., governor, driver) to merge into a core's object. */
json_t *bp_cpufreq_to_json(const struct bp_cpufreq_core *f);

#endif
