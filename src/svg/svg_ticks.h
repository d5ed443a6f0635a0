/*
 * Tick choice for chart axes, pure arithmetic (no drawing): a linear range gets "nice"
 * steps of 1, 2 or 5 times a power of ten and an extent rounded out to whole steps; a log
 * range whole powers of its base (1-2-5 within each decade when it spans few decades); a
 * percentile range the familiar p50, p90, p99, p99.9 ... on a scale that stretches the tail.
 * NaN, infinities and values a scale cannot place (zero on a log axis, 100 % on the
 * percentile axis) are refused with a one-line reason, never drawn off the chart.
 */
#ifndef BP_SVG_SVG_TICKS_H
#define BP_SVG_SVG_TICKS_H

#include <stdbool.h>
#include <stddef.h>

/* Enough for 1-2-5 over three decades (10 ticks) and the rounding of a linear extent. */
#define BP_SVG_MAX_TICKS 16

struct bp_svg_ticks {
	double lo, hi;        /* the extent to draw, which holds every tick */
	double step;          /* linear: the distance between ticks; log: the base; else 0 */
	size_t n;
	double v[BP_SVG_MAX_TICKS];
};

/*
 * About target ticks (2..10) over [lo, hi] (lo <= hi, both finite). Equal ends (one point,
 * all values the same) are widened around the value, to [0, 1] for zero. 0, or -EINVAL
 * (NaN, lo > hi) / -ERANGE (an extent beyond a double) with err.
 */
int bp_svg_ticks_linear(double lo, double hi, int target, struct bp_svg_ticks *t,
			char *err, size_t errlen);

/*
 * Powers of base (10, or 2 for binary units) over [lo, hi], 0 < lo <= hi: every power when
 * they fit, else every k-th; with base 10 and at most three decades also 2 and 5 times each.
 * 0, or -EDOM (a value at or below zero) / -EINVAL (NaN) / -ERANGE with err.
 */
int bp_svg_ticks_log(double lo, double hi, int base, struct bp_svg_ticks *t,
		     char *err, size_t errlen);

/*
 * Percentiles in percent, 0 <= lo <= hi < 100: ticks among 0, 50, 90, 99, 99.9 ... 99.9999,
 * the extent from the last at or below lo to the first at or above hi. 0, or -EDOM with err.
 */
int bp_svg_ticks_percentile(double lo, double hi, struct bp_svg_ticks *t,
			    char *err, size_t errlen);

/* The percentile axis's coordinate: -log10(1 - p/100), so that p90, p99, p99.9 are evenly
 * spaced (each a tenth of the remaining tail). */
double bp_svg_percentile_coord(double p);

#endif
