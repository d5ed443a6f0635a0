/*
 * What cpu emits (cmd_cpu.c): a signature algorithm's <algorithm>.sign and .verify in op/s,
 * a hash's or cipher's <algorithm>.<block size> in B/s, each item on one core, and with
 * -T N also per worker, on all of them and how they scaled; beside each, its CPU share.
 * The more specific patterns come first: the first match is the declaration.
 */
#include "cpu/cpu_metrics.h"

#define H BP_BETTER_HIGHER
#define N BP_BETTER_NONE
#define T BP_SCOPE_TOTAL

static const struct bp_metric_decl cpu_metrics[] = {
	{ "rsa2048.sign", "op/s", H, 1, BP_COMBINE_SUM, T, false,
	  "RSA-2048 signatures per second on one core" },
	{ "sha256.8192", "B/s", H, 2, BP_COMBINE_SUM, T, false,
	  "SHA-256 over 8 KiB blocks, bytes per second on one core" },
	{ "aes-128-gcm.8192", "B/s", H, 3, BP_COMBINE_SUM, T, false,
	  "AES-128-GCM over 8 KiB blocks, bytes per second on one core" },
	{ "*.*.scaling", "percent", H, 0, BP_COMBINE_MEAN, T, false,
	  "all cores' rate in percent of N times one core's (-T N)" },
	{ "*.*.cpu", "percent", N, 0, BP_COMBINE_MIN, T, false,
	  "least share of its core an item's worker got" },
	{ "*.sign.*", "op/s", H, 0, BP_COMBINE_SUM, T, false,
	  "signatures per second: .workerN one worker, .all every worker (-T N)" },
	{ "*.verify.*", "op/s", H, 0, BP_COMBINE_SUM, T, false,
	  "verifications per second: .workerN one worker, .all every worker (-T N)" },
	{ "*.*.*", "B/s", H, 0, BP_COMBINE_SUM, T, false,
	  "bytes per second: .workerN one worker, .all every worker (-T N)" },
	{ "*.sign", "op/s", H, 0, BP_COMBINE_SUM, T, false,
	  "<algorithm>.sign: signatures per second on one core" },
	{ "*.verify", "op/s", H, 0, BP_COMBINE_SUM, T, false,
	  "<algorithm>.verify: verifications per second on one core" },
	{ "*.*", "B/s", H, 0, BP_COMBINE_SUM, T, false,
	  "<algorithm>.<block size>: bytes hashed or ciphered per second on one core" },
};

const struct bp_kind bp_kind_cpu = {
	.name = "cpu",
	.metrics = cpu_metrics,
	.nmetrics = sizeof(cpu_metrics) / sizeof(cpu_metrics[0]),
	.repeatable = true,
};
