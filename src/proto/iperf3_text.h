/*
 * One side's view of a test as iperf3's text output shows it: interval lines, then the
 * totals per stream marked sender or receiver. A stock iperf3 client run with
 * --get-server-output prints this under "Server output:" (iperf3's server sends its own
 * console text there), so a boardperf server answers in the same layout.
 */
#ifndef BP_PROTO_IPERF3_TEXT_H
#define BP_PROTO_IPERF3_TEXT_H

#include <stddef.h>

#include "proto/params.h"
#include "proto/results.h"

/* "3.49 GBytes" (binary units, as iperf3 counts bytes) and "30.0 Gbits/sec" (decimal). */
char *bp_iperf3_bytes(char *buf, size_t len, double bytes);
char *bp_iperf3_rate(char *buf, size_t len, double bits_per_s);

/* The report (heap, the caller frees), or NULL when out of memory. */
char *bp_iperf3_text(const struct bp_net_params *np, const struct bp_net_results *r,
		     const char *peer);

#endif
