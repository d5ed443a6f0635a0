/*
 * What boardperf says of its own command line, all from the tables that parse it (the
 * registry's commands, each command's bp_opt table, the common options): `boardperf --help`,
 * and for the package (tools/deb/build.sh) boardperf(1) and the bash completion. --help
 * fills its lines to the terminal's width (core/term.h); the man page and the completion
 * read no terminal: the same bytes at any width, on a terminal or not.
 */
#include "cli/help.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/dispatch.h"
#include "cli/registry.h"
#include "core/buildinfo.h"
#include "core/roff.h"
#include "core/term.h"

static const char tagline[] = "Measure a Linux board and the network around it, correctly.";

/*
 * boardperf's own options, before any command. main.c acts on them (with `boardperf help`
 * for --help); this table is what --help and the man page say of them. The generators,
 * --man and --bash-completion, are left out: they are for packaging, not for users.
 */
static const struct bp_opt top_opts[] = {
	{ 'V', "version", BP_OPT_FLAG, 0, NULL, NULL, 0, 0, NULL, "print the version" },
	{ 'h', "help", BP_OPT_FLAG, 0, NULL, NULL, 0, 0, NULL, "show this help" },
	BP_OPT_END,
};

/* dispatch.h's exit statuses, as --help and the man page give them. */
static const struct {
	int status;
	const char *what;
} exit_statuses[] = {
	{ BP_EXIT_OK, "measured" },
	{ BP_EXIT_FAILED, "could not measure" },
	{ BP_EXIT_USAGE, "usage error" },
	{ BP_EXIT_VERDICT, "measured, but failed its own threshold (crr's verdict)" },
};
#define N_EXIT_STATUSES (sizeof(exit_statuses) / sizeof(exit_statuses[0]))

void bp_cli_usage(FILE *out)
{
	int width = bp_term_width_of(out);
	char status[64];
	int col;

	fprintf(out, "Usage: boardperf [COMMAND] [OPTIONS]\n%s\n\nCommands:\n", tagline);
	for (size_t i = 0; bp_tests[i]; i++) {
		col = fprintf(out, "  %-10s ", bp_tests[i]->name);
		bp_term_fill(out, bp_tests[i]->summary, col, col, width);
		fputc('\n', out);
	}
	bp_term_fill(out, "\nWithout a command, boardperf runs `run`. `boardperf COMMAND --help` "
		     "lists a command's options.", 0, 0, width);
	fputc('\n', out);
	bp_opts_help_lines(out, top_opts);
	col = fprintf(out, "Exit status:");
	for (size_t i = 0; i < N_EXIT_STATUSES; i++) {
		snprintf(status, sizeof(status), " %d %s%s", exit_statuses[i].status,
			 exit_statuses[i].what, i + 1 < N_EXIT_STATUSES ? "," : ".");
		/* the space before each status is a word's: it breaks there, not inside */
		if (col + (int)strlen(status) > width) {
			fputs("\n ", out);
			col = 1;
		}
		col += fprintf(out, "%s", status);
	}
	fputc('\n', out);
}

/*
 * 0, or the negative errno of a failed write (a full disk, a closed pipe): the generators
 * clear errno first, so that the one left is a failed write's, even an early one's.
 */
static int flush_status(FILE *out)
{
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * A command's synopsis, filled: a line breaks between its parts (bp_synopsis_part), not
 * inside one ("[-l SIZE]", "\"TEST ARGS\"" keep their spaces as \~).
 */
static void man_synopsis(FILE *out, const char *synopsis)
{
	for (const char *p = synopsis; *p;) {
		size_t len = bp_synopsis_part(p);
		char part[256];

		snprintf(part, sizeof(part), "%.*s", (int)len, p);
		for (char *word = part, *sp; word; word = sp ? sp + 1 : NULL) {
			sp = strchr(word, ' ');
			if (sp)
				*sp = '\0';
			bp_roff_text(out, word);
			if (sp)
				fputs("\\~", out);
		}
		p += len;
		if (*p == ' ') {
			fputc(' ', out);
			p++;
		}
	}
}

int bp_cli_man(FILE *out, const char *date)
{
	errno = 0;
	fputs(".TH BOARDPERF 1 \"", out);
	bp_roff_text(out, date ? date : "");
	fputs("\" \"boardperf ", out);
	bp_roff_text(out, bp_version());
	fputs("\" \"User Commands\"\n"
	      ".SH NAME\n"
	      "boardperf \\- measure a Linux board and the network around it\n"
	      ".SH SYNOPSIS\n"
	      ".B boardperf\n"
	      "[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]\n"
	      ".SH DESCRIPTION\n", out);
	bp_roff_text(out, tagline);
	fputs("\nWithout a command, boardperf runs\n"
	      ".BR run .\n"
	      "Each command has options of its own, listed below and by\n"
	      ".BR \"boardperf COMMAND \\-\\-help\" .\n"
	      ".SH COMMANDS\n", out);
	for (size_t i = 0; bp_tests[i]; i++) {
		fputs(".TP\n.B ", out);
		bp_roff_text(out, bp_tests[i]->name);
		fputc('\n', out);
		bp_roff_text(out, bp_tests[i]->summary);
		fputc('\n', out);
	}
	fputs(".SH OPTIONS\n", out);
	bp_opts_man(out, top_opts, false);
	for (size_t i = 0; bp_tests[i]; i++) {
		const struct bp_test *t = bp_tests[i];

		fputs(".SS boardperf ", out);
		bp_roff_text(out, t->name);
		fputs("\n\\fBboardperf ", out);
		bp_roff_text(out, t->name);
		fputs("\\fR", out);
		if (t->synopsis && *t->synopsis) {
			fputc(' ', out);
			man_synopsis(out, t->synopsis);
		}
		fputs("\n.br\n", out);
		bp_roff_text(out, t->summary);
		fputc('\n', out);
		bp_opts_man(out, t->opts, true);
	}
	fputs(".SH EXIT STATUS\n", out);
	for (size_t i = 0; i < N_EXIT_STATUSES; i++)
		fprintf(out, ".TP\n.B %d\n%s\n", exit_statuses[i].status, exit_statuses[i].what);
	/* docs/ARCHITECTURE.md, "Exit status": the rule dispatch.c applies after a signal. */
	fputs(".PP\n"
	      "After SIGINT or SIGTERM, a command that had measured something exits 0, its result\n"
	      "carrying the warning \\(lqinterrupted\\(rq; one that had measured nothing exits 1.\n"
	      ".SH FILES\n"
	      ".TP\n"
	      ".I /lib/systemd/system/boardperf\\-serve.service\n"
	      "runs\n"
	      ".B boardperf serve\n"
	      "as a service with the server's default limits "
	      "(\\fBsystemctl enable \\-\\-now boardperf\\-serve\\fR).\n"
	      ".SH SEE ALSO\n"
	      ".BR iperf3 (1),\n"
	      ".BR sysbench (1);\n"
	      "/usr/share/doc/boardperf/README.md.gz and docs/*.md.gz: the manual (the JSON "
	      "contract in docs/json.md.gz).\n", out);
	return flush_status(out);
}

/* The words of a command's options for compgen: "-c --client -p --port ...". */
static void completion_words(FILE *out, const struct bp_opt *table, bool common)
{
	const struct bp_opt *o = common ? bp_opts_next(table, NULL) : table;
	const char *sep = "";

	while (o && (o->short_name || o->long_name)) {
		if (o->short_name) {
			fprintf(out, "%s-%c", sep, o->short_name);
			sep = " ";
		}
		if (o->long_name) {
			fprintf(out, "%s--%s", sep, o->long_name);
			sep = " ";
		}
		o = common ? bp_opts_next(table, o) : o + 1;
	}
}

/* "-c|--client": a case pattern of the option's names. */
static void completion_pattern(FILE *out, const struct bp_opt *o)
{
	if (o->short_name)
		fprintf(out, "-%c%s", o->short_name, o->long_name ? "|" : "");
	if (o->long_name)
		fprintf(out, "--%s", o->long_name);
}

/* An option of a file or folder: its value's name says so (FILE, PATH, DIR, TEXT|@FILE). */
static bool takes_path(const struct bp_opt *o)
{
	return o->metavar && (strstr(o->metavar, "FILE") || strstr(o->metavar, "PATH") ||
			      strstr(o->metavar, "DIR"));
}

enum value_kind { VALUE_CHOICE, VALUE_PATH, VALUE_OTHER };

static enum value_kind value_kind(const struct bp_opt *o)
{
	if (o->type == BP_OPT_CHOICE && o->choices)
		return VALUE_CHOICE;
	return takes_path(o) ? VALUE_PATH : VALUE_OTHER;
}

/*
 * The case pattern of a command's options that take a value of that kind, "-d|--dir|--db";
 * nothing when it has none.
 */
static bool completion_patterns(FILE *out, const struct bp_test *t, enum value_kind kind)
{
	bool any = false;

	for (const struct bp_opt *o = bp_opts_next(t->opts, NULL); o; o = bp_opts_next(t->opts, o)) {
		if (!bp_opt_takes_value(o) || value_kind(o) != kind)
			continue;
		fputs(any ? "|" : "\t\t", out);
		completion_pattern(out, o);
		any = true;
	}
	return any;
}

/*
 * A command's branch: after an option that takes a value, its choices, a path or nothing
 * (a host, a size: the user's to type); else the command's options.
 */
static void completion_command(FILE *out, const struct bp_test *t)
{
	fprintf(out, "\t%s)\n\t\tcase $prev in\n", t->name);
	for (const struct bp_opt *o = bp_opts_next(t->opts, NULL); o; o = bp_opts_next(t->opts, o)) {
		if (!bp_opt_takes_value(o) || value_kind(o) != VALUE_CHOICE)
			continue;
		fputs("\t\t", out);
		completion_pattern(out, o);
		fputs(") COMPREPLY=($(compgen -W \"", out);
		for (int i = 0; o->choices[i]; i++)
			fprintf(out, "%s%s", i ? " " : "", o->choices[i]);
		fputs("\" -- \"$cur\")); return ;;\n", out);
	}
	if (completion_patterns(out, t, VALUE_PATH))
		fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", out);
	if (completion_patterns(out, t, VALUE_OTHER))
		fputs(") COMPREPLY=(); return ;;\n", out);
	fputs("\t\tesac\n\t\topts=\"", out);
	completion_words(out, t->opts, true);
	fputs("\" ;;\n", out);
}

int bp_cli_completion(FILE *out)
{
	errno = 0;
	fputs("# bash completion for boardperf (written by `boardperf --bash-completion` from its\n"
	      "# option tables)\n"
	      "_boardperf() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i opts\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t-*) ;;\n"
	      "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tcase $cmd in\n"
	      "\t'') opts=\"", out);
	for (size_t i = 0; bp_tests[i]; i++)
		fprintf(out, "%s ", bp_tests[i]->name);
	completion_words(out, top_opts, false);
	fputs("\" ;;\n", out);
	for (size_t i = 0; bp_tests[i]; i++)
		completion_command(out, bp_tests[i]);
	fputs("\t*) opts= ;;\n"
	      "\tesac\n"
	      "\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "}\n"
	      "complete -F _boardperf boardperf\n", out);
	return flush_status(out);
}
