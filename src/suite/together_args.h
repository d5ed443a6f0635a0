/*
 * The inner command lines of `boardperf together` ("tcp -c HOST -t 20", "disk --dir
 * /mnt/usb"): each split into words as a shell would (blanks apart, '...' and "..." quote,
 * a backslash escapes the next character), then parsed by its own command's option table
 * and check, so a bad one is that command's usage error, named by its number and text.
 */
#ifndef BP_SUITE_TOGETHER_ARGS_H
#define BP_SUITE_TOGETHER_ARGS_H

#include <stdint.h>

#include "core/options.h"
#include "core/test.h"

/* Tests run at once; words in one command line. */
#define BP_TOGETHER_MAX 8
#define BP_TOGETHER_WORDS 64

struct bp_inner {
	const char *line;          /* as the user gave it */
	char *buf;                 /* the words, each NUL-terminated (malloc'd) */
	/* argv[0] is the command; room for together's "-t S" and the NULL after the words */
	const char *argv[BP_TOGETHER_WORDS + 3];
	int argc;
	char time_arg[32];
	const struct bp_test *t;
	void *params;              /* filled by the command's table (malloc'd) */
	struct bp_common_opts common;
	struct bp_parsed parsed;
	uint64_t time_ns;          /* its effective -t, 0 when it has none */
};

/*
 * Split line into in->argv. 0, or -EINVAL with the reason ("unterminated quote",
 * "empty command line", "more than 64 words") in err; in->buf then needs bp_inner_free.
 */
int bp_inner_split(const char *line, struct bp_inner *in, char *err, size_t errlen);

/*
 * Split and parse test number n (from 1) of line: the command through find, its table,
 * its check; with time_ns (not 0) "-t S" after its own words, so that together's -t is
 * every test's. A command that cannot run beside another (a service, a suite, one
 * without -t) is refused. 0, or -EINVAL with "test N ('LINE'): reason" in err.
 */
int bp_inner_parse(struct bp_inner *in, int n, const char *line,
		   const struct bp_test *(*find)(const char *name), uint64_t time_ns,
		   char *err, size_t errlen);

void bp_inner_free(struct bp_inner *in);

#endif
