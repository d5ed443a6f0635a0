/*
 * One CSV field as RFC 4180 writes it, shared by the result's CSV (render_csv.c) and
 * compare's (compare/compare_data.c): quoted only when it holds a comma, a quote or a line
 * break, a quote doubled inside.
 */
#ifndef BP_RESULT_CSV_FIELD_H
#define BP_RESULT_CSV_FIELD_H

#include <stdio.h>

/* s as one field; nothing for NULL (an empty field). */
void bp_csv_field(FILE *out, const char *s);

/* v in its exact shortest form; nothing for a value that is not finite (an empty field). */
void bp_csv_number(FILE *out, double v);

#endif
