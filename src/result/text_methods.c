#include "result/text_methods.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "result/render.h"
#include "result/text_table.h"

/* Index of s (its first n bytes) in v[0..*len), appended when new. */
static size_t intern(const char **v, size_t *nlen, size_t *len, const char *s, size_t n)
{
	for (size_t i = 0; i < *len; i++)
		if (nlen[i] == n && !strncmp(v[i], s, n))
			return i;
	v[*len] = s;
	nlen[*len] = n;
	return (*len)++;
}

/* The methods (column) and figures (row) of every metric. */
struct grid {
	const char **cols, **rows;
	size_t *col_len, *row_len, ncols, nrows;
	size_t *col, *row;  /* per metric */
};

static int grid_build(const struct bp_result *r, struct grid *g)
{
	size_t n = r->nmetrics ? r->nmetrics : 1;

	*g = (struct grid){ .cols = calloc(n, sizeof(char *)), .rows = calloc(n, sizeof(char *)),
			    .col_len = calloc(n, sizeof(size_t)), .row_len = calloc(n, sizeof(size_t)),
			    .col = calloc(n, sizeof(size_t)), .row = calloc(n, sizeof(size_t)) };
	if (!g->cols || !g->rows || !g->col_len || !g->row_len || !g->col || !g->row)
		return -ENOMEM;
	for (size_t i = 0; i < r->nmetrics; i++) {
		const char *name = r->metrics[i].name, *dot = strchr(name, '.');
		size_t plen = dot ? (size_t)(dot - name) : strlen(name);

		g->col[i] = intern(g->cols, g->col_len, &g->ncols, name, plen);
		g->row[i] = intern(g->rows, g->row_len, &g->nrows, dot ? dot + 1 : name,
				   strlen(dot ? dot + 1 : name));
	}
	return 0;
}

static void grid_free(struct grid *g)
{
	free(g->cols);
	free(g->rows);
	free(g->col_len);
	free(g->row_len);
	free(g->col);
	free(g->row);
}

bool bp_text_methods_applies(const struct bp_result *r)
{
	struct grid g;
	size_t methods;

	if (!r->nmetrics)
		return false;
	if (grid_build(r, &g)) {
		grid_free(&g);
		return false;
	}
	methods = g.ncols;
	grid_free(&g);
	/* "loop" (the baseline) and one method read well as the plain list */
	return methods > 2;
}

static int fill(struct bp_table *t, const struct bp_result *r, const struct grid *g)
{
	char buf[BP_TEXT_VALUE_LEN], name[64];
	int err = bp_table_add_row(t);

	err = err ? err : bp_table_set(t, 0, "figure");
	for (size_t c = 0; !err && c < g->ncols; c++) {
		snprintf(name, sizeof(name), "%.*s", (int)g->col_len[c], g->cols[c]);
		t->right[1 + c] = true;
		err = bp_table_set(t, 1 + c, name);
	}
	for (size_t row = 0; !err && row < g->nrows; row++) {
		snprintf(name, sizeof(name), "%.*s", (int)g->row_len[row], g->rows[row]);
		err = bp_table_add_row(t);
		err = err ? err : bp_table_set(t, 0, name);
		for (size_t i = 0; !err && i < r->nmetrics; i++)
			if (g->row[i] == row)
				err = bp_table_set(t, 1 + g->col[i],
						   bp_text_value(buf, r->metrics[i].value,
								r->metrics[i].unit));
	}
	return err;
}

int bp_text_methods_print(FILE *out, const struct bp_result *r)
{
	struct bp_table t = { 0 };
	struct grid g;
	int err = grid_build(r, &g);

	err = err ? err : bp_table_init(&t, 1 + g.ncols, 0);
	err = err ? err : fill(&t, r, &g);
	err = err ? err : bp_table_print(out, &t);
	bp_table_free(&t);
	grid_free(&g);
	return err;
}
