/* What `boardperf cpu` runs: algorithms, block sizes and thread count from its options. */
#ifndef BP_CPU_CPU_SELECT_H
#define BP_CPU_CPU_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "cpu/crypto_algos.h"

#define BP_CPU_MAX_SIZES 16

struct bp_cpu_selection {
	const struct bp_crypto_algo *algos[32];
	size_t nalgos;
	size_t sizes[BP_CPU_MAX_SIZES];
	size_t nsizes;
	int threads;
};

/*
 * algo_list: "rsa2048,sha256" or NULL (the default set, or every algorithm with full);
 * size_list: "16,8K" or NULL (16, 64, 256, 1024, 8192, 16384); threads: "N" or "all"
 * (ncpus). Returns 0 or -EINVAL with a one-line message naming the flag and the value.
 */
int bp_cpu_select(struct bp_cpu_selection *sel, const char *algo_list, bool full,
		  const char *size_list, const char *threads, int ncpus,
		  char *err, size_t errlen);

#endif
