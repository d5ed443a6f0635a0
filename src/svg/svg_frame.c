#include "svg/svg_frame.h"

#include <stdbool.h>

#include "core/text_escape.h"
#include "svg/svg_chart.h"

/* Sizes in pixels: room on the left for a label such as "-1.25 Gbit/s", a row per legend
 * entry below the x axis's labels and title. */
#define WIDTH 720.0
#define TOP 40.0
#define PLOT_HEIGHT 240.0
#define LEFT 100.0
#define RIGHT 24.0
#define BELOW_PLOT 56.0
#define LEGEND_ROW 18.0

void bp_svg_escape(FILE *out, const char *s)
{
	bp_html_escape(out, s);
}

/* Okabe and Ito's palette, without its yellow (too faint on white). */
static const char *const palette[] = { "#0072b2", "#e69f00", "#009e73", "#d55e00",
				       "#cc79a7", "#56b4e9", "#000000", "#999999" };

const char *bp_svg_color(size_t i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

double bp_svg_px(double frac, double p0, double p1)
{
	return p0 + frac * (p1 - p0);
}

void bp_svg_frame_layout(struct bp_svg_frame *f, size_t nlegend, double extra)
{
	f->extra = extra;
	f->width = WIDTH;
	f->x0 = LEFT;
	f->x1 = WIDTH - RIGHT;
	f->y0 = TOP;
	f->y1 = TOP + PLOT_HEIGHT;
	f->height = f->y1 + BELOW_PLOT + extra + LEGEND_ROW * (double)nlegend + 6;
}

void bp_svg_frame_open(FILE *out, const struct bp_svg_frame *f, const char *id,
		       const char *title, const char *kind)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-kind=\"%s\""
		" data-chart=\"", kind);
	bp_svg_escape(out, id);
	fprintf(out, "\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\""
		" font-family=\"sans-serif\" font-size=\"12\">\n<title>", f->width, f->height,
		f->width, f->height);
	bp_svg_escape(out, title);
	fputs("</title>\n<rect class=\"background\" width=\"100%\" height=\"100%\" "
	      "fill=\"#ffffff\"/>\n", out);
	fprintf(out, "<text class=\"chart-title\" x=\"%.1f\" y=\"24\" font-size=\"15\" "
		"font-weight=\"bold\">", f->x0);
	bp_svg_escape(out, title);
	fputs("</text>\n", out);
}

void bp_svg_frame_close(FILE *out)
{
	fputs("</svg>\n", out);
}

void bp_svg_draw_y_axis(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_axis *a,
			const char *title)
{
	double mid = (f->y0 + f->y1) / 2;

	fputs("<g class=\"axis axis-y\">\n", out);
	for (size_t i = 0; i < a->ticks.n; i++) {
		double y = bp_svg_px(bp_svg_axis_frac(a, a->raw[i]), f->y1, f->y0);

		fprintf(out, "<g class=\"tick\" data-value=\"%.17g\"><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/><text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">", a->raw[i], f->x0, y, f->x1, y, f->x0 - 6, y + 4);
		bp_svg_escape(out, a->labels[i]);
		fputs("</text></g>\n", out);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
		f->x0, f->y0, f->x0, f->y1);
	fprintf(out, "<text class=\"axis-title\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %.1f)\">", mid, mid);
	bp_svg_escape(out, title);
	fputs("</text>\n</g>\n", out);
}

void bp_svg_draw_x_axis(FILE *out, const struct bp_svg_frame *f, const struct bp_svg_axis *a,
			const char *title)
{
	fputs("<g class=\"axis axis-x\">\n", out);
	for (size_t i = 0; a && i < a->ticks.n; i++) {
		double x = bp_svg_px(bp_svg_axis_frac(a, a->raw[i]), f->x0, f->x1);

		fprintf(out, "<g class=\"tick\" data-value=\"%.17g\"><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/><text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">", a->raw[i], x, f->y0, x, f->y1, x, f->y1 + 16);
		bp_svg_escape(out, a->labels[i]);
		fputs("</text></g>\n", out);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
		f->x0, f->y1, f->x1, f->y1);
	fprintf(out, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(f->x0 + f->x1) / 2, f->y1 + 36 + f->extra);
	bp_svg_escape(out, title);
	fputs("</text>\n</g>\n", out);
}

void bp_svg_draw_legend(FILE *out, const struct bp_svg_frame *f, const char *const *names,
			size_t n, int markers)
{
	fputs("<g class=\"legend\">\n", out);
	for (size_t i = 0; i < n; i++) {
		double y = f->y1 + BELOW_PLOT + f->extra + LEGEND_ROW * (double)i;

		fputs("<g class=\"legend-item\" data-series=\"", out);
		bp_svg_escape(out, names[i]);
		if (markers)
			fprintf(out, "\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"2\"/><circle cx=\"%.1f\" cy=\"%.1f\" "
				"r=\"3\" fill=\"%s\"/>", f->x0, y, f->x0 + 24, y, bp_svg_color(i),
				f->x0 + 12, y, bp_svg_color(i));
		else
			fprintf(out, "\"><rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"10\" "
				"fill=\"%s\"/>", f->x0, y - 5, bp_svg_color(i));
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", f->x0 + 32, y + 4);
		bp_svg_escape(out, names[i]);
		fputs("</text></g>\n", out);
	}
	fputs("</g>\n", out);
}
