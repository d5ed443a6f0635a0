/*
 * What boardperf says of its own command line, from the same tables that parse it:
 * `boardperf --help`, and for the package (tools/deb/build.sh) its man page and bash
 * completion, which main.c writes on `boardperf --man [DATE]` and `boardperf
 * --bash-completion` (left out of --help: they are for packaging). --help fills its lines
 * to the terminal's width; the other two depend on no terminal ($COLUMNS, a tty or not):
 * the same bytes wherever they are written.
 */
#ifndef BP_CLI_HELP_H
#define BP_CLI_HELP_H

#include <stdio.h>

/*
 * `boardperf --help`: the commands and what they do, boardperf's own options, exit status,
 * filled to out's width (core/term.h).
 */
void bp_cli_usage(FILE *out);

/*
 * boardperf(1) in roff: every command with its synopsis and summary, every option each
 * command takes (its table's, then the common ones) as its --help gives it, the exit status,
 * the packaged unit and what to read next. date: the .TH date ("2025-01-31"; NULL or "":
 * none), so that the page's bytes are a function of the sources and the date alone.
 * Returns 0, or a negative errno when out could not be written.
 */
int bp_cli_man(FILE *out, const char *date);

/*
 * The bash completion script: the commands, then each command's options; after an option
 * that takes a value its choices, a path for a FILE, PATH or DIR, nothing else for the
 * others. Returns 0, or a negative errno when out could not be written.
 */
int bp_cli_completion(FILE *out);

#endif
