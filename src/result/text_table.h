/*
 * Aligned plain-text tables for the text renderer: cells are copied in, column widths
 * are measured when printed, and rows never end in padding (golden files and terminals
 * both dislike trailing blanks).
 */
#ifndef BP_RESULT_TEXT_TABLE_H
#define BP_RESULT_TEXT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct bp_table {
	size_t ncols;
	size_t nrows, cap_rows;
	char **cells;         /* nrows * ncols, row-major; NULL prints as empty */
	bool *right;          /* per column: right-aligned (numbers) */
	unsigned *gap;        /* per column: blanks before it (ignored for column 0) */
	unsigned indent;      /* blanks before every row */
	size_t max_width;     /* 0, or the width a row may take: wider tables go on in blocks */
};

/* 0 or -ENOMEM. Columns start left-aligned with a gap of two blanks. */
int bp_table_init(struct bp_table *t, size_t ncols, unsigned indent);
void bp_table_free(struct bp_table *t);

/* Append an empty row; cells are then set with bp_table_set(). 0 or -ENOMEM. */
int bp_table_add_row(struct bp_table *t);
/* Set a cell of the last row (text is copied and cleaned). 0, -EINVAL or -ENOMEM. */
int bp_table_set(struct bp_table *t, size_t col, const char *text);
/* Append a row from ncols strings (NULL for an empty cell). 0 or -ENOMEM. */
int bp_table_add(struct bp_table *t, const char *const *cells);

/* Width on a terminal: UTF-8 code points, which is right for "µs" and board names. */
size_t bp_text_width(const char *s);

/*
 * Control characters (a CR LF inside a message, an escape sequence in a firmware
 * string) would break the layout or drive the terminal: each run of them becomes one
 * blank. bp_text_clean works in place and returns s; bp_text_put prints s cleaned.
 */
char *bp_text_clean(char *s);
void bp_text_put(FILE *out, const char *s);

/*
 * 0, -ENOMEM or -EIO (the stream reports a write error). A table wider than max_width is
 * printed in blocks of columns, each led by column 0 (the rows' names) and each within
 * max_width where its columns allow, a blank line between them.
 */
int bp_table_print(FILE *out, const struct bp_table *t);

#endif
