#include "result/result_verdict.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#define VERDICT_METRIC "pass"

int bp_result_set_verdict(struct bp_result *r, bool pass, const char *why_fmt, ...)
{
	char why[512];
	va_list ap;

	if (bp_result_add_metric(r, VERDICT_METRIC, pass ? 1 : 0, "count", BP_BETTER_HIGHER))
		return -ENOMEM;
	if (pass)
		return 0;
	va_start(ap, why_fmt);
	vsnprintf(why, sizeof(why), why_fmt, ap);
	va_end(ap);
	return bp_result_add_warning(r, "threshold-exceeded", "FAIL: %s", why) ? -ENOMEM : 0;
}

int bp_result_verdict(const struct bp_result *r)
{
	const struct bp_metric *m = bp_result_find_metric(r, VERDICT_METRIC);

	return m ? m->value != 0 : -1;
}
