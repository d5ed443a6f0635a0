/*
 * A `cpu` result in the units of `openssl speed`, so that a figure can be laid beside an
 * openssl speed table (a forum post, a board review): hashes and ciphers in 1000s of bytes
 * per second, one column per block size ("48000.00k"), signatures as seconds per operation
 * and sign/s, verify/s. Same figures as the metrics table, only other units; with several
 * workers a second pair of tables gives their sum, as `openssl speed -multi N` prints it.
 */
#ifndef BP_RESULT_TEXT_SPEED_H
#define BP_RESULT_TEXT_SPEED_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* r is a cpu result with at least one figure these tables show. */
bool bp_text_speed_applies(const struct bp_result *r);

/* 0, -ENOMEM or -EIO. */
int bp_text_speed_print(FILE *out, const struct bp_result *r);

#endif
