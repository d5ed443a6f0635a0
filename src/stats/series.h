/*
 * An interval series: the per-interval figures of one test (the "-i 1" lines of iperf),
 * as a table with a fixed set of columns chosen when the test starts and one row per
 * interval. Rows are kept in time order and never overlap, so a column of counts (bytes,
 * packets, operations) can be summed and checked against the test's total.
 *
 * stats is below result in the layering: the result code turns a series into its
 * "intervals" array; nothing here knows about results or JSON.
 */
#ifndef BP_STATS_SERIES_H
#define BP_STATS_SERIES_H

#include <stddef.h>
#include <stdint.h>

struct bp_series_column {
	const char *name;  /* dotted and stable, as in the result: "receiver.bitrate" */
	const char *unit;  /* base unit: "bit/s", "B", "count", ... */
	int better;        /* 0 none, 1 higher, 2 lower: the values of enum bp_better */
};

struct bp_series;

/*
 * A series with ncols columns (0 is allowed: rows then carry only their times). Names and
 * units are copied. NULL when out of memory or when a column has no name or unit.
 */
struct bp_series *bp_series_new(const struct bp_series_column *cols, size_t ncols);
void bp_series_free(struct bp_series *s);  /* NULL is fine */

/*
 * Appends the interval [start_ns, end_ns] (monotonic ns, see core/clock.h) with ncols
 * values in column order (values may be NULL when ncols is 0). Returns 0, -ENOMEM, or
 * -EINVAL when end_ns < start_ns or the interval starts before the previous one ended;
 * on error the series is unchanged.
 */
int bp_series_append(struct bp_series *s, uint64_t start_ns, uint64_t end_ns,
		     const double *values);

size_t bp_series_nrows(const struct bp_series *s);
size_t bp_series_ncols(const struct bp_series *s);
/* NULL when col >= ncols. */
const struct bp_series_column *bp_series_column(const struct bp_series *s, size_t col);
/* The index of the column called name, or -ENOENT. */
int bp_series_find_column(const struct bp_series *s, const char *name);

/* Row accessors: 0 (times) or NaN (values) when row or col is out of range. */
uint64_t bp_series_start_ns(const struct bp_series *s, size_t row);
uint64_t bp_series_end_ns(const struct bp_series *s, size_t row);
double bp_series_value(const struct bp_series *s, size_t row, size_t col);

/*
 * The sum of a column over all rows (compensated, so thousands of rows do not drift from
 * the total they are checked against); 0 with no rows, NaN when col >= ncols or a value
 * is NaN.
 */
double bp_series_sum(const struct bp_series *s, size_t col);

#endif
