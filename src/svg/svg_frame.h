/*
 * What the line and bar charts share (internal to src/svg): the frame
 * (the <svg> element, its title, the plot area), the y axis with grid lines, the x axis
 * line, the legend.
 */
#ifndef BP_SVG_SVG_FRAME_H
#define BP_SVG_SVG_FRAME_H

#include <stddef.h>
#include <stdio.h>

#include "svg/svg_axis.h"

/* The layout of one chart in pixels: the plot area is [x0, x1] x [y0, y1], y0 on top. */
struct bp_svg_frame {
	double width, height;
	double x0, x1, y0, y1;
	double extra;   /* more room below the plot (a second row of category labels) */
};

/* The frame for a chart with nlegend entries below its plot and extra pixels more there. */
void bp_svg_frame_layout(struct bp_svg_frame *f, size_t nlegend, double extra);

/* <svg ...> with its data-chart id, the <title> and the visible title. */
void bp_svg_frame_open(FILE *out, const struct bp_svg_frame *f, const char *id,
		       const char *title, const char *kind);
void bp_svg_frame_close(FILE *out);

/* The y axis: grid lines, tick labels, its title (with the unit shown by the labels). */
void bp_svg_draw_y_axis(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_axis *a,
			const char *title);

/* The x axis's line and title; ticks when a is not NULL (a bar chart labels categories). */
void bp_svg_draw_x_axis(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_axis *a,
			const char *title);

/* The legend below the plot: one swatch and name per series. */
void bp_svg_draw_legend(FILE *out, const struct bp_svg_frame *f, const char *const *names,
			size_t n, int markers);

/* A pixel position: the axis's fraction along [p0, p1]. */
double bp_svg_px(double frac, double p0, double p1);

#endif
