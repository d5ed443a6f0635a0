/* Text made for the terminal (core/term.h): its width, and words filled to it. */
#include <stdlib.h>

#include "core/term.h"
#include "tap.h"

/* bp_term_fill's output in a buffer kept until the next call; fill(NULL, ...) frees it. */
static const char *fill(const char *text, int col, int indent, int width, int *end)
{
	static char *buf;
	size_t len = 0;
	FILE *f;

	free(buf);
	buf = NULL;
	if (!text)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	*end = bp_term_fill(f, text, col, indent, width);
	fclose(f);
	return buf;
}

int main(void)
{
	int end = 0;

	/* not a terminal (-1): $COLUMNS, else 80, within the bounds */
	unsetenv("COLUMNS");
	CHECK_INT(bp_term_width(-1), 80);
	setenv("COLUMNS", "120", 1);
	CHECK_INT(bp_term_width(-1), 120);
	setenv("COLUMNS", "12", 1);
	CHECK_INT(bp_term_width(-1), BP_TERM_MIN_WIDTH);
	setenv("COLUMNS", "99999", 1);
	CHECK_INT(bp_term_width(-1), BP_TERM_MAX_WIDTH);
	setenv("COLUMNS", "80x", 1);
	CHECK_INT(bp_term_width(-1), 80);
	setenv("COLUMNS", "-5", 1);
	CHECK_INT(bp_term_width(-1), 80);
	setenv("COLUMNS", "", 1);
	CHECK_INT(bp_term_width(-1), 80);

	/* words filled to the width, continuation lines indented */
	CHECK_STR(fill("one two three four", 0, 2, 10, &end), "one two\n  three\n  four");
	CHECK_INT(end, 6);
	/* from a column the caller wrote to: the first word goes on that line */
	CHECK_STR(fill("aa bb cc", 5, 5, 11, &end), "aa bb\n     cc");
	CHECK_INT(end, 7);
	/* a word longer than a line is not broken: a line of its own */
	CHECK_STR(fill("a verylongword b", 0, 0, 6, &end), "a\nverylongword\nb");
	/* a first word that does not fit after what the caller wrote goes to the next line */
	CHECK_STR(fill("word", 8, 2, 10, &end), "\n  word");
	CHECK_INT(end, 6);
	/* ...but not when the caller wrote only the indent */
	CHECK_STR(fill("longerword", 2, 2, 10, &end), "longerword");
	/* runs of spaces are one; a newline starts an indented line */
	CHECK_STR(fill("a   b\nc", 0, 1, 80, &end), "a b\n c");
	/* columns are characters: 'é' (2 bytes) is one */
	CHECK_STR(fill("\xc3\xa9\xc3\xa9\xc3\xa9 abc", 0, 0, 7, &end), "\xc3\xa9\xc3\xa9\xc3\xa9 abc");
	CHECK_INT(end, 7);
	CHECK_STR(fill("", 3, 0, 80, &end), "");
	CHECK_INT(end, 3);
	fill(NULL, 0, 0, 0, &end);
	return tap_done();
}
