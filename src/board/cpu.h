/*
 * The processor as /proc/cpuinfo and /sys/devices/system/cpu describe it: model name,
 * and on ARM each core's MIDR fields decoded to a core name, so a big.LITTLE board reads
 * as "4x Cortex-A53 + 4x Cortex-A73".
 */
#ifndef BP_BOARD_CPU_H
#define BP_BOARD_CPU_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct bp_cpu_core {
	int cpu;		/* the kernel's CPU number */
	int online;		/* 1, 0, or -1 when unknown */
	/* MIDR fields as cpuinfo prints them; BP_INT_UNKNOWN on x86 or when absent */
	int64_t implementer, variant, architecture, part, revision;
	char name[96];		/* "Cortex-A7"; on x86 the model name; "" when unknown */
};

struct bp_cpu_info {
	char model_name[128];	/* x86 "model name"; ARM32 "model name"/"Processor" */
	char hardware[96];	/* ARM32 and Raspberry Pi kernels: "Hardware" */
	char vendor[48];	/* x86 vendor_id, or the ARM implementer's name */
	char online[64];	/* /sys/devices/system/cpu/online, e.g. "0-3" */
	int n_online;		/* -1 when unknown */
	unsigned features;	/* enum bp_cpu_feature bits */
	int have_flags;		/* whether cpuinfo had a flags/Features line */
	char summary[160];	/* "4x Cortex-A72" */
	int n_cores;
	struct bp_cpu_core *cores;	/* sorted by cpu number */
};

/* Fills cpu; 0 even when nothing could be read, -ENOMEM only. Free with bp_cpu_free. */
int bp_cpu_read(const char *root, struct bp_cpu_info *cpu);
void bp_cpu_free(struct bp_cpu_info *cpu);

/*
 * "4x Cortex-A53 + 4x Cortex-A73": counts per core name in order of first appearance.
 * Cores without a name are left out; "" when none has one.
 */
void bp_cpu_summary(const struct bp_cpu_core *cores, int n, char *buf, size_t len);

/* The core with this CPU number, or NULL. */
const struct bp_cpu_core *bp_cpu_core_find(const struct bp_cpu_info *cpu, int cpu_no);

/* Object with the cores array; per-core clocks are merged in by the inventory. */
json_t *bp_cpu_to_json(const struct bp_cpu_info *cpu);
json_t *bp_cpu_core_to_json(const struct bp_cpu_core *core);

#endif
