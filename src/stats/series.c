/*
 * Interval series storage: the times of each row in one array and the values in another,
 * row-major (nrows x ncols), both grown by doubling so that appending one interval per
 * second for hours stays cheap and each realloc copies rarely.
 */
#include "stats/series.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"

/* A 10 s test at the default 1 s interval fits without growing. */
#define SERIES_INITIAL_ROWS 16

struct series_times {
	uint64_t start_ns, end_ns;
};

struct bp_series {
	size_t ncols;
	struct bp_series_column *cols;  /* name and unit are our own copies */
	size_t nrows, cap;
	struct series_times *times;
	double *values;
};

struct bp_series *bp_series_new(const struct bp_series_column *cols, size_t ncols)
{
	struct bp_series *s;
	size_t i;

	/* Keeps the size of the first block of values from overflowing; growth checks again. */
	if (ncols > SIZE_MAX / sizeof(double) / SERIES_INITIAL_ROWS)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (ncols) {
		s->cols = calloc(ncols, sizeof(*s->cols));
		if (!s->cols)
			goto error;
	}
	/* ncols grows with each copied column, so the error path frees exactly those. */
	for (i = 0; i < ncols; i++) {
		if (!cols[i].name || !cols[i].unit)
			goto error;
		s->cols[i].name = strdup(cols[i].name);
		s->cols[i].unit = strdup(cols[i].unit);
		s->cols[i].better = cols[i].better;
		s->ncols++;
		if (!s->cols[i].name || !s->cols[i].unit)
			goto error;
	}
	return s;
error:
	bp_series_free(s);
	return NULL;
}

void bp_series_free(struct bp_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncols; i++) {
		/* The copies bp_series_new made; the fields are const for readers. */
		free(bp_unconst(s->cols[i].name));
		free(bp_unconst(s->cols[i].unit));
	}
	free(s->cols);
	free(s->times);
	free(s->values);
	free(s);
}

/* Room for one more row. On failure the series keeps its rows and its old capacity. */
static int series_grow(struct bp_series *s)
{
	size_t cap = s->cap ? s->cap * 2 : SERIES_INITIAL_ROWS;
	struct series_times *times;
	double *values;

	if (s->cap > SIZE_MAX / 2 / sizeof(*times) ||
	    (s->ncols && cap > SIZE_MAX / sizeof(*values) / s->ncols))
		return -ENOMEM;
	times = realloc(s->times, cap * sizeof(*times));
	if (!times)
		return -ENOMEM;
	/* Kept even if the values fail to grow: a larger block only wastes a little. */
	s->times = times;
	if (s->ncols) {
		values = realloc(s->values, cap * s->ncols * sizeof(*values));
		if (!values)
			return -ENOMEM;
		s->values = values;
	}
	s->cap = cap;
	return 0;
}

int bp_series_append(struct bp_series *s, uint64_t start_ns, uint64_t end_ns,
		     const double *values)
{
	int rc;

	if (end_ns < start_ns)
		return -EINVAL;
	/* Overlapping rows would count the same traffic twice in a column sum. */
	if (s->nrows && start_ns < s->times[s->nrows - 1].end_ns)
		return -EINVAL;
	if (s->nrows == s->cap) {
		rc = series_grow(s);
		if (rc)
			return rc;
	}
	s->times[s->nrows].start_ns = start_ns;
	s->times[s->nrows].end_ns = end_ns;
	if (s->ncols)
		memcpy(&s->values[s->nrows * s->ncols], values, s->ncols * sizeof(*values));
	s->nrows++;
	return 0;
}

size_t bp_series_nrows(const struct bp_series *s)
{
	return s->nrows;
}

size_t bp_series_ncols(const struct bp_series *s)
{
	return s->ncols;
}

const struct bp_series_column *bp_series_column(const struct bp_series *s, size_t col)
{
	return col < s->ncols ? &s->cols[col] : NULL;
}

int bp_series_find_column(const struct bp_series *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ncols && i < INT_MAX; i++)
		if (strcmp(s->cols[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

uint64_t bp_series_start_ns(const struct bp_series *s, size_t row)
{
	return row < s->nrows ? s->times[row].start_ns : 0;
}

uint64_t bp_series_end_ns(const struct bp_series *s, size_t row)
{
	return row < s->nrows ? s->times[row].end_ns : 0;
}

double bp_series_value(const struct bp_series *s, size_t row, size_t col)
{
	if (row >= s->nrows || col >= s->ncols)
		return NAN;
	return s->values[row * s->ncols + col];
}

/*
 * Neumaier's variant of Kahan summation: the low-order part lost by each addition is
 * collected in c and added back at the end, also when a term is larger than the running
 * sum (where plain Kahan loses it). Byte counts of 10 Gbit/s intervals reach 1e9+ each,
 * and a plain sum of many would stop matching the total to the last byte.
 */
double bp_series_sum(const struct bp_series *s, size_t col)
{
	double sum = 0.0, c = 0.0, x, t;
	size_t row;

	if (col >= s->ncols)
		return NAN;
	for (row = 0; row < s->nrows; row++) {
		x = s->values[row * s->ncols + col];
		t = sum + x;
		if (fabs(sum) >= fabs(x))
			c += (sum - t) + x;
		else
			c += (x - t) + sum;
		sum = t;
	}
	return sum + c;
}
