#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "svg/svg_chart.h"
#include "svg/svg_frame.h"
#include "svg/svg_units.h"

/* The extent of every point, after refusing a NaN; -EINVAL when there is no point. */
static int line_ranges(const struct bp_svg_line_chart *c, double *xr, double *yr,
		       char *err, size_t errlen)
{
	size_t total = 0;

	xr[0] = yr[0] = INFINITY;
	xr[1] = yr[1] = -INFINITY;
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t i = 0; i < c->series[s].n; i++, total++) {
			double x = c->series[s].x[i], y = c->series[s].y[i];

			if (isnan(x) || isnan(y)) {
				snprintf(err, errlen, "chart '%s': series '%s' point %zu is not a "
					 "number", c->id, c->series[s].name, i + 1);
				return -EINVAL;
			}
			xr[0] = fmin(xr[0], x), xr[1] = fmax(xr[1], x);
			yr[0] = fmin(yr[0], y), yr[1] = fmax(yr[1], y);
		}
	if (!total) {
		snprintf(err, errlen, "chart '%s': no point to draw", c->id);
		return -EINVAL;
	}
	return 0;
}

static void point_label(char *buf, size_t len, const struct bp_svg_axis_spec *spec, double v)
{
	if (spec->scale == BP_SVG_PERCENTILE)
		snprintf(buf, len, "p%g", v);
	else
		bp_svg_format_value(buf, len, spec->unit, v);
}

static void draw_series(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_line_chart *c,
			const struct bp_svg_axis *xa, const struct bp_svg_axis *ya, size_t s)
{
	const struct bp_svg_series *se = &c->series[s];
	char xl[BP_SVG_LABEL_MAX], yl[BP_SVG_LABEL_MAX];

	fprintf(out, "<g class=\"series\" data-index=\"%zu\" data-series=\"", s);
	bp_svg_escape(out, se->name);
	fprintf(out, "\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		bp_svg_color(s));
	for (size_t i = 0; i < se->n; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "",
			bp_svg_px(bp_svg_axis_frac(xa, se->x[i]), f->x0, f->x1),
			bp_svg_px(bp_svg_axis_frac(ya, se->y[i]), f->y1, f->y0));
	fputs("\"/>\n", out);
	for (size_t i = 0; i < se->n; i++) {
		fputs("<circle class=\"point\" data-series=\"", out);
		bp_svg_escape(out, se->name);
		fprintf(out, "\" data-x=\"%.17g\" data-y=\"%.17g\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
			"fill=\"%s\"><title>", se->x[i], se->y[i],
			bp_svg_px(bp_svg_axis_frac(xa, se->x[i]), f->x0, f->x1),
			bp_svg_px(bp_svg_axis_frac(ya, se->y[i]), f->y1, f->y0), bp_svg_color(s));
		point_label(xl, sizeof(xl), &c->x, se->x[i]);
		point_label(yl, sizeof(yl), &c->y, se->y[i]);
		bp_svg_escape(out, se->name);
		fprintf(out, ": %s, %s</title></circle>\n", xl, yl);
	}
	fputs("</g>\n", out);
}

static int fit(struct bp_svg_axis *a, const struct bp_svg_axis_spec *spec, const double *r,
	       const char *id, char *err, size_t errlen)
{
	char why[200];
	int rc = bp_svg_axis_fit(a, spec->scale, spec->unit, r[0], r[1], spec->include_zero,
				 why, sizeof(why));

	if (rc)
		snprintf(err, errlen, "chart '%s': %s axis: %s", id, spec->title, why);
	return rc;
}

int bp_svg_line_chart(FILE *out, const struct bp_svg_line_chart *c, char *err, size_t errlen)
{
	struct bp_svg_axis xa, ya;
	struct bp_svg_frame f;
	double xr[2], yr[2];
	const char **names;
	int rc = line_ranges(c, xr, yr, err, errlen);

	if (!rc)
		rc = fit(&xa, &c->x, xr, c->id, err, errlen);
	if (!rc)
		rc = fit(&ya, &c->y, yr, c->id, err, errlen);
	if (rc)
		return rc;
	names = calloc(c->nseries ? c->nseries : 1, sizeof(*names));
	if (!names) {
		snprintf(err, errlen, "chart '%s': out of memory", c->id);
		return -ENOMEM;
	}
	for (size_t s = 0; s < c->nseries; s++)
		names[s] = c->series[s].name;
	bp_svg_frame_layout(&f, c->nseries, 0);
	bp_svg_frame_open(out, &f, c->id, c->title, "line");
	bp_svg_draw_y_axis(out, &f, &ya, c->y.title);
	bp_svg_draw_x_axis(out, &f, &xa, c->x.title);
	for (size_t s = 0; s < c->nseries; s++)
		draw_series(out, &f, c, &xa, &ya, s);
	bp_svg_draw_legend(out, &f, names, c->nseries, 1);
	bp_svg_frame_close(out);
	free(names);
	if (ferror(out)) {
		snprintf(err, errlen, "chart '%s': write error", c->id);
		return -EIO;
	}
	return 0;
}
