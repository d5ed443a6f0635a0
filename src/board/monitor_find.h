/*
 * What the monitor can read on this board, found once before the test: the cores with a
 * clock, the thermal zones and their passive trip points, the cpufreq policies that keep
 * time_in_state, the firmware's get_throttled, `boardperf serve` processes (a server on
 * this machine is the test's peer, not other load), and vcgencmd on the PATH.
 */
#ifndef BP_BOARD_MONITOR_FIND_H
#define BP_BOARD_MONITOR_FIND_H

#include <stdint.h>

#include "board/monitor.h"

/* Fills m's clock_cpu, zones, policy, peers, fw_sysfs from its roots and cpus. 0 or -ENOMEM. */
int bp_monitor_find(struct bp_monitor *m, const char *self_comm, int peer_port);

/* The zone's lowest passive trip point (deg C), NAN when it has none. */
double bp_thermal_passive_c(const char *root, int zone);

/* Highest scaling_max_freq of m's clock cores (kHz), BP_INT_UNKNOWN when none reads. */
int64_t bp_monitor_clock_cap(const struct bp_monitor *m);

/* The path of name in PATH (malloc'd), NULL when it is not there. */
char *bp_find_in_path(const char *name);

/* `path get_throttled`, at most 2 s. 0 and *bits, or a negative errno. */
int bp_vcgencmd_throttled(const char *path, uint32_t *bits);

#endif
