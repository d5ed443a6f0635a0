/*
 * A test's verdict (RFC 9411's pass or fail against a threshold the user gave: crr and http
 * --max-failure-ratio, rfc2544 --min-percent): the metric "pass" (1 or 0) in its result and,
 * on a FAIL, the warning threshold-exceeded saying why. The text's last line (render_text.c)
 * and the exit status 3 (cli/dispatch.c) read it back; JSON, CSV and the store have the
 * metric like any other. A kind that gives verdicts declares "pass" in its catalogue.
 */
#ifndef BP_RESULT_RESULT_VERDICT_H
#define BP_RESULT_RESULT_VERDICT_H

#include <stdbool.h>

#include "result/result.h"

/* The verdict into r; why_fmt (printf) says what failed, after "FAIL: ". 0 or -ENOMEM. */
int bp_result_set_verdict(struct bp_result *r, bool pass, const char *why_fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* r's own verdict: 1 PASS, 0 FAIL, -1 none (a test run without a threshold). */
int bp_result_verdict(const struct bp_result *r);

#endif
