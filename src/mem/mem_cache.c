#include "mem/mem_cache.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "board/sysfs.h"

int bp_mem_cache_parse_size(const char *text, uint64_t *bytes)
{
	char buf[32], *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!text || bp_strlcpy(buf, text, sizeof(buf)) >= sizeof(buf))
		return -EINVAL;
	bp_trim(buf);
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (*end)
		return -EINVAL;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = (uint64_t)v << shift;
	return 0;
}

/* A literal, so that the compiler checks it against each call's arguments. */
#define INDEX_FILE "/sys/devices/system/cpu/cpu%d/cache/%s/%s"

/* One indexM directory; -ENOENT or -EINVAL when its level or size cannot be read. */
static int read_index(const char *root, int cpu, const char *index, struct bp_mem_cache *c)
{
	char size[32];
	int64_t v;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = bp_sysfs_int(root, &v, INDEX_FILE, cpu, index, "level");
	if (rc)
		return rc;
	if (v < 1 || v > 9)
		return -EINVAL;
	c->level = (int)v;
	rc = bp_sysfs_str(root, size, sizeof(size), INDEX_FILE, cpu, index, "size");
	if (!rc)
		rc = bp_mem_cache_parse_size(size, &c->size);
	if (rc)
		return rc;
	if (bp_sysfs_str(root, c->type, sizeof(c->type), INDEX_FILE, cpu, index, "type"))
		c->type[0] = '\0';
	/* Some kernels leave the line size out or write 0; the caller then assumes one. */
	if (!bp_sysfs_int(root, &v, INDEX_FILE, cpu, index, "coherency_line_size") && v > 0 &&
	    v <= 4096)
		c->line_size = (unsigned)v;
	return 0;
}

int bp_mem_caches_read(const char *root, int cpu, struct bp_mem_caches *out)
{
	char **names = NULL;
	int n;

	memset(out, 0, sizeof(*out));
	n = bp_sysfs_list(root, "index", &names, "/sys/devices/system/cpu/cpu%d/cache", cpu);
	if (n == -ENOMEM)
		return n;
	for (int i = 0; i < n && out->n < BP_MEM_MAX_CACHES; i++)
		if (!read_index(root, cpu, names[i], &out->c[out->n]))
			out->n++;
	if (n > 0)
		bp_sysfs_names_free(names, n);
	return out->n;
}

/* "cpu12" but not "cpufreq" or "cpuidle": the CPU number, or -1. */
static int cpu_number(const char *name)
{
	int64_t v;

	if (strncmp(name, "cpu", 3) || !isdigit((unsigned char)name[3]))
		return -1;
	if (bp_sysfs_parse_int(name + 3, 10, &v) || v < 0 || v > 65535)
		return -1;
	return (int)v;
}

/*
 * Instruction caches hold no data, so they neither bound a buffer nor set the slot. On a
 * big.LITTLE board each cluster has its own L2; the largest one is the one to beat.
 */
static void summarise(const struct bp_mem_caches *cs, struct bp_mem_cache_summary *s)
{
	for (int i = 0; i < cs->n; i++) {
		const struct bp_mem_cache *c = &cs->c[i];

		if (!strcmp(c->type, "Instruction"))
			continue;
		if (c->level > s->llc_level) {
			s->llc_level = c->level;
			s->llc_size = c->size;
		} else if (c->level == s->llc_level && c->size > s->llc_size) {
			s->llc_size = c->size;
		}
		if (c->line_size > s->line_size)
			s->line_size = c->line_size;
	}
}

int bp_mem_cache_summary_read(const char *root, struct bp_mem_cache_summary *s)
{
	char **names = NULL;
	int n, rc = 0;

	memset(s, 0, sizeof(*s));
	n = bp_sysfs_list(root, "cpu", &names, "/sys/devices/system/cpu");
	if (n == -ENOMEM)
		return n;
	for (int i = 0; i < n && !rc; i++) {
		struct bp_mem_caches cs;
		int cpu = cpu_number(names[i]);

		if (cpu >= 0 && bp_mem_caches_read(root, cpu, &cs) == -ENOMEM)
			rc = -ENOMEM;
		else if (cpu >= 0)
			summarise(&cs, s);
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
	if (!s->line_size)
		s->line_size = BP_MEM_DEFAULT_LINE;
	return rc;
}
