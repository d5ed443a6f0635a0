/* How a ratio and its mark read, the same in every format of compare. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_model.h"

/*
 * Two decimals up to 10 ("0.87x", "1.30x"), fewer above ("12.5x", "340x"), two significant
 * digits below 0.1 ("0.012x"): enough to tell runs apart, no more than the noise allows.
 */
char *bp_cmp_format_ratio(char *buf, double ratio)
{
	if (!isfinite(ratio))
		snprintf(buf, BP_CMP_RATIO_LEN, "n/a");
	else if (fabs(ratio) >= 99.95)
		snprintf(buf, BP_CMP_RATIO_LEN, "%.0fx", ratio);
	else if (fabs(ratio) >= 9.995)
		snprintf(buf, BP_CMP_RATIO_LEN, "%.1fx", ratio);
	else if (fabs(ratio) >= 0.0995 || ratio == 0)
		snprintf(buf, BP_CMP_RATIO_LEN, "%.2fx", ratio);
	else
		snprintf(buf, BP_CMP_RATIO_LEN, "%.2gx", ratio);
	return buf;
}

const char *bp_cmp_mark_word(enum bp_cmp_mark m)
{
	switch (m) {
	case BP_CMP_MARK_BETTER: return "better";
	case BP_CMP_MARK_WORSE: return "worse";
	case BP_CMP_MARK_SAME: return "same";
	case BP_CMP_MARK_NONE: break;
	}
	return "";
}

/*
 * A ratio that prints as 1.00x is "same": a mark the reader cannot see in the figure would
 * only report noise. Otherwise the larger value is better when higher is, and the other
 * way round; comparing the values, not the ratio, also marks 0 against 5 retransmits.
 */
enum bp_cmp_mark bp_cmp_mark_of(enum bp_better better, double base, double value, double ratio)
{
	char buf[BP_CMP_RATIO_LEN];

	if (better == BP_BETTER_NONE || !isfinite(base) || !isfinite(value))
		return BP_CMP_MARK_NONE;
	if (value == base || (isfinite(ratio) && !strcmp(bp_cmp_format_ratio(buf, ratio), "1.00x")))
		return BP_CMP_MARK_SAME;
	return (value > base) == (better == BP_BETTER_HIGHER) ? BP_CMP_MARK_BETTER :
	       BP_CMP_MARK_WORSE;
}
