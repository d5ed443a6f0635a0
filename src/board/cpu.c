#include "board/cpu.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/arm_parts.h"
#include "board/cpu_features.h"
#include "board/cpulist.h"
#include "board/jsonval.h"
#include "board/sysfs.h"

/* The MIDR fields, which old ARM kernels print once after all "processor" lines. */
struct midr {
	int64_t implementer, variant, architecture, part, revision;
};

struct parse {
	struct bp_cpu_info *cpu;
	struct bp_cpu_core *cur;
	struct midr last;
	int cap;
	int n_listed;	/* cores[0..n_listed) came from cpuinfo, the rest from sysfs */
};

static void core_init(struct bp_cpu_core *c, int cpu_no)
{
	memset(c, 0, sizeof(*c));
	c->cpu = cpu_no;
	c->online = -1;
	c->implementer = c->variant = c->architecture = BP_INT_UNKNOWN;
	c->part = c->revision = BP_INT_UNKNOWN;
}

/* An index rather than a pointer, so that readers and the parser share it const-correctly. */
static int core_index(const struct bp_cpu_info *cpu, int cpu_no)
{
	for (int i = 0; i < cpu->n_cores; i++)
		if (cpu->cores[i].cpu == cpu_no)
			return i;
	return -1;
}

static struct bp_cpu_core *core_add(struct bp_cpu_info *cpu, int *cap, int cpu_no)
{
	if (cpu->n_cores == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		struct bp_cpu_core *nc = realloc(cpu->cores, sizeof(*nc) * (size_t)ncap);

		if (!nc)
			return NULL;
		cpu->cores = nc;
		*cap = ncap;
	}
	core_init(&cpu->cores[cpu->n_cores], cpu_no);
	return &cpu->cores[cpu->n_cores++];
}

/* One MIDR field; base 0 because implementer/part/variant are printed as 0x.. */
static int64_t midr_field(const char *v)
{
	int64_t x;

	if (bp_sysfs_parse_int(v, 0, &x) < 0 || x < 0)
		return BP_INT_UNKNOWN;
	return x;
}

static void set_midr(struct parse *p, const char *key, const char *val)
{
	int64_t v = midr_field(val);
	int64_t *core_f = NULL, *last_f = NULL;

	if (strcmp(key, "CPU implementer") == 0)
		last_f = &p->last.implementer, core_f = p->cur ? &p->cur->implementer : NULL;
	else if (strcmp(key, "CPU variant") == 0)
		last_f = &p->last.variant, core_f = p->cur ? &p->cur->variant : NULL;
	else if (strcmp(key, "CPU architecture") == 0)
		last_f = &p->last.architecture, core_f = p->cur ? &p->cur->architecture : NULL;
	else if (strcmp(key, "CPU part") == 0)
		last_f = &p->last.part, core_f = p->cur ? &p->cur->part : NULL;
	else if (strcmp(key, "CPU revision") == 0)
		last_f = &p->last.revision, core_f = p->cur ? &p->cur->revision : NULL;
	if (last_f)
		*last_f = v;
	if (core_f)
		*core_f = v;
}

static int parse_line(struct parse *p, char *line)
{
	struct bp_cpu_info *cpu = p->cpu;
	char *colon = strchr(line, ':');
	char *key = line, *val;

	if (!colon)
		return 0;
	*colon = '\0';
	bp_trim(key);
	val = bp_trim(colon + 1);
	if (strcmp(key, "processor") == 0) {
		int64_t n;
		int i;

		if (bp_sysfs_parse_int(val, 10, &n) < 0 || n < 0 || n > 65535) {
			p->cur = NULL;
			return 0;
		}
		/* a repeated number (a damaged file) reuses the entry rather than adding one */
		i = core_index(cpu, (int)n);
		p->cur = i >= 0 ? &cpu->cores[i] : core_add(cpu, &p->cap, (int)n);
		return p->cur ? 0 : -ENOMEM;
	}
	if (strcmp(key, "model name") == 0 || strcmp(key, "Processor") == 0) {
		if (!cpu->model_name[0])
			bp_strlcpy(cpu->model_name, val, sizeof(cpu->model_name));
		if (p->cur && key[0] == 'm')
			bp_strlcpy(p->cur->name, val, sizeof(p->cur->name));
	} else if (strcmp(key, "vendor_id") == 0) {
		bp_strlcpy(cpu->vendor, val, sizeof(cpu->vendor));
	} else if (strcmp(key, "Hardware") == 0) {
		bp_strlcpy(cpu->hardware, val, sizeof(cpu->hardware));
	} else if (strcmp(key, "flags") == 0 || strcmp(key, "Features") == 0) {
		cpu->features |= bp_cpu_features_parse(val);
		cpu->have_flags = 1;
	} else if (strncmp(key, "CPU ", 4) == 0) {
		set_midr(p, key, val);
	}
	return 0;
}

static int parse_cpuinfo(const char *root, struct parse *p)
{
	FILE *f = bp_sysfs_fopen(root, "/proc/cpuinfo");
	char *line = NULL;	/* x86 flags lines run past 1500 bytes */
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return 0;
	while (!ret && getline(&line, &cap, f) > 0)
		ret = parse_line(p, line);
	free(line);
	fclose(f);
	return ret;
}

/* Adds cpuN directories that cpuinfo did not list (offline CPUs are missing there). */
static int add_sysfs_cpus(const char *root, struct parse *p)
{
	char **names;
	int n = bp_sysfs_list(root, "cpu", &names, "/sys/devices/system/cpu");
	int ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		int64_t no;

		if (bp_sysfs_parse_int(names[i] + 3, 10, &no) < 0 || no < 0 || no > 65535 ||
		    !isdigit((unsigned char)names[i][3]) || bp_cpu_core_find(p->cpu, (int)no))
			continue;
		if (!core_add(p->cpu, &p->cap, (int)no))
			ret = -ENOMEM;
	}
	if (n > 0)
		bp_sysfs_names_free(names, n);
	return ret;
}

static int core_cmp(const void *a, const void *b)
{
	const struct bp_cpu_core *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

const struct bp_cpu_core *bp_cpu_core_find(const struct bp_cpu_info *cpu, int cpu_no)
{
	int i = core_index(cpu, cpu_no);

	return i >= 0 ? &cpu->cores[i] : NULL;
}

/*
 * Core name from the MIDR; ARM cores otherwise keep the kernel's generic model name.
 * last fills cores that cpuinfo listed without MIDR lines (pre-3.8 ARM kernels print them
 * once for all); it is NULL for offline cores, which may be of another cluster.
 */
static void name_core(struct bp_cpu_core *c, const struct midr *last)
{
	const char *name, *impl;

	if (last && c->implementer == BP_INT_UNKNOWN && c->part == BP_INT_UNKNOWN) {
		c->implementer = last->implementer;
		c->variant = last->variant;
		c->architecture = last->architecture;
		c->part = last->part;
		c->revision = last->revision;
	}
	if (c->implementer == BP_INT_UNKNOWN || c->part == BP_INT_UNKNOWN)
		return;
	name = bp_arm_core_name((unsigned)c->implementer, (unsigned)c->part);
	impl = bp_arm_implementer_name((unsigned)c->implementer);
	if (name)
		bp_strlcpy(c->name, name, sizeof(c->name));
	else
		snprintf(c->name, sizeof(c->name), "%s part 0x%03x", impl ? impl : "ARM",
			 (unsigned)c->part);
}

static void finish(const char *root, struct parse *p)
{
	struct bp_cpu_info *cpu = p->cpu;
	int64_t impl = p->last.implementer;

	for (int i = 0; i < cpu->n_cores; i++)
		name_core(&cpu->cores[i], i < p->n_listed ? &p->last : NULL);
	if (cpu->n_cores)
		qsort(cpu->cores, (size_t)cpu->n_cores, sizeof(cpu->cores[0]), core_cmp);
	if (bp_sysfs_str(root, cpu->online, sizeof(cpu->online),
			 "/sys/devices/system/cpu/online") == 0)
		cpu->n_online = bp_cpulist_count(cpu->online);
	if (cpu->n_online < 0)
		cpu->online[0] = '\0';
	for (int i = 0; i < cpu->n_cores; i++) {
		struct bp_cpu_core *c = &cpu->cores[i];

		if (cpu->n_online >= 0)
			c->online = bp_cpulist_contains(cpu->online, c->cpu);
	}
	if (!cpu->vendor[0] && impl != BP_INT_UNKNOWN && bp_arm_implementer_name((unsigned)impl))
		bp_strlcpy(cpu->vendor, bp_arm_implementer_name((unsigned)impl),
			   sizeof(cpu->vendor));
	bp_cpu_summary(cpu->cores, cpu->n_cores, cpu->summary, sizeof(cpu->summary));
}

int bp_cpu_read(const char *root, struct bp_cpu_info *cpu)
{
	struct parse p = { .cpu = cpu };
	int ret;

	memset(cpu, 0, sizeof(*cpu));
	cpu->n_online = -1;
	p.last = (struct midr){ BP_INT_UNKNOWN, BP_INT_UNKNOWN, BP_INT_UNKNOWN,
				BP_INT_UNKNOWN, BP_INT_UNKNOWN };
	ret = parse_cpuinfo(root, &p);
	p.n_listed = cpu->n_cores;
	if (!ret)
		ret = add_sysfs_cpus(root, &p);
	if (ret) {
		bp_cpu_free(cpu);
		return ret;
	}
	finish(root, &p);
	return 0;
}

void bp_cpu_free(struct bp_cpu_info *cpu)
{
	free(cpu->cores);
	cpu->cores = NULL;
	cpu->n_cores = 0;
}
