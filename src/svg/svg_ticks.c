#include "svg/svg_ticks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

static int refuse(int rc, char *err, size_t errlen, const char *what, double lo, double hi)
{
	snprintf(err, errlen, "axis range [%g, %g]: %s", lo, hi, what);
	return rc;
}

/* 1, 2 or 5 times a power of ten, the smallest at or above raw (raw > 0). */
static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;

	/* log10 of an exact power of ten can land a hair below it: f then reads 10 */
	if (f > 5 * (1 + 1e-12))
		return 10 * mag;
	if (f > 2 * (1 + 1e-12))
		return 5 * mag;
	if (f > 1 + 1e-12)
		return 2 * mag;
	return mag;
}

/*
 * One point, or values equal to the last few digits of a double: a span of zero has no
 * scale, so the range is widened to a tenth of the value either side (zero to [0, 1]).
 */
static void widen_equal(double *lo, double *hi)
{
	double mid = *lo / 2 + *hi / 2, pad = fabs(mid) * 0.1;

	if (*hi - *lo > fabs(mid) * 1e-9 && *hi - *lo > 0)
		return;
	if (pad == 0 || !isfinite(mid - pad) || !isfinite(mid + pad)) {
		*lo = mid == 0 ? 0 : mid - fabs(mid) * 0.1;
		*hi = mid == 0 ? 1 : mid + fabs(mid) * 0.1;
		return;
	}
	*lo = mid - pad;
	*hi = mid + pad;
}

int bp_svg_ticks_linear(double lo, double hi, int target, struct bp_svg_ticks *t,
			char *err, size_t errlen)
{
	double step, k0, k1;

	if (isnan(lo) || isnan(hi))
		return refuse(-EINVAL, err, errlen, "not a number", lo, hi);
	if (!isfinite(lo) || !isfinite(hi))
		return refuse(-ERANGE, err, errlen, "expected finite values", lo, hi);
	if (lo > hi)
		return refuse(-EINVAL, err, errlen, "expected the low end first", lo, hi);
	if (target < 2 || target > 10)
		target = 5;
	widen_equal(&lo, &hi);
	/* each end divided first: hi - lo of two huge values of opposite sign overflows */
	step = nice_step(hi / target - lo / target);
	/* the extent grows to whole steps, and the ticks must still fit the array */
	while ((k1 = ceil(hi / step)) - (k0 = floor(lo / step)) > BP_SVG_MAX_TICKS - 1)
		step = nice_step(step * 1.5);
	t->lo = k0 * step;
	t->hi = k1 * step;
	if (!isfinite(t->lo) || !isfinite(t->hi) || !isfinite(step) || step == 0)
		return refuse(-ERANGE, err, errlen, "beyond what a double holds once rounded out",
			      lo, hi);
	t->step = step;
	t->n = 0;
	for (double k = k0; k <= k1 && t->n < BP_SVG_MAX_TICKS; k++)
		t->v[t->n++] = k * step == 0 ? 0 : k * step;  /* never -0 */
	return 0;
}

/* The powers of base from base^e0 to base^e1 every stride, with 2x and 5x when asked. */
static void log_fill(struct bp_svg_ticks *t, int base, int e0, int e1, int stride, bool sub)
{
	t->n = 0;
	for (int e = e0; e <= e1 && t->n < BP_SVG_MAX_TICKS; e += stride) {
		double p = pow(base, e);

		t->v[t->n++] = p;
		if (sub && e < e1) {
			t->v[t->n++] = 2 * p;
			t->v[t->n++] = 5 * p;
		}
	}
}

int bp_svg_ticks_log(double lo, double hi, int base, struct bp_svg_ticks *t,
		     char *err, size_t errlen)
{
	double lb = log(base);
	int e0, e1, span, stride = 1;

	if (isnan(lo) || isnan(hi))
		return refuse(-EINVAL, err, errlen, "not a number", lo, hi);
	if (lo <= 0 || hi <= 0)
		return refuse(-EDOM, err, errlen, "a log scale needs values above zero", lo, hi);
	if (!isfinite(lo) || !isfinite(hi) || (base != 2 && base != 10))
		return refuse(-ERANGE, err, errlen, "expected finite values", lo, hi);
	if (lo > hi)
		return refuse(-EINVAL, err, errlen, "expected the low end first", lo, hi);
	/* the small epsilon keeps an exact power (1000) from rounding to the next one */
	e0 = (int)floor(log(lo) / lb + 1e-9);
	e1 = (int)ceil(log(hi) / lb - 1e-9);
	if (e1 == e0)
		e1++;
	/* powers of two are labelled "4 KiB", "16 KiB": every one past nine crowds the axis */
	while ((e1 - e0 + stride - 1) / stride + 1 > (base == 2 ? 9 : BP_SVG_MAX_TICKS - 1))
		stride++;
	/* whole strides from e0, so that the extent is ticked at both ends; the rounding goes
	 * up unless the top would then overflow, as it can with a range of 600 decades */
	span = (int)ceil((double)(e1 - e0) / stride) * stride;
	if (isfinite(pow(base, e0 + span)))
		e1 = e0 + span;
	else
		e0 = e1 - span;
	t->lo = pow(base, e0);
	t->hi = pow(base, e1);
	if (t->lo == 0 || !isfinite(t->hi) || !isnormal(t->lo))
		return refuse(-ERANGE, err, errlen, "beyond what a double holds once rounded out",
			      lo, hi);
	t->step = base;
	log_fill(t, base, e0, e1, stride, base == 10 && stride == 1 && e1 - e0 <= 3);
	return 0;
}

double bp_svg_percentile_coord(double p)
{
	return -log10(1 - p / 100);
}

static const double percentile_marks[] = { 0, 50, 90, 99, 99.9, 99.99, 99.999, 99.9999 };
#define NMARKS (sizeof(percentile_marks) / sizeof(percentile_marks[0]))

int bp_svg_ticks_percentile(double lo, double hi, struct bp_svg_ticks *t,
			    char *err, size_t errlen)
{
	size_t i0 = 0, i1 = NMARKS - 1;

	if (isnan(lo) || isnan(hi))
		return refuse(-EINVAL, err, errlen, "not a number", lo, hi);
	if (lo < 0 || hi > percentile_marks[NMARKS - 1] || lo > hi)
		return refuse(-EDOM, err, errlen, "expected percentiles from 0 to 99.9999", lo, hi);
	while (i0 + 1 < NMARKS && percentile_marks[i0 + 1] <= lo)
		i0++;
	while (i1 > 0 && percentile_marks[i1 - 1] >= hi)
		i1--;
	if (i1 == i0 && i1 + 1 < NMARKS)
		i1++;
	else if (i1 == i0)
		i0--;
	t->lo = percentile_marks[i0];
	t->hi = percentile_marks[i1];
	t->step = 0;
	t->n = 0;
	for (size_t i = i0; i <= i1; i++)
		t->v[t->n++] = percentile_marks[i];
	return 0;
}
