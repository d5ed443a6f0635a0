/*
 * The monitor: what the board did while a test ran. One thread of its own samples, once per
 * the test's interval (-i, 1 s when the test has none), the CPU clocks (cpufreq
 * scaling_cur_freq per core), the thermal zones, the Raspberry Pi firmware's throttle bits
 * (sysfs get_throttled), cpufreq's time_in_state and /proc/stat's counters of the CPUs this
 * process may run on, with this process's own CPU time beside them. It sleeps on an
 * absolute schedule between samples, so it wakes a board once per interval and no more.
 *
 * The first sample is taken by bp_monitor_new, before the test starts; the last by
 * bp_monitor_stop, after it ended. board/monitor_result.c turns the samples into the
 * result's figures and warnings (docs/json.md, "The monitor").
 */
#ifndef BP_BOARD_MONITOR_H
#define BP_BOARD_MONITOR_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "board/kmsg.h"
#include "board/monitor_proc.h"

/* Above this temperature a zone without a passive trip point of its own is hot (deg C). */
#define BP_MONITOR_HOT_C 80.0
/* The fastest core's clock fell more than this share below its clock at the start. */
#define BP_MONITOR_CLOCK_DROP_PERCENT 10.0
/* Other processes took more than this share of the CPUs (--busy-warn's default). */
#define BP_MONITOR_BUSY_PERCENT 20.0
/* Time between samples when the test has no interval of its own (-i 0, cpu, mem). */
#define BP_MONITOR_DEFAULT_PERIOD_NS 1000000000ULL
/* No more samples than this per second, whatever -i says. */
#define BP_MONITOR_MIN_PERIOD_NS 100000000ULL

struct bp_monitor_cfg {
	const char *sys_root;	/* "/" or a fixture tree: cpufreq, thermal, firmware */
	const char *proc_root;	/* "/" or a fixture: /proc/stat, /proc/PID/comm and stat */
	const cpu_set_t *cpus;	/* CPUs whose counters and clocks count; NULL: this
				 * process's affinity */
	uint64_t period_ns;	/* between samples; 0: BP_MONITOR_DEFAULT_PERIOD_NS */
	bool vcgencmd;		/* ask `vcgencmd get_throttled` (PATH) at the start and end
				 * when sysfs has no get_throttled */
	const char *self_comm;	/* this program's name ("boardperf") */
	int peer_port;		/* a `serve` of that name listening here on this TCP port
				 * is the test's peer (its CPU is not other load); 0: none */
};

struct bp_monitor_zone {
	int zone;		/* N of thermal_zoneN */
	char type[48];
	double limit_c;		/* the zone's passive trip point, else BP_MONITOR_HOT_C */
	bool limit_is_trip;
};

struct bp_monitor_sample {
	uint64_t t_ns;		/* since the first sample */
	struct bp_cpu_ticks ticks;
	bool ticks_ok;
	double own_s;		/* CPU seconds of this process and the peers so far */
	bool fw_ok;
	uint32_t fw_bits;
	bool tis_ok;		/* time_in_state of every policy, summed */
	int64_t tis_below_ms, tis_total_ms;
	/* clocks in bp_monitor.khz[i * nclocks ...], temperatures in .temp_c[i * nzones ...] */
};

struct bp_monitor_peer {
	pid_t pid;
	uint64_t ticks;		/* last read; a peer that ended keeps its last figure */
};

struct bp_monitor {
	char *sys_root, *proc_root;
	uint64_t period_ns, t0_ns;
	long hz;
	cpu_set_t cpus;		/* whose /proc/stat lines are summed */
	int ncpus;
	int nclocks;		/* cores with a readable clock, and their numbers */
	int *clock_cpu;
	int64_t cap_start_khz, cap_end_khz;	/* highest scaling_max_freq of those cores */
	int nzones;
	struct bp_monitor_zone *zones;
	int npolicies;		/* cpufreq policies with time_in_state */
	char (*policy)[16];
	int64_t *policy_max_khz;
	int npeers;
	struct bp_monitor_peer *peers;
	bool fw_sysfs;		/* get_throttled readable at the start */
	bool vc_start_ok, vc_end_ok;	/* vcgencmd's bits at the start and end */
	uint32_t vc_start, vc_end;
	char *vcgencmd;		/* its path, NULL when not asked or not found */
	struct bp_kmsg *kmsg;	/* the kernel's log read at each sample (board/kmsg.h); NULL: not read */

	size_t n, cap;
	struct bp_monitor_sample *samples;
	int64_t *khz;
	double *temp_c;

	pthread_t thread;
	bool running, stop, stopped;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* Finds what there is to read and takes the first sample. NULL when out of memory. */
struct bp_monitor *bp_monitor_new(const struct bp_monitor_cfg *cfg);

/* One more sample now (the thread's, and unit tests' without a thread). 0 or -ENOMEM. */
int bp_monitor_sample(struct bp_monitor *m);

/* The sampling thread. 0 or a negative errno (then only the first and last samples). */
int bp_monitor_start(struct bp_monitor *m);

/* Stops and joins the thread (if any), takes the last sample and asks vcgencmd again. */
void bp_monitor_stop(struct bp_monitor *m);

void bp_monitor_free(struct bp_monitor *m);

/* A sample's clocks (nclocks, BP_INT_UNKNOWN where unreadable) and temperatures (nzones). */
const int64_t *bp_monitor_sample_khz(const struct bp_monitor *m, size_t i);
const double *bp_monitor_sample_temp(const struct bp_monitor *m, size_t i);

#endif
