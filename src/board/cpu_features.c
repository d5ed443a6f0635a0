#include "board/cpu_features.h"

#include <string.h>

static const struct {
	const char *flag;	/* as cpuinfo spells it */
	const char *name;	/* as we report it */
	unsigned bit;
} features[] = {
	{ "aes", "aes", BP_CPU_AES },
	{ "pmull", "pmull", BP_CPU_PMULL },
	{ "pclmulqdq", "pclmul", BP_CPU_PCLMUL },
	{ "sha1", "sha1", BP_CPU_SHA1 },
	{ "sha2", "sha2", BP_CPU_SHA2 },
	{ "sha512", "sha512", BP_CPU_SHA512 },
	{ "sha3", "sha3", BP_CPU_SHA3 },
	{ "sha_ni", "sha_ni", BP_CPU_SHA_NI },
	{ "crc32", "crc32", BP_CPU_CRC32 },
	{ "neon", "neon", BP_CPU_NEON },
	{ "asimd", "neon", BP_CPU_NEON },
	{ "sve", "sve", BP_CPU_SVE },
	{ "sse4_2", "sse4_2", BP_CPU_SSE4_2 },
	{ "avx", "avx", BP_CPU_AVX },
	{ "avx2", "avx2", BP_CPU_AVX2 },
	{ "avx512f", "avx512f", BP_CPU_AVX512F },
	{ "vaes", "vaes", BP_CPU_VAES },
};

#define N_FEATURES (sizeof(features) / sizeof(features[0]))

unsigned bp_cpu_features_parse(const char *flags)
{
	unsigned bits = 0;
	const char *s = flags;

	while (s && *s) {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, " \t\n");
		for (size_t i = 0; n && i < N_FEATURES; i++)
			if (strlen(features[i].flag) == n && strncmp(s, features[i].flag, n) == 0)
				bits |= features[i].bit;
		s += n;
	}
	return bits;
}

json_t *bp_cpu_features_to_json(unsigned bits)
{
	json_t *a = json_array();

	for (unsigned bit = 1; bit && bit <= BP_CPU_VAES; bit <<= 1) {
		if (!(bits & bit))
			continue;
		for (size_t i = 0; i < N_FEATURES; i++) {
			if (features[i].bit == bit) {
				json_array_append_new(a, json_string(features[i].name));
				break;
			}
		}
	}
	return a;
}
