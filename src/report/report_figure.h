/*
 * One chart of the page in its <figure> (internal to src/report): the SVG, or where a
 * chart cannot be drawn from what the documents hold, a line that says why.
 */
#ifndef BP_REPORT_REPORT_FIGURE_H
#define BP_REPORT_REPORT_FIGURE_H

#include <stddef.h>
#include <stdio.h>

#include "svg/svg_chart.h"

/* Series collected point by point, each a run's (names are not copied). */
struct bp_report_lines {
	size_t n, cap;
	struct bp_svg_series *s;
	double **xy;     /* each series's points, x then (after max_points) y */
	size_t *max;
};

/* Starts series name; then points are added to the last one. 0 or -ENOMEM. */
int bp_report_lines_series(struct bp_report_lines *l, const char *name, size_t max_points);
/* Adds (x, y) to the last series, which has room for max_points. */
void bp_report_lines_point(struct bp_report_lines *l, double x, double y);
/* Drops the last series when it got no point. */
void bp_report_lines_end(struct bp_report_lines *l);
void bp_report_lines_free(struct bp_report_lines *l);

/* The figure of a line chart (its series from l) or a bar chart; -EIO on a write error. */
int bp_report_figure_line(FILE *out, struct bp_svg_line_chart *c, const struct bp_report_lines *l);
int bp_report_figure_bar(FILE *out, const struct bp_svg_bar_chart *c);

#endif
