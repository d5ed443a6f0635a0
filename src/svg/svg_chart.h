/*
 * boardperf's own SVG charts (no library): a line chart (series of points over a linear,
 * log or percentile x axis) and a bar chart (categories x series), each with a title,
 * axes with ticks and unit labels, grid lines and a legend. Every drawn point and bar
 * carries its raw values as data attributes (data-series, data-x, data-y) and a <title>
 * tooltip, so that a reader of the DOM (a test, a script) reads back exactly the figures
 * drawn, and a person hovering sees them. The output is one <svg> element, standalone or
 * inline in HTML; its only URL is the SVG namespace.
 */
#ifndef BP_SVG_SVG_CHART_H
#define BP_SVG_SVG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "svg/svg_axis.h"

struct bp_svg_axis_spec {
	const char *title;      /* "time", "percentile", "frame size" */
	const char *unit;       /* the values' unit as a result carries it: "bit/s", "ns", "s" */
	enum bp_svg_scale scale;
	bool include_zero;      /* linear: the axis reaches zero (rates, counts) */
};

struct bp_svg_series {
	const char *name;       /* the legend's entry: a run's label */
	size_t n;
	const double *x, *y;    /* raw values; NaN is refused, not skipped */
};

struct bp_svg_line_chart {
	const char *id;         /* data-chart: a stable name for scripts, e.g. "tcp.sender.bitrate" */
	const char *title;
	struct bp_svg_axis_spec x, y;
	size_t nseries;
	const struct bp_svg_series *series;
};

/* Writes one <svg>. 0, or -EINVAL (nothing to draw, NaN) / -EDOM / -ERANGE with err naming
 * the chart and the value; -EIO when out fails. Nothing is written on a refusal. */
int bp_svg_line_chart(FILE *out, const struct bp_svg_line_chart *c, char *err, size_t errlen);

struct bp_svg_bar_chart {
	const char *id, *title;
	const char *x_title;    /* what the categories are: "frame size" */
	struct bp_svg_axis_spec y;  /* linear (a bar's length from zero means nothing on log) */
	size_t ncategories;
	const char *const *categories;   /* "64 B", "rsa2048.sign" */
	size_t nseries;
	const char *const *series;       /* legend names */
	/* values[s * ncategories + c]; NaN here means series s has no such bar (a run that
	 * did not measure that frame size), drawn as a gap */
	const double *values;
};

int bp_svg_bar_chart(FILE *out, const struct bp_svg_bar_chart *c, char *err, size_t errlen);

/* Character data or an attribute value, for SVG and HTML alike: core/text_escape.h's
 * bp_html_escape (control characters, which XML does not allow, and invalid UTF-8 shown as
 * \xNN; & < > " ' as entities). */
void bp_svg_escape(FILE *out, const char *s);

/* The colour of series i (a palette readable with the common colour blindnesses). */
const char *bp_svg_color(size_t i);

#endif
