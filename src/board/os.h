/* Kernel, architecture, distribution and host name: what a result needs to be reproduced. */
#ifndef BP_BOARD_OS_H
#define BP_BOARD_OS_H

#include <jansson.h>

struct bp_cpu_info;

struct bp_os_info {
	char kernel_release[96];	/* "6.6.51+rpt-rpi-v8" */
	char kernel_version[160];	/* "#1 SMP PREEMPT Debian 1:6.6.51-1+rpt3 (2024-10-08)" */
	char arch[32];			/* uname -m: "armv7l", "aarch64", "x86_64" */
	char arch_source[16];		/* "proc", "cpuinfo", "uname" or "" */
	char distribution[128];		/* os-release PRETTY_NAME */
	char hostname[96];
};

/*
 * cpu (may be NULL) lets the architecture be derived from cpuinfo when the kernel has no
 * /proc/sys/kernel/arch (before 6.1); uname() is asked only when root is the real "/".
 */
int bp_os_read(const char *root, const struct bp_cpu_info *cpu, struct bp_os_info *os);

/* PRETTY_NAME's value from one os-release line, unquoted; -ENOENT for other lines. */
int bp_os_release_pretty(const char *line, char *out, size_t len);

json_t *bp_os_to_json(const struct bp_os_info *os);

#endif
