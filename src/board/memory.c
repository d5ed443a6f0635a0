#include "board/memory.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "board/jsonval.h"
#include "board/sysfs.h"

/* "MemTotal:  2052264 kB" -> bytes; meminfo's "kB" is KiB. */
static int64_t meminfo_bytes(const char *val)
{
	char num[32];
	size_t n = strspn(val, " \t0123456789");
	const char *unit = val + n;
	int64_t v;

	if (n == 0 || n >= sizeof(num))
		return BP_INT_UNKNOWN;
	memcpy(num, val, n);
	num[n] = '\0';
	if (bp_sysfs_parse_int(num, 10, &v) < 0 || v < 0 || v > INT64_MAX / 1024)
		return BP_INT_UNKNOWN;
	unit += strspn(unit, " \t");
	if (strncmp(unit, "kB", 2) == 0)
		return v * 1024;
	return *unit == '\0' || *unit == '\n' ? v : BP_INT_UNKNOWN;
}

static void read_meminfo(const char *root, struct bp_memory_info *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal", offsetof(struct bp_memory_info, total_bytes) },
		{ "MemAvailable", offsetof(struct bp_memory_info, available_bytes) },
		{ "SwapTotal", offsetof(struct bp_memory_info, swap_total_bytes) },
		{ "SwapFree", offsetof(struct bp_memory_info, swap_free_bytes) },
	};
	FILE *f = bp_sysfs_fopen(root, "/proc/meminfo");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(line, keys[i].key) == 0)
				*(int64_t *)((char *)m + keys[i].off) = meminfo_bytes(colon + 1);
	}
	fclose(f);
}

int bp_zram_selected_algorithm(const char *list, char *out, size_t len)
{
	const char *open = strchr(list, '['), *close;

	out[0] = '\0';
	if (!open || !(close = strchr(open, ']')) || close == open + 1)
		return -ENOENT;
	if ((size_t)(close - open - 1) >= len)
		return -ENAMETOOLONG;
	memcpy(out, open + 1, (size_t)(close - open - 1));
	out[close - open - 1] = '\0';
	return 0;
}

static void read_zram(const char *root, struct bp_memory_info *m)
{
	char **names, list[256];
	int n = bp_sysfs_list(root, "zram", &names, "/sys/block");

	for (int i = 0; i < n && m->n_zram < BP_MEMORY_MAX_ZRAM; i++) {
		struct bp_zram_info *z = &m->zram[m->n_zram++];

		bp_strlcpy(z->name, names[i], sizeof(z->name));
		bp_sysfs_int(root, &z->disksize_bytes, "/sys/block/%s/disksize", names[i]);
		if (z->disksize_bytes < 0)
			z->disksize_bytes = BP_INT_UNKNOWN;
		if (bp_sysfs_str(root, list, sizeof(list), "/sys/block/%s/comp_algorithm",
				 names[i]) == 0)
			bp_zram_selected_algorithm(list, z->algorithm, sizeof(z->algorithm));
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
}

int bp_memory_read(const char *root, struct bp_memory_info *m)
{
	memset(m, 0, sizeof(*m));
	m->total_bytes = m->available_bytes = BP_INT_UNKNOWN;
	m->swap_total_bytes = m->swap_free_bytes = BP_INT_UNKNOWN;
	read_meminfo(root, m);
	read_zram(root, m);
	return 0;
}

json_t *bp_memory_to_json(const struct bp_memory_info *m)
{
	json_t *o = json_object(), *zram = json_array();

	bp_json_put(o, "total_bytes", bp_json_int_or_null(m->total_bytes));
	bp_json_put(o, "available_bytes", bp_json_int_or_null(m->available_bytes));
	bp_json_put(o, "swap_total_bytes", bp_json_int_or_null(m->swap_total_bytes));
	bp_json_put(o, "swap_free_bytes", bp_json_int_or_null(m->swap_free_bytes));
	for (int i = 0; i < m->n_zram; i++) {
		json_t *z = json_object();

		bp_json_put(z, "name", json_string(m->zram[i].name));
		bp_json_put(z, "disksize_bytes", bp_json_int_or_null(m->zram[i].disksize_bytes));
		bp_json_put(z, "algorithm", bp_json_str_or_null(m->zram[i].algorithm));
		json_array_append_new(zram, z);
	}
	bp_json_put(o, "zram", zram);
	return o;
}
