/*
 * The CPU caches as sysfs describes them (/sys/devices/system/cpu/cpuN/cache/indexM/).
 * The last-level cache decides how big a bandwidth buffer must be to measure DRAM rather
 * than a cache, and the line size is the slot of the latency chase. Everything is read
 * below a root directory, so fixture trees of other boards can stand in for the machine.
 */
#ifndef BP_MEM_MEM_CACHE_H
#define BP_MEM_MEM_CACHE_H

#include <stdint.h>

/* Line size assumed where sysfs does not say (older ARM kernels): every core we meet. */
#define BP_MEM_DEFAULT_LINE 64

/* Room for L1d, L1i, L2, L3 and a little more (some SoCs list an L4 or a system cache). */
#define BP_MEM_MAX_CACHES 8

struct bp_mem_cache {
	int level;          /* 1, 2, 3, ... */
	char type[16];      /* "Data", "Instruction", "Unified" */
	uint64_t size;      /* bytes */
	unsigned line_size; /* bytes; 0 when sysfs does not say */
};

struct bp_mem_caches {
	int n;
	struct bp_mem_cache c[BP_MEM_MAX_CACHES];
};

/* What the mem test needs, over all CPUs. Sizes 0 when unknown. */
struct bp_mem_cache_summary {
	uint64_t llc_size;  /* largest data/unified cache at the highest level */
	int llc_level;      /* 0 when unknown */
	unsigned line_size; /* largest data/unified line; BP_MEM_DEFAULT_LINE when unknown */
};

/* "32768K", "1M", "512" (sysfs writes K; the others are accepted). 0, -EINVAL, -ERANGE. */
int bp_mem_cache_parse_size(const char *text, uint64_t *bytes);

/*
 * The caches of one CPU, in index order; indexes that cannot be read are skipped.
 * Returns the count (0 when the CPU has no cache directory) or -ENOMEM.
 */
int bp_mem_caches_read(const char *root, int cpu, struct bp_mem_caches *out);

/* Over every cpuN directory below root. Returns 0 (unknowns in place) or -ENOMEM. */
int bp_mem_cache_summary_read(const char *root, struct bp_mem_cache_summary *s);

#endif
