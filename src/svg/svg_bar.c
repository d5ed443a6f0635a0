#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "svg/svg_chart.h"
#include "svg/svg_frame.h"
#include "svg/svg_units.h"

/* The range of the bars (and zero, where every bar starts); -EINVAL when none is drawn. */
static int bar_range(const struct bp_svg_bar_chart *c, double *r, char *err, size_t errlen)
{
	size_t drawn = 0;

	r[0] = r[1] = 0;
	for (size_t i = 0; i < c->nseries * c->ncategories; i++) {
		double v = c->values[i];

		if (isnan(v))
			continue;
		if (!isfinite(v)) {
			snprintf(err, errlen, "chart '%s': bar %zu is infinite", c->id, i + 1);
			return -ERANGE;
		}
		r[0] = fmin(r[0], v);
		r[1] = fmax(r[1], v);
		drawn++;
	}
	if (!drawn) {
		snprintf(err, errlen, "chart '%s': no bar to draw", c->id);
		return -EINVAL;
	}
	return 0;
}

static void draw_bar(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_bar_chart *c,
		     const struct bp_svg_axis *ya, size_t s, size_t k)
{
	double band = (f->x1 - f->x0) / (double)c->ncategories;
	double w = band * 0.8 / (double)c->nseries;
	double v = c->values[s * c->ncategories + k];
	double y = bp_svg_px(bp_svg_axis_frac(ya, v), f->y1, f->y0);
	double y0 = bp_svg_px(bp_svg_axis_frac(ya, 0), f->y1, f->y0);
	char label[BP_SVG_LABEL_MAX];

	fputs("<rect class=\"bar\" data-series=\"", out);
	bp_svg_escape(out, c->series[s]);
	fputs("\" data-x=\"", out);
	bp_svg_escape(out, c->categories[k]);
	fprintf(out, "\" data-y=\"%.17g\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"%s\"><title>", v, f->x0 + band * (double)k + band * 0.1 + w * (double)s,
		fmin(y, y0), w, fabs(y0 - y), bp_svg_color(s));
	bp_svg_format_value(label, sizeof(label), c->y.unit, v);
	bp_svg_escape(out, c->series[s]);
	fputs(", ", out);
	bp_svg_escape(out, c->categories[k]);
	fprintf(out, ": %s</title></rect>\n", label);
}

/* Labels wider than their band (about 7 px a character at 12 px) alternate between two
 * rows, so that neighbours never overlap. */
#define LABEL_ROW 14.0
static bool staggered(const struct bp_svg_bar_chart *c, const struct bp_svg_frame *f)
{
	double band = (f->x1 - f->x0) / (double)c->ncategories;

	for (size_t k = 0; k < c->ncategories; k++)
		if (7.0 * (double)strlen(c->categories[k]) > band * 0.95)
			return true;
	return false;
}

static void draw_categories(FILE *out, const struct bp_svg_frame *f,
			    const struct bp_svg_bar_chart *c)
{
	double band = (f->x1 - f->x0) / (double)c->ncategories;

	fputs("<g class=\"categories\">\n", out);
	for (size_t k = 0; k < c->ncategories; k++) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			f->x0 + band * ((double)k + 0.5),
			f->y1 + 16 + (f->extra > 0 && k % 2 ? LABEL_ROW : 0));
		bp_svg_escape(out, c->categories[k]);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

int bp_svg_bar_chart(FILE *out, const struct bp_svg_bar_chart *c, char *err, size_t errlen)
{
	struct bp_svg_axis ya;
	struct bp_svg_frame f;
	char why[200];
	double r[2];
	int rc;

	if (!c->ncategories || !c->nseries) {
		snprintf(err, errlen, "chart '%s': no bar to draw", c->id);
		return -EINVAL;
	}
	rc = bar_range(c, r, err, errlen);
	if (rc)
		return rc;
	if (c->y.scale != BP_SVG_LINEAR) {
		snprintf(err, errlen, "chart '%s': bars need a linear axis", c->id);
		return -EINVAL;
	}
	rc = bp_svg_axis_fit(&ya, BP_SVG_LINEAR, c->y.unit, r[0], r[1], true, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "chart '%s': %s axis: %s", c->id, c->y.title, why);
		return rc;
	}
	bp_svg_frame_layout(&f, c->nseries, 0);
	if (staggered(c, &f))
		bp_svg_frame_layout(&f, c->nseries, LABEL_ROW);
	bp_svg_frame_open(out, &f, c->id, c->title, "bar");
	bp_svg_draw_y_axis(out, &f, &ya, c->y.title);
	draw_categories(out, &f, c);
	bp_svg_draw_x_axis(out, &f, NULL, c->x_title);
	for (size_t s = 0; s < c->nseries; s++) {
		fprintf(out, "<g class=\"series\" data-index=\"%zu\" data-series=\"", s);
		bp_svg_escape(out, c->series[s]);
		fputs("\">\n", out);
		for (size_t k = 0; k < c->ncategories; k++)
			if (!isnan(c->values[s * c->ncategories + k]))
				draw_bar(out, &f, c, &ya, s, k);
		fputs("</g>\n", out);
	}
	bp_svg_draw_legend(out, &f, c->series, c->nseries, 0);
	bp_svg_frame_close(out);
	if (ferror(out)) {
		snprintf(err, errlen, "chart '%s': write error", c->id);
		return -EIO;
	}
	return 0;
}
