/*
 * What an option table says of itself to a reader: --help's lines, filled to the terminal's
 * width (core/term.h), and the man page's entries, which depend on no width (cli/help.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/roff.h"
#include "core/term.h"

/* Where an option's text starts: after "  -c, --client HOST", padded. */
#define HELP_TEXT_COL 29
/* The columns its text needs beside the names; on a narrower terminal it goes below them. */
#define HELP_TEXT_MIN 30
#define HELP_BELOW_INDENT 8

/* The value's name after the option's names: "RATE", "N" of --x[=N]; NULL for a flag. */
static const char *opt_meta(const struct bp_opt *o)
{
	if (o->type == BP_OPT_OPTINT)
		return o->metavar ? o->metavar : "N";
	return bp_opt_takes_value(o) ? (o->metavar ? o->metavar : "VALUE") : NULL;
}

static void put_plain(FILE *out, const char *s)
{
	fputs(s, out);
}

/*
 * The option's text after its names, the same in --help and the man page: its help, its
 * choices, "(repeatable)", its default. Each piece goes through put: as it is, or as roff.
 */
static void opt_text(FILE *out, const struct bp_opt *o, void (*put)(FILE *, const char *))
{
	put(out, o->help ? o->help : "");
	if (o->type == BP_OPT_CHOICE && o->choices) {
		put(out, " (");
		for (int i = 0; o->choices[i]; i++) {
			if (i)
				put(out, "|");
			put(out, o->choices[i]);
		}
		put(out, ")");
	}
	if (o->type == BP_OPT_STRINGS)
		put(out, " (repeatable)");
	if (o->def && bp_opt_takes_value(o)) {
		put(out, " [default: ");
		put(out, o->def);
		put(out, "]");
	}
}

/* opt_text as one string, to be filled; NULL when out of memory. */
static char *opt_text_plain(const struct bp_opt *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	opt_text(f, o, put_plain);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The longest run of non-spaces in s, in bytes (a UTF-8 character counts 2-4: cautious). */
static int longest_word(const char *s)
{
	size_t longest = 0;

	for (s += strspn(s, " \n"); *s; s += strspn(s, " \n")) {
		size_t len = strcspn(s, " \n");

		longest = len > longest ? len : longest;
		s += len;
	}
	return (int)longest;
}

/*
 * "  -c, --client HOST          the boardperf server ...": the names, then the text filled
 * to width from column HELP_TEXT_COL; on a terminal too narrow for that, the text below.
 */
static void help_line(FILE *out, const struct bp_opt *o, int width)
{
	char left[64], names[40];
	const char *meta = opt_meta(o);
	bool optional = o->type == BP_OPT_OPTINT;
	char *text = opt_text_plain(o);
	const char *t = text ? text : o->help ? o->help : "";
	/* beside the names when the text has room there and its longest word fits */
	bool beside = width - HELP_TEXT_COL >= HELP_TEXT_MIN &&
		      HELP_TEXT_COL + longest_word(t) <= width;
	int indent = beside ? HELP_TEXT_COL : HELP_BELOW_INDENT;
	int col;

	if (o->short_name && o->long_name)
		snprintf(names, sizeof(names), "-%c, --%s", o->short_name, o->long_name);
	else if (o->short_name)
		snprintf(names, sizeof(names), "-%c", o->short_name);
	else
		snprintf(names, sizeof(names), "    --%s", o->long_name);
	col = snprintf(left, sizeof(left), "  %s%s%s%s", names, !meta ? "" : optional ? "[=" : " ",
		       meta ? meta : "", optional ? "]" : "");
	if (beside) {
		fprintf(out, "%-*s ", HELP_TEXT_COL - 1, left);
		col = col < HELP_TEXT_COL - 1 ? HELP_TEXT_COL : col + 1;
	} else {
		fprintf(out, "%s\n%*s", left, indent, "");
		col = indent;
	}
	bp_term_fill(out, t, col, indent, width);
	fputc('\n', out);
	free(text);
}

size_t bp_synopsis_part(const char *s)
{
	int depth = 0;
	bool quoted = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
		else if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == ' ' && ((!depth && !quoted) || s[i + 1] == '['))
			break;
	}
	return i;
}

/* The synopsis after "Usage: boardperf CMD" (col columns), its parts filled to width. */
static void fill_synopsis(FILE *out, const char *s, int col, int width)
{
	size_t longest = 0;
	int indent;

	for (const char *p = s; *p; p++)
		if (*p != ' ') {
			size_t len = bp_synopsis_part(p);

			longest = len > longest ? len : longest;
			p += len - 1;
		}
	/* continuation lines under the synopsis's start where its longest part fits, else under
	 * the command's name */
	indent = col + 1 + (int)longest <= width ? col + 1 : (int)strlen("Usage: ");

	while (*s) {
		size_t len;

		if (*s == ' ') {
			s++;
			continue;
		}
		len = bp_synopsis_part(s);
		if (col > indent && col + 1 + (int)len > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', out);
			col++;
		}
		fwrite(s, 1, len, out);
		col += (int)len;
		s += len;
	}
}

void bp_opts_help(FILE *out, const char *cmd, const char *synopsis, const char *summary,
		  const struct bp_opt *table)
{
	int width = bp_term_width_of(out);
	size_t own = 0, i = 0;

	fprintf(out, "Usage: boardperf %s", cmd);
	if (synopsis && *synopsis)
		fill_synopsis(out, synopsis, (int)strlen("Usage: boardperf ") + (int)strlen(cmd),
			      width);
	fputc('\n', out);
	if (summary) {
		bp_term_fill(out, summary, 0, 0, width);
		fputc('\n', out);
	}
	for (const struct bp_opt *o = table; o && !bp_opt_is_end(o); o++)
		own++;
	if (own)
		fprintf(out, "\nOptions:\n");
	/* the table's own options first, then the common ones the command takes */
	for (const struct bp_opt *o = bp_opts_next(table, NULL); o; o = bp_opts_next(table, o)) {
		if (i++ == own)
			fprintf(out, "\nCommon options:\n");
		help_line(out, o, width);
	}
}

void bp_opts_help_lines(FILE *out, const struct bp_opt *table)
{
	int width = bp_term_width_of(out);

	for (const struct bp_opt *o = table; o && !bp_opt_is_end(o); o++)
		help_line(out, o, width);
}

/* One option of the man page: ".TP", "-c, --client HOST" in bold and italics, its text. */
static void man_entry(FILE *out, const struct bp_opt *o)
{
	const char *meta = opt_meta(o);
	bool optional = o->type == BP_OPT_OPTINT;

	fputs(".TP\n", out);
	if (o->short_name) {
		char s[3] = { '-', o->short_name, '\0' };

		fputs("\\fB", out);
		bp_roff_text(out, s);
		fputs("\\fR", out);
	}
	if (o->long_name) {
		fputs(o->short_name ? ", \\fB\\-\\-" : "\\fB\\-\\-", out);
		bp_roff_text(out, o->long_name);
		fputs("\\fR", out);
	}
	if (meta) {
		fputs(optional ? "[=\\fI" : " \\fI", out);
		bp_roff_text(out, meta);
		fputs(optional ? "\\fR]" : "\\fR", out);
	}
	fputc('\n', out);
	opt_text(out, o, bp_roff_text);
	fputc('\n', out);
}

void bp_opts_man(FILE *out, const struct bp_opt *table, bool common)
{
	if (!common) {
		for (const struct bp_opt *o = table; o && !bp_opt_is_end(o); o++)
			man_entry(out, o);
		return;
	}
	for (const struct bp_opt *o = bp_opts_next(table, NULL); o; o = bp_opts_next(table, o))
		man_entry(out, o);
}
