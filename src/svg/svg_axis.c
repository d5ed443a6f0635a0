#include "svg/svg_axis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg/svg_units.h"

static int fit_linear(struct bp_svg_axis *a, const char *unit, double lo, double hi,
		      bool include_zero, char *err, size_t errlen)
{
	struct bp_svg_unit u;
	const char *prefix;
	double f;
	int rc, decimals;

	if (include_zero) {
		lo = lo > 0 ? 0 : lo;
		hi = hi < 0 ? 0 : hi;
	}
	bp_svg_unit_of(unit, &u);
	f = bp_svg_prefix(&u, fmax(fabs(lo), fabs(hi)) * u.to_base, &prefix);
	a->per = u.to_base / f;
	rc = bp_svg_ticks_linear(lo * a->per, hi * a->per, 5, &a->ticks, err, errlen);
	if (rc)
		return rc;
	decimals = a->ticks.step >= 1 ? 0 : (int)ceil(-log10(a->ticks.step) - 1e-9);
	for (size_t i = 0; i < a->ticks.n; i++) {
		a->raw[i] = a->ticks.v[i] / a->per;
		bp_svg_format_scaled(a->labels[i], BP_SVG_LABEL_MAX, &u, a->ticks.v[i], decimals,
				     prefix);
	}
	return 0;
}

int bp_svg_axis_fit(struct bp_svg_axis *a, enum bp_svg_scale scale, const char *unit,
		    double lo, double hi, bool include_zero, char *err, size_t errlen)
{
	struct bp_svg_unit u;
	int rc;

	memset(a, 0, sizeof(*a));
	a->scale = scale;
	a->per = 1;
	if (scale == BP_SVG_LINEAR)
		return fit_linear(a, unit, lo, hi, include_zero, err, errlen);
	bp_svg_unit_of(unit, &u);
	if (scale == BP_SVG_LOG)
		rc = bp_svg_ticks_log(lo, hi, u.binary ? 2 : 10, &a->ticks, err, errlen);
	else
		rc = bp_svg_ticks_percentile(lo, hi, &a->ticks, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < a->ticks.n; i++) {
		a->raw[i] = a->ticks.v[i];
		if (scale == BP_SVG_LOG)
			bp_svg_format_value(a->labels[i], BP_SVG_LABEL_MAX, unit, a->ticks.v[i]);
		else
			snprintf(a->labels[i], BP_SVG_LABEL_MAX, "p%g", a->ticks.v[i]);
	}
	return 0;
}

double bp_svg_axis_frac(const struct bp_svg_axis *a, double raw)
{
	const struct bp_svg_ticks *t = &a->ticks;

	switch (a->scale) {
	case BP_SVG_LOG:
		return (log(raw) - log(t->lo)) / (log(t->hi) - log(t->lo));
	case BP_SVG_PERCENTILE:
		return (bp_svg_percentile_coord(raw) - bp_svg_percentile_coord(t->lo)) /
		       (bp_svg_percentile_coord(t->hi) - bp_svg_percentile_coord(t->lo));
	case BP_SVG_LINEAR:
	default:
		return (raw * a->per - t->lo) / (t->hi - t->lo);
	}
}
