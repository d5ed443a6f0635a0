/*
 * Random-access latency by pointer chase. The working set is cut into slots of one cache
 * line; each slot's first word points to the next slot of a random cyclic permutation
 * over all of them, so every load depends on the one before (no overlap) and the next
 * address is unknown to the hardware prefetcher. Time per load is then the latency of
 * whichever level holds the working set: L1 for 4 KiB, DRAM (plus TLB misses, on base
 * pages) far above the last-level cache.
 */
#ifndef BP_MEM_MEM_LATENCY_H
#define BP_MEM_MEM_LATENCY_H

#include <stddef.h>
#include <stdint.h>

/* The smallest working set (one page: fits every L1) and the default largest. */
#define BP_MEM_LAT_MIN_SIZE (4ULL << 10)
#define BP_MEM_LAT_DEFAULT_MAX (64ULL << 20)
/* Working sets grow by 4x: 4K, 16K, 64K, ... 64M; 4 KiB up to 2^62 at most. */
#define BP_MEM_LAT_MAX_SIZES 32

/* splitmix64: a fast, well-mixed 64-bit generator; deterministic per seed. */
uint64_t bp_mem_rand(uint64_t *state);

/*
 * Lay a random single cycle over nslots slots of slot bytes at buf (slot >= sizeof(void *),
 * a multiple of it). Sattolo's algorithm: every permutation it makes is one cycle through
 * all slots, and each of the (n-1)! cycles is equally likely.
 */
void bp_mem_chase_build(void *buf, size_t nslots, size_t slot, uint64_t seed);

/* Follow n pointers (rounded up to a multiple of 16) from p; returns where it ended. */
void *bp_mem_chase(void *p, uint64_t n);

/*
 * The working sets for a largest size max: 4 KiB times powers of 4 up to max, then max
 * itself when it is not one of them (and is a whole number of slots). Returns the count.
 */
int bp_mem_lat_sizes(uint64_t max, size_t slot, uint64_t *sizes, int cap);

/* "4KiB", "64MiB", "1GiB", "1536MiB", "6000B": the exact size in the largest whole unit. */
void bp_mem_size_name(char *buf, size_t len, uint64_t bytes);

struct bp_mem_lat_config {
	const uint64_t *sizes;
	int nsizes;
	size_t slot;       /* bytes: the cache line */
	uint64_t time_ns;  /* timed per working set */
};

struct bp_mem_lat_figure {
	uint64_t size;
	double ns;          /* per load, median of the samples; NAN when not measured */
	uint64_t loads;     /* loads timed */
	double busy_share;  /* the chasing thread's share of its core while timed */
	int cpu;
};

/*
 * Measure each working set in turn on one pinned worker; fig has nsizes entries. Stops
 * early (the rest NAN) when asked to. 0, or a negative errno with a one-line message.
 */
int bp_mem_lat_run(const struct bp_mem_lat_config *cfg, struct bp_mem_lat_figure *fig,
		   char *err, size_t errlen);

#endif
