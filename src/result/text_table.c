#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "result/text_table.h"

int bp_table_init(struct bp_table *t, size_t ncols, unsigned indent)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->indent = indent;
	t->right = calloc(ncols ? ncols : 1, sizeof(*t->right));
	t->gap = calloc(ncols ? ncols : 1, sizeof(*t->gap));
	if (!t->right || !t->gap) {
		bp_table_free(t);
		return -ENOMEM;
	}
	for (size_t c = 0; c < ncols; c++)
		t->gap[c] = 2;
	return 0;
}

void bp_table_free(struct bp_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
	free(t->gap);
	memset(t, 0, sizeof(*t));
}

int bp_table_add_row(struct bp_table *t)
{
	if (t->nrows == t->cap_rows) {
		size_t ncap = t->cap_rows ? t->cap_rows * 2 : 8;
		char **p;

		if (!t->ncols || ncap > SIZE_MAX / sizeof(*p) / t->ncols)
			return -ENOMEM;
		p = realloc(t->cells, ncap * t->ncols * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->cells = p;
		t->cap_rows = ncap;
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	t->nrows++;
	return 0;
}

int bp_table_set(struct bp_table *t, size_t col, const char *text)
{
	char **cell;
	char *copy = NULL;

	if (!t->nrows || col >= t->ncols)
		return -EINVAL;
	if (text && !(copy = strdup(text)))
		return -ENOMEM;
	bp_text_clean(copy);
	cell = &t->cells[(t->nrows - 1) * t->ncols + col];
	free(*cell);
	*cell = copy;
	return 0;
}

int bp_table_add(struct bp_table *t, const char *const *cells)
{
	int err = bp_table_add_row(t);

	for (size_t c = 0; !err && c < t->ncols; c++)
		err = bp_table_set(t, c, cells[c]);
	return err;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

char *bp_text_clean(char *s)
{
	bool in_run = false;
	char *w = s;

	for (const char *p = s; p && *p; p++) {
		/* Read before writing: w may point at *p itself. */
		bool ctl = is_control((unsigned char)*p);

		if (!ctl)
			*w++ = *p;
		else if (!in_run)
			*w++ = ' ';
		in_run = ctl;
	}
	if (w)
		*w = '\0';
	return s;
}

void bp_text_put(FILE *out, const char *s)
{
	bool in_run = false;

	for (const char *p = s; p && *p; p++) {
		if (!is_control((unsigned char)*p))
			fputc(*p, out);
		else if (!in_run)
			fputc(' ', out);
		in_run = is_control((unsigned char)*p);
	}
}

size_t bp_text_width(const char *s)
{
	size_t n = 0;

	/* Count every byte that does not continue a UTF-8 sequence. */
	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* Column 0, then columns lo to hi - 1 of one row. */
static void print_row(FILE *out, const struct bp_table *t, char *const *row,
		      const size_t *width, size_t lo, size_t hi)
{
	size_t last = 0;

	/* Stop after the last non-empty cell so that no row ends in blanks. */
	for (size_t c = lo; c < hi; c++)
		if (row[c] && *row[c])
			last = c;
	pad(out, t->indent);
	for (size_t c = 0; c <= last; c = c ? c + 1 : lo) {
		const char *s = row[c] ? row[c] : "";
		size_t fill = width[c] - bp_text_width(s);

		if (c)
			pad(out, t->gap[c]);
		if (t->right[c])
			pad(out, fill);
		fputs(s, out);
		if (!t->right[c] && c < last)
			pad(out, fill);
	}
	fputc('\n', out);
}

/* Where the block of columns from lo ends: as many as fit beside column 0, one at least. */
static size_t block_end(const struct bp_table *t, const size_t *width, size_t lo)
{
	size_t used = t->indent + width[0], hi = lo;

	while (hi < t->ncols && (hi == lo || !t->max_width ||
				 used + t->gap[hi] + width[hi] <= t->max_width)) {
		used += t->gap[hi] + width[hi];
		hi++;
	}
	return hi;
}

int bp_table_print(FILE *out, const struct bp_table *t)
{
	size_t *width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));

	if (!width)
		return -ENOMEM;
	if (!t->ncols) {  /* no column: nothing to print */
		free(width);
		return 0;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = bp_text_width(t->cells[r * t->ncols + c]);

			if (w > width[c])
				width[c] = w;
		}
	}
	for (size_t lo = 1, hi; lo < t->ncols || lo == 1; lo = hi) {
		hi = t->ncols > 1 ? block_end(t, width, lo) : 1;
		if (lo > 1)
			fputc('\n', out);
		for (size_t r = 0; r < t->nrows; r++)
			print_row(out, t, &t->cells[r * t->ncols], width, lo, hi);
		if (hi <= lo)
			break;
	}
	free(width);
	return ferror(out) ? -EIO : 0;
}
