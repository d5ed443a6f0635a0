/* The kernel's CPU list format ("0-3,6,8-11") used by cpu/online and cpufreq related_cpus. */
#ifndef BP_BOARD_CPULIST_H
#define BP_BOARD_CPULIST_H

#include <stdbool.h>

/* How many CPUs the list names; -EINVAL when it is malformed. */
int bp_cpulist_count(const char *list);

/* Whether cpu is in the list (false for a malformed list). */
bool bp_cpulist_contains(const char *list, int cpu);

#endif
