/*
 * A group as the cells a person reads, shared by the text, Markdown and HTML renderers so
 * that the three show the same table: column 0 the row's name, then one column per run of
 * the test (the figures with their units), then one per run after the first with its ratio
 * to the first ("rpi3 vs opi"). Rows: the parameters that differ ("param length", the
 * ratio cells saying "differs"), the metrics, the geometric mean, the warnings when any run
 * has some. Each renderer escapes the cells its own way.
 */
#ifndef BP_COMPARE_COMPARE_VIEW_H
#define BP_COMPARE_COMPARE_VIEW_H

#include <stddef.h>

#include "compare/compare_model.h"

enum bp_cmp_cell {
	BP_CMP_CELL_PLAIN,
	BP_CMP_CELL_BETTER,
	BP_CMP_CELL_WORSE,
	BP_CMP_CELL_SAME,
	BP_CMP_CELL_DIFFERS,    /* a parameter not as in the first run */
};

enum bp_cmp_kind {
	BP_CMP_ROW_HEADER,
	BP_CMP_ROW_PARAM,
	BP_CMP_ROW_METRIC,
	BP_CMP_ROW_GEOMEAN,
	BP_CMP_ROW_WARNINGS,
};

struct bp_cmp_view {
	size_t ncols;              /* 1 + 2 * group columns - 1 */
	size_t nvalues;            /* value columns: 1 .. nvalues */
	size_t nrows, cap;
	char **cells;              /* nrows * ncols, never NULL once built */
	enum bp_cmp_cell *cls;     /* per cell */
	enum bp_cmp_kind *kind;    /* per row */
};

/* 0 or -ENOMEM (then v is freed). */
int bp_cmp_view_build(const struct bp_compare *c, const struct bp_cmp_group *g,
		      struct bp_cmp_view *v);
void bp_cmp_view_free(struct bp_cmp_view *v);
static inline const char *bp_cmp_view_cell(const struct bp_cmp_view *v, size_t row, size_t col)
{
	return v->cells[row * v->ncols + col];
}

/*
 * The sentences after a group's table, plain text: parameters that differ, the metrics
 * only some runs have (grouped by which runs have them), runs that could not measure.
 * *lines (each malloc'd, the array too) and *n; 0 or -ENOMEM.
 */
int bp_cmp_group_notes(const struct bp_compare *c, const struct bp_cmp_group *g,
		       char ***lines, size_t *n);
void bp_cmp_notes_free(char **lines, size_t n);

/* "run, label opi, Xunlong Orange Pi Zero, 2026-12-01 10:00:00 UTC, boardperf 0.1.0". */
char *bp_cmp_run_text(const struct bp_cmp_run *r);
/* "Not compared (in one run only): udp (b.json), http (b.json)."; NULL when none. */
char *bp_cmp_singles_text(const struct bp_compare *c, int *err);

#endif
