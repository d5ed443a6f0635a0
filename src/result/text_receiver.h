/*
 * UDP's receiver, interval by interval, after the live lines: iperf3's receiver columns
 * (bitrate, jitter, lost/total). The live lines are the sender's; a server (boardperf serve,
 * stock iperf3) sends its per-interval figures only at the end of the test, so they print
 * once it has ended, with a line that says so (docs/results.md, "Text output").
 */
#ifndef BP_RESULT_TEXT_RECEIVER_H
#define BP_RESULT_TEXT_RECEIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* A udp client that sent one way (not -R, not --bidir) and has the receiver's intervals. */
bool bp_text_receiver_has(const struct bp_result *r);
int bp_text_receiver_print(FILE *out, const struct bp_result *r);

#endif
