/*
 * An axis fitted to a chart's values: its ticks (svg_ticks.h) with their labels in the
 * data's unit (svg_units.h), and the map from a raw value to its place along the axis.
 */
#ifndef BP_SVG_SVG_AXIS_H
#define BP_SVG_SVG_AXIS_H

#include <stdbool.h>
#include <stddef.h>

#include "svg/svg_ticks.h"

enum bp_svg_scale {
	BP_SVG_LINEAR,
	BP_SVG_LOG,         /* base 10, or 2 for a binary unit (B, B/s) */
	BP_SVG_PERCENTILE,  /* values are percentiles in percent: p50 .. p99.99 */
};

#define BP_SVG_LABEL_MAX 40

struct bp_svg_axis {
	enum bp_svg_scale scale;
	/* ticks in the axis's own numbers: a linear axis's are divided by its prefix and its
	 * unit's factor (raw * per), so that 1-2-5 steps are nice in MiB as well as in ns */
	struct bp_svg_ticks ticks;
	double per;
	double raw[BP_SVG_MAX_TICKS];            /* each tick as a raw value */
	char labels[BP_SVG_MAX_TICKS][BP_SVG_LABEL_MAX];
};

/*
 * Fit the axis to raw values from lo to hi (a result's unit, e.g. "ns"); include_zero
 * (linear) makes the extent reach zero, as a rate's axis should. 0, or -errno with err
 * (NaN, a value the scale cannot place).
 */
int bp_svg_axis_fit(struct bp_svg_axis *a, enum bp_svg_scale scale, const char *unit,
		    double lo, double hi, bool include_zero, char *err, size_t errlen);

/* Where raw lies along the axis: 0 at its low end, 1 at its high end. */
double bp_svg_axis_frac(const struct bp_svg_axis *a, double raw);

#endif
