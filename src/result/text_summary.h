/*
 * The last thing `boardperf run` prints: one line per test it ran, with whether it measured,
 * its headline figures and the codes of its warnings, so that a long suite reads at a
 * glance (each test's full tables are above it). Which figures are a test's headline is a
 * matter of presentation and lives here: the ones its section of the manual (docs/) leads with.
 */
#ifndef BP_RESULT_TEXT_SUMMARY_H
#define BP_RESULT_TEXT_SUMMARY_H

#include <stdio.h>

#include "result/result.h"

/* The summary of r's children; nothing when it has none. 0, -ENOMEM or -EIO. */
int bp_text_summary_print(FILE *out, const struct bp_result *r);

#endif
