/*
 * Text made for the terminal it lands on: its width, and words filled to it. The default
 * text of every command fits this width (80 columns when nothing says otherwise), so that it
 * reads over an 80-column SSH session (docs/results.md, "Text output").
 */
#ifndef BP_CORE_TERM_H
#define BP_CORE_TERM_H

#include <stdio.h>

/* The narrowest and widest width text is filled to, whatever the terminal says. */
#define BP_TERM_MIN_WIDTH 40
#define BP_TERM_MAX_WIDTH 1000
#define BP_TERM_DEFAULT_WIDTH 80

/*
 * The columns text written to fd may use: the terminal's (TIOCGWINSZ) when fd is one, else
 * $COLUMNS when it is a whole number, else 80; within [BP_TERM_MIN_WIDTH,
 * BP_TERM_MAX_WIDTH].
 */
int bp_term_width(int fd);

/* The same for a stream: its descriptor's, or 80 for a stream with none (a memstream). */
int bp_term_width_of(FILE *out);

/*
 * text, its words filled into lines of at most width columns: the first line goes on from
 * column col (what the caller already wrote on it), each further one starts with indent
 * spaces. Words are runs of non-spaces and are never broken: one longer than a line has a
 * line of its own. A newline in text starts a new (indented) line. No newline after the
 * last word. Columns count UTF-8 characters, not bytes. Returns the column the text ended
 * at.
 */
int bp_term_fill(FILE *out, const char *text, int col, int indent, int width);

#endif
