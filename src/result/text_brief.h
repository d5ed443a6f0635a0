/*
 * The short forms of the text's side sections, so that the default text fits the terminal
 * (docs/results.md, "Text output"): the params the run set (all of them with -v), the
 * tester's CPU in one line (the table with -v) and each warning in one line (its whole
 * sentence with -v). Everything stays whole in the JSON and the CSV.
 */
#ifndef BP_RESULT_TEXT_BRIEF_H
#define BP_RESULT_TEXT_BRIEF_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"

/* The columns r's text fits: r->text_width, or BP_TERM_DEFAULT_WIDTH when unset. */
int bp_text_cols(const struct bp_result *r);

/*
 * "params: key=value ...", filled to the width. By default an option left off (false, 0,
 * an empty string) is left out: what is printed is what the user set or the run chose;
 * -v prints every one.
 */
int bp_text_params(FILE *out, const struct bp_result *r);

/* "tester cpu: this side 97.9 % (busiest worker 98.3 %), server 32.5 %"; -v the table. */
int bp_text_cpu(FILE *out, const struct bp_result *r);

/* One line a warning: its code and what to do, fitted to the width; -v the whole text. */
int bp_text_warnings(FILE *out, const struct bp_result *r);

/* The widest line of text, in columns (UTF-8 characters). */
size_t bp_text_widest(const char *text);

/*
 * The section print writes (given arg), printed to out when its widest line fits r's width
 * or with -v: 1; else nothing is printed: 0 (the caller's narrower form follows); or a
 * negative errno. The one place a section is measured before it is shown.
 */
int bp_text_print_if_fits(FILE *out, const struct bp_result *r,
			  int (*print)(FILE *out, const struct bp_result *r, const void *arg),
			  const void *arg);

/*
 * A section printed whole when its widest line fits r's width or with -v; else one line,
 * "<what>: wider than the terminal (-v shows it)". print writes the section to a stream.
 */
int bp_text_if_fits(FILE *out, const struct bp_result *r, const char *what,
		    int (*print)(FILE *out, const struct bp_result *r));

/*
 * line, words filled to r's width, further lines indented by two. A line a section built
 * whole (the monitor's) goes through this.
 */
int bp_text_fill_line(FILE *out, const struct bp_result *r, const char *line);

#endif
