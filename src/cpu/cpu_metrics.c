/*
 * What cpu emits (cmd_cpu.c): a signature algorithm's <algorithm>.sign and .verify in op/s,
 * a hash's or cipher's <algorithm>.<block size> in B/s, each item on one core, and with
 * -T N also per worker, on all of them and how they scaled; beside each, its CPU share.
 * The more specific patterns come first: the first match is the declaration.
 */
#include "cpu/cpu_metrics.h"

#include "result/text_brief.h"
#include "result/text_speed.h"

static const struct bp_metric_decl cpu_metrics[] = {
	BP_METRIC("rsa2048.sign", "op/s", HIGHER, SUM, TOTAL,
	  "RSA-2048 signatures per second on one core", .headline = 1),
	BP_METRIC("sha256.8192", "B/s", HIGHER, SUM, TOTAL,
	  "SHA-256 over 8 KiB blocks, bytes per second on one core", .headline = 2),
	BP_METRIC("aes-128-gcm.8192", "B/s", HIGHER, SUM, TOTAL,
	  "AES-128-GCM over 8 KiB blocks, bytes per second on one core", .headline = 3),
	BP_METRIC("*.*.scaling", "percent", HIGHER, MEAN, TOTAL,
	  "all cores' rate in percent of N times one core's (-T N)"),
	BP_METRIC("*.*.cpu", "percent", NONE, MIN, TOTAL,
	  "least share of its core an item's worker got"),
	BP_METRIC("*.sign.*", "op/s", HIGHER, SUM, TOTAL,
	  "signatures per second: .workerN one worker, .all every worker (-T N)"),
	BP_METRIC("*.verify.*", "op/s", HIGHER, SUM, TOTAL,
	  "verifications per second: .workerN one worker, .all every worker (-T N)"),
	BP_METRIC("*.*.*", "B/s", HIGHER, SUM, TOTAL,
	  "bytes per second: .workerN one worker, .all every worker (-T N)"),
	BP_METRIC("*.sign", "op/s", HIGHER, SUM, TOTAL,
	  "<algorithm>.sign: signatures per second on one core"),
	BP_METRIC("*.verify", "op/s", HIGHER, SUM, TOTAL,
	  "<algorithm>.verify: verifications per second on one core"),
	BP_METRIC("*.*", "B/s", HIGHER, SUM, TOTAL,
	  "<algorithm>.<block size>: bytes hashed or ciphered per second on one core"),
};

/* "sha256.8192": the block size; "sha256.worker2": the worker */
static const struct bp_label_part cpu_label_parts[] = {
	{ "", "block_size", false },
	{ "worker", "worker", false },
};

/* openssl speed's table is as wide as its stock layout: with -v when wider than the terminal */
static int print_speed(FILE *out, const struct bp_result *r)
{
	return bp_text_if_fits(out, r, "openssl speed's table", bp_text_speed_print);
}

const struct bp_kind bp_kind_cpu = {
	.name = "cpu",
	BP_KIND_CATALOGUE(cpu_metrics),
	.repeatable = true,
	BP_KIND_LABEL_PARTS(cpu_label_parts),
	.charts = BP_CHARTS_CPU_ITEMS,
	.extra = { bp_text_speed_applies, print_speed },
};
