#include "cpu/cpu_select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "core/workers.h"

/* The block sizes `openssl speed` uses, so figures line up with its table. */
static const size_t default_sizes[] = { 16, 64, 256, 1024, 8192, 16384 };

/* Largest block: 16 MiB keeps the buffers small on a 512 MiB board. */
#define MAX_BLOCK (16u << 20)

static int select_algos(struct bp_cpu_selection *sel, const char *list, bool full,
			char *err, size_t errlen)
{
	char *copy, *save = NULL, names[512];
	int rc = 0;

	sel->nalgos = 0;
	if (!list) {
		for (size_t i = 0; i < bp_crypto_nalgos; i++)
			if (full || bp_crypto_algos[i].in_default)
				sel->algos[sel->nalgos++] = &bp_crypto_algos[i];
		return 0;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		const struct bp_crypto_algo *a = bp_crypto_algo_find(t);

		if (!a) {
			bp_crypto_algo_names(names, sizeof(names));
			snprintf(err, errlen, "--algo '%s': unknown algorithm; expected a "
				 "comma-separated list of: %s", t, names);
			rc = -EINVAL;
		} else if (sel->nalgos < sizeof(sel->algos) / sizeof(sel->algos[0])) {
			sel->algos[sel->nalgos++] = a;
		}
	}
	free(copy);
	if (!rc && !sel->nalgos) {
		snprintf(err, errlen, "--algo '%s': expected a comma-separated list of algorithms",
			 list);
		rc = -EINVAL;
	}
	return rc;
}

static int select_sizes(struct bp_cpu_selection *sel, const char *list, char *err, size_t errlen)
{
	char *copy, *save = NULL;
	int rc = 0;

	sel->nsizes = 0;
	if (!list) {
		memcpy(sel->sizes, default_sizes, sizeof(default_sizes));
		sel->nsizes = sizeof(default_sizes) / sizeof(default_sizes[0]);
		return 0;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (bp_parse_size(t, &v) || v < 1 || v > MAX_BLOCK) {
			snprintf(err, errlen, "--sizes '%s': expected block sizes from 1 to 16M, "
				 "comma-separated, such as 16,1K,8192", t);
			rc = -EINVAL;
		} else if (sel->nsizes == BP_CPU_MAX_SIZES) {
			snprintf(err, errlen, "--sizes '%s': at most %d sizes", list,
				 BP_CPU_MAX_SIZES);
			rc = -EINVAL;
		} else {
			sel->sizes[sel->nsizes++] = (size_t)v;
		}
	}
	free(copy);
	if (!rc && !sel->nsizes) {
		snprintf(err, errlen, "--sizes '%s': expected block sizes such as 16,1K,8192", list);
		rc = -EINVAL;
	}
	return rc;
}

int bp_cpu_select(struct bp_cpu_selection *sel, const char *algo_list, bool full,
		  const char *size_list, const char *threads, int ncpus,
		  char *err, size_t errlen)
{
	int rc = select_algos(sel, algo_list, full, err, errlen);

	if (!rc)
		rc = select_sizes(sel, size_list, err, errlen);
	if (!rc)
		rc = bp_workers_parse_count("--threads", threads, ncpus, &sel->threads, err, errlen);
	return rc;
}
