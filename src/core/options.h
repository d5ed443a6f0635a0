/*
 * Declarative option tables. Each command lists its flags once (letter, name, type,
 * range, default, help); that one table drives parsing, validation, --help, the man page and
 * the bash completion (cli/help.h), and the record of effective parameters stored with every
 * result.
 */
#ifndef BP_CORE_OPTIONS_H
#define BP_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

enum bp_opt_type {
	BP_OPT_FLAG,     /* bool; takes no value */
	BP_OPT_COUNT,    /* int; each use adds one (-v -v) */
	BP_OPT_INT,      /* int64_t */
	BP_OPT_NUMBER,   /* double */
	BP_OPT_STRING,   /* const char * (points into argv or the default) */
	BP_OPT_RATE,     /* double, bit/s */
	BP_OPT_SIZE,     /* uint64_t, bytes */
	BP_OPT_DURATION, /* uint64_t, ns */
	BP_OPT_CHOICE,   /* int: index into choices */
	BP_OPT_STRINGS,  /* struct bp_strings: each use appends one (-H A -H B) */
	BP_OPT_OPTINT,   /* int64_t, a long option whose value is optional: "--readback" alone
			  * stores 1, "--readback=4" stores 4 (only with '=': the next argument
			  * is never taken); absent, the default */
	BP_OPT_TEXT,     /* const char *, as STRING, but text a result carries (a label, a
			  * name): well-formed UTF-8 (JSON's), and at most max bytes when max is
			  * not 0 (min unused) */
};

/* A repeatable string option's values, in the order given (pointers into argv). */
#define BP_STRINGS_MAX 32
struct bp_strings {
	int n;
	const char *v[BP_STRINGS_MAX];
};

struct bp_opt {
	char short_name;         /* 0 for none */
	const char *long_name;   /* without "--"; NULL for none */
	enum bp_opt_type type;
	/*
	 * Of the field in the command's parameter struct; in a table's end row, the groups of
	 * common options its command leaves out (BP_OPT_END_WITHOUT).
	 */
	size_t offset;
	const char *metavar;     /* "RATE", "N", ... for --help */
	const char *def;         /* default as the user would type it; NULL = unset/false */
	/*
	 * Inclusive range; min == max == 0: no limit. Rates in bit/s, sizes in bytes,
	 * durations in seconds (not ns: tables stay readable), others as typed.
	 */
	double min, max;
	const char *const *choices; /* NULL-terminated, for BP_OPT_CHOICE */
	const char *help;
};

/*
 * The common options in groups a command may leave out: one it does not take is neither
 * parsed ("--repeat is not an option of this command") nor listed by its --help, man page
 * or completion.
 */
enum bp_common_group {
	BP_COMMON_JSON = 1u << 0,    /* -J: the result as JSON */
	BP_COMMON_CSV = 1u << 1,     /* --csv */
	BP_COMMON_STREAM = 1u << 2,  /* --json-stream */
	BP_COMMON_DB = 1u << 3,      /* --db: the results database */
	BP_COMMON_SAVE = 1u << 4,    /* --no-save */
	BP_COMMON_LABEL = 1u << 5,   /* --label */
	BP_COMMON_REPEAT = 1u << 6,  /* --repeat, --until-stable */
	BP_COMMON_MONITOR = 1u << 7, /* --no-monitor, --busy-warn */
	BP_COMMON_START = 1u << 8,   /* --start-at: one test's start at a wall-clock instant */
};

/* What a command that measures nothing leaves out: it saves, repeats and monitors nothing. */
#define BP_COMMON_MEASURING (BP_COMMON_STREAM | BP_COMMON_SAVE | BP_COMMON_LABEL | \
			     BP_COMMON_REPEAT | BP_COMMON_MONITOR | BP_COMMON_START)

/* End of a table: its command takes every common option. */
#define BP_OPT_END { 0, NULL, BP_OPT_FLAG, 0, NULL, NULL, 0, 0, NULL, NULL }
/* End of a table whose command does not take the common options of groups (enum above). */
#define BP_OPT_END_WITHOUT(groups) { 0, NULL, BP_OPT_FLAG, (groups), NULL, NULL, 0, 0, NULL, \
				     NULL }

/* The most runs --repeat takes: a bound on time and on the runs a result holds. */
#define BP_REPEAT_MAX 1000

/* Flags every command has; they fill struct bp_common_opts. */
struct bp_common_opts {
	bool json;
	bool json_stream;  /* JSON Lines as the test runs (docs/json.md, "JSON Lines") */
	bool csv;
	bool no_save;
	const char *db;    /* --db FILE: the results database (NULL: the default) */
	const char *label; /* --label NAME: params.label of the result, for history and compare */
	/*
	 * --repeat N: run the test N times, each run kept, the parent holding the median and
	 * spread of the headline figures (cli/repeat.h); 0: once, as usual. --until-stable COV:
	 * stop earlier once the headline's CoV is at most COV percent; 0: not asked.
	 */
	int64_t repeat;
	double until_stable;
	bool help;
	bool quiet;
	int verbose;
	bool no_monitor;     /* no monitor thread (docs/json.md, "The monitor") */
	double busy_warn;    /* busy-machine above this percent of the CPUs (default 20) */
	/*
	 * --start-at TIME (core/start_at.h): as given, and the instant it names (ns since the
	 * epoch; 0: none), which the CLI fills once the command line is checked
	 */
	const char *start_at;
	int64_t start_at_ns;
};
extern const struct bp_opt bp_common_opt_table[];

/*
 * What a command's parse produced besides its parameter struct: positional arguments
 * (pointers into argv) and which options the user actually gave.
 */
#define BP_MAX_POSITIONAL 16
/* The options a command line set itself, not by default: enough for any table here. */
#define BP_MAX_GIVEN 64

struct bp_parsed {
	int npos;
	const char *pos[BP_MAX_POSITIONAL];
	int ngiven;
	const struct bp_opt *given[BP_MAX_GIVEN];
};

/*
 * Whether the command line set the option named long_name (not its default): -t with -n,
 * where iperf3 refuses two ends of a test.
 */
bool bp_parsed_given(const struct bp_parsed *parsed, const char *long_name);

/*
 * Apply defaults, then parse argv[0..argc) (argv[0] is the first argument after the
 * command name) into common and params. Returns 0, or -EINVAL with a one-line message
 * in err such as "-b '12x': expected a rate such as 100M, 1.5G or 64k (bit/s)".
 */
int bp_opts_parse(const struct bp_opt *table, void *params,
		  struct bp_common_opts *common, struct bp_parsed *parsed,
		  int argc, char **argv, char *err, size_t errlen);

/* A command that takes no positional arguments: -EINVAL "unexpected argument 'x'" else 0. */
int bp_check_no_positional(const struct bp_parsed *parsed, char *err, size_t errlen);

/* Two flags that exclude each other: -EINVAL "-4 and -6 exclude each other" when both set. */
int bp_check_exclusive(bool a, const char *a_name, bool b, const char *b_name,
		       char *err, size_t errlen);

/* Fill params with the table's defaults only (for tests and for suites). */
int bp_opts_defaults(const struct bp_opt *table, void *params, char *err, size_t errlen);

/*
 * The keys of bp_opts_to_json(table, params) whose value is their option's default, as an
 * object of true (params_size: the struct's size); NULL when out of memory. The default
 * text lists what the run set, -v every param (docs/results.md, "Text output").
 */
json_t *bp_opts_defaulted(const struct bp_opt *table, const void *params, size_t params_size);

/*
 * "Usage: boardperf CMD SYNOPSIS", the summary, then one aligned line per option it takes,
 * its words filled to out's width (core/term.h).
 */
void bp_opts_help(FILE *out, const char *cmd, const char *synopsis, const char *summary,
		  const struct bp_opt *table);

/* One such line for each option of table alone (not the common ones), to out's width. */
void bp_opts_help_lines(FILE *out, const struct bp_opt *table);

/*
 * The man page's entry of each option, as bp_opts_help gives it (cli/help.h: boardperf
 * --man): ".TP", the names in bold and the value in italics, then the same text with its
 * choices, "(repeatable)" and default, escaped for roff (core/roff.h). common: the common
 * options the command has after table's, as its --help lists them; false: table alone.
 */
void bp_opts_man(FILE *out, const struct bp_opt *table, bool common);

/*
 * The options a command has, in its --help's order: its table's, then the common ones it
 * takes (its end row's BP_OPT_END_WITHOUT) and does not replace (a command's option of a
 * common option's long name replaces it).
 *   for (o = bp_opts_next(table, NULL); o; o = bp_opts_next(table, o))
 */
const struct bp_opt *bp_opts_next(const struct bp_opt *table, const struct bp_opt *prev);

/* The row ends its table (neither a letter nor a name). */
bool bp_opt_is_end(const struct bp_opt *o);

/*
 * The length of the synopsis part at s ("[-l SIZE]" of "[-l SIZE] [-Z]"): up to a space
 * outside brackets and quotes, or a space before a bracket inside them ("[--sctp [--nstreams
 * N]]" parts before "[--nstreams"). Lines of a synopsis break between parts only.
 */
size_t bp_synopsis_part(const char *s);

/*
 * The option takes the next argument as its value (-c HOST); false for a flag, a count and
 * --x[=N], whose value only ever follows its '='.
 */
bool bp_opt_takes_value(const struct bp_opt *o);

/* The effective parameters as a JSON object keyed by long name, in base units. */
json_t *bp_opts_to_json(const struct bp_opt *table, const void *params);

#endif
