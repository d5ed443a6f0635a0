#include "report/report_figure.h"

#include <errno.h>
#include <stdlib.h>

int bp_report_lines_series(struct bp_report_lines *l, const char *name, size_t max_points)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4;
		struct bp_svg_series *s = realloc(l->s, cap * sizeof(*s));
		double **xy;
		size_t *max;

		if (s)
			l->s = s;
		xy = s ? realloc(l->xy, cap * sizeof(*xy)) : NULL;
		if (xy)
			l->xy = xy;
		max = xy ? realloc(l->max, cap * sizeof(*max)) : NULL;
		if (!max)
			return -ENOMEM;
		l->max = max;
		l->cap = cap;
	}
	l->xy[l->n] = calloc(max_points ? 2 * max_points : 2, sizeof(double));
	if (!l->xy[l->n])
		return -ENOMEM;
	l->max[l->n] = max_points;
	l->s[l->n] = (struct bp_svg_series){ .name = name, .x = l->xy[l->n],
					     .y = l->xy[l->n] + max_points };
	l->n++;
	return 0;
}

void bp_report_lines_point(struct bp_report_lines *l, double x, double y)
{
	size_t i = l->n - 1, k = l->s[i].n;

	if (k >= l->max[i])
		return;
	l->xy[i][k] = x;
	l->xy[i][l->max[i] + k] = y;
	l->s[i].n++;
}

void bp_report_lines_end(struct bp_report_lines *l)
{
	if (l->n && !l->s[l->n - 1].n)
		free(l->xy[--l->n]);
}

void bp_report_lines_free(struct bp_report_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->xy[i]);
	free(l->s);
	free(l->xy);
	free(l->max);
	*l = (struct bp_report_lines){ 0 };
}

static int figure(FILE *out, const char *id, int rc, const char *why)
{
	if (rc && rc != -EIO) {
		fputs("<p class=\"note\" data-chart=\"", out);
		bp_svg_escape(out, id);
		fputs("\">Not drawn: ", out);
		bp_svg_escape(out, why);
		fputs("</p>\n", out);
		rc = 0;
	}
	fputs("</figure>\n", out);
	return ferror(out) ? -EIO : rc;
}

int bp_report_figure_line(FILE *out, struct bp_svg_line_chart *c, const struct bp_report_lines *l)
{
	char why[256];

	c->series = l->s;
	c->nseries = l->n;
	fputs("<figure>\n", out);
	return figure(out, c->id, bp_svg_line_chart(out, c, why, sizeof(why)), why);
}

int bp_report_figure_bar(FILE *out, const struct bp_svg_bar_chart *c)
{
	char why[256];

	fputs("<figure>\n", out);
	return figure(out, c->id, bp_svg_bar_chart(out, c, why, sizeof(why)), why);
}
