/*
 * The CPU features that decide crypto and SIMD speed, picked out of the cpuinfo
 * "Features" (ARM) or "flags" (x86) line. They explain most of the spread in `boardperf
 * cpu` results between boards: a Cortex-A53 with the ARMv8 crypto extensions runs
 * AES-GCM several times faster than a Cortex-A72 without them (BCM2711).
 */
#ifndef BP_BOARD_CPU_FEATURES_H
#define BP_BOARD_CPU_FEATURES_H

#include <jansson.h>

enum bp_cpu_feature {
	BP_CPU_AES = 1u << 0,		/* ARMv8 CE "aes", x86 AES-NI "aes" */
	BP_CPU_PMULL = 1u << 1,		/* ARM polynomial multiply (GCM) */
	BP_CPU_PCLMUL = 1u << 2,	/* x86 carry-less multiply (GCM) */
	BP_CPU_SHA1 = 1u << 3,
	BP_CPU_SHA2 = 1u << 4,
	BP_CPU_SHA512 = 1u << 5,
	BP_CPU_SHA3 = 1u << 6,
	BP_CPU_SHA_NI = 1u << 7,	/* x86 SHA-1/SHA-256 */
	BP_CPU_CRC32 = 1u << 8,
	BP_CPU_NEON = 1u << 9,		/* "neon" on arm32, "asimd" on arm64 */
	BP_CPU_SVE = 1u << 10,
	BP_CPU_SSE4_2 = 1u << 11,
	BP_CPU_AVX = 1u << 12,
	BP_CPU_AVX2 = 1u << 13,
	BP_CPU_AVX512F = 1u << 14,
	BP_CPU_VAES = 1u << 15,
};

/* Bits for the flags named in a space-separated cpuinfo flags line. */
unsigned bp_cpu_features_parse(const char *flags);

/* JSON array of the names of the set bits, in enum order. */
json_t *bp_cpu_features_to_json(unsigned features);

#endif
