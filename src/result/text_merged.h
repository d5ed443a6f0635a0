/*
 * A merged result's testers in the text (`boardperf merge`; docs/json.md, "One result of
 * several testers"): one row each, with its share, its start against the earliest tester's
 * and its own headline figures, then a line for each tester that gave no result.
 */
#ifndef BP_RESULT_TEXT_MERGED_H
#define BP_RESULT_TEXT_MERGED_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

bool bp_text_merged_has(const struct bp_result *r);
int bp_text_merged_print(FILE *out, const struct bp_result *r);

#endif
