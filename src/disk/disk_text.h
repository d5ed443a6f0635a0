/*
 * disk's figures in sysbench fileio's layout ("File operations", "Throughput", "General
 * statistics"), so that a reader of sysbench's output finds them where they look; the
 * per-operation latency table follows as every test's does (result/text_latency.c), where
 * sysbench prints its one "Latency (ms)" block.
 */
#ifndef BP_DISK_DISK_TEXT_H
#define BP_DISK_DISK_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* r holds disk's rates (a run, or --repeat's medians). */
bool bp_disk_text_has(const struct bp_result *r);
/* The three blocks. 0 or an errno. */
int bp_disk_text_print(FILE *out, const struct bp_result *r);

#endif
