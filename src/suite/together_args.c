#include "suite/together_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/unconst.h"

/* The next word at *p, unquoted into *out with its NUL; *got false at the line's end. */
static int next_word(const char **p, char **out, bool *got, char *err, size_t errlen)
{
	const char *s = *p;
	char quote = 0;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	*got = *s != '\0';
	if (!*got)
		return 0;
	for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
		if (quote && *s == quote) {
			quote = 0;
		} else if (!quote && (*s == '\'' || *s == '"')) {
			quote = *s;
		} else if (*s == '\\' && quote != '\'' && s[1]) {
			*(*out)++ = *++s;
		} else {
			*(*out)++ = *s;
		}
	}
	if (quote) {
		snprintf(err, errlen, "unterminated %c quote", quote);
		return -EINVAL;
	}
	*(*out)++ = '\0';
	*p = s;
	return 0;
}

int bp_inner_split(const char *line, struct bp_inner *in, char *err, size_t errlen)
{
	const char *p = line;
	char *out;
	bool got;
	int rc;

	in->line = line;
	in->argc = 0;
	in->buf = malloc(strlen(line) + 1);
	if (!in->buf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	out = in->buf;
	for (;;) {
		char *word = out;

		rc = next_word(&p, &out, &got, err, errlen);
		if (rc)
			return rc;
		if (!got)
			break;
		if (in->argc == BP_TOGETHER_WORDS) {
			snprintf(err, errlen, "more than %d words", BP_TOGETHER_WORDS);
			return -EINVAL;
		}
		in->argv[in->argc++] = word;
	}
	if (!in->argc) {
		snprintf(err, errlen, "empty command line");
		return -EINVAL;
	}
	in->argv[in->argc] = NULL;
	return 0;
}

/* The command's -t (a duration): where it keeps it, or NULL when it has none. */
static const struct bp_opt *time_option(const struct bp_test *t)
{
	for (const struct bp_opt *o = t->opts; o && (o->long_name || o->short_name); o++)
		if (o->short_name == 't' && o->type == BP_OPT_DURATION)
			return o;
	return NULL;
}

static int refuse(const struct bp_test *t, char *err, size_t errlen)
{
	if (t->no_result || t->check_inner) {
		snprintf(err, errlen, "'%s' cannot run beside another test (a service or a "
			 "suite); give tests such as tcp, udp, disk, cpu", t->name);
		return -EINVAL;
	}
	if (!time_option(t)) {
		snprintf(err, errlen, "'%s' has no -t duration to run for beside the others",
			 t->name);
		return -EINVAL;
	}
	return 0;
}

static int parse_words(struct bp_inner *in, const struct bp_test *(*find)(const char *name),
		       uint64_t time_ns, char *err, size_t errlen)
{
	const struct bp_opt *tt;
	int rc;

	in->t = find ? find(in->argv[0]) : NULL;
	if (!in->t) {
		snprintf(err, errlen, "unknown command '%s'", in->argv[0]);
		return -EINVAL;
	}
	rc = refuse(in->t, err, errlen);
	if (rc)
		return rc;
	if (time_ns) {
		snprintf(in->time_arg, sizeof(in->time_arg), "%.9g", (double)time_ns / 1e9);
		in->argv[in->argc++] = "-t";
		in->argv[in->argc++] = in->time_arg;
		in->argv[in->argc] = NULL;
	}
	in->params = calloc(1, in->t->params_size ? in->t->params_size : 1);
	if (!in->params) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The option engine only reads argv: it takes char ** as main() has it. */
	rc = bp_opts_parse(in->t->opts, in->params, &in->common, &in->parsed, in->argc - 1,
			   (char **)bp_unconst(in->argv) + 1, err, errlen);
	if (!rc && in->t->check)
		rc = in->t->check(in->params, &in->parsed, err, errlen);
	tt = time_option(in->t);
	if (!rc)
		memcpy(&in->time_ns, (const char *)in->params + tt->offset, sizeof(in->time_ns));
	return rc;
}

int bp_inner_parse(struct bp_inner *in, int n, const char *line,
		   const struct bp_test *(*find)(const char *name), uint64_t time_ns,
		   char *err, size_t errlen)
{
	char why[400] = "";
	int rc;

	memset(in, 0, sizeof(*in));
	rc = bp_inner_split(line, in, why, sizeof(why));
	if (!rc)
		rc = parse_words(in, find, time_ns, why, sizeof(why));
	if (rc)
		snprintf(err, errlen, "test %d ('%s'): %s", n, line, why);
	return rc;
}

void bp_inner_free(struct bp_inner *in)
{
	free(in->buf);
	free(in->params);
	in->buf = NULL;
	in->params = NULL;
}
