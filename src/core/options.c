#include "core/options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/clock.h"
#include "core/units.h"
#include "core/utf8.h"

const struct bp_opt bp_common_opt_table[] = {
	{ 'J', "json", BP_OPT_FLAG, offsetof(struct bp_common_opts, json), NULL, NULL, 0, 0, NULL,
	  "print the result as JSON (the contract in docs/json.md)" },
	{ 0, "json-stream", BP_OPT_FLAG, offsetof(struct bp_common_opts, json_stream), NULL, NULL,
	  0, 0, NULL, "print JSON Lines as the test runs: start, each interval, end (as iperf3)" },
	{ 0, "csv", BP_OPT_FLAG, offsetof(struct bp_common_opts, csv), NULL, NULL, 0, 0, NULL,
	  "print the result as CSV" },
	{ 0, "no-save", BP_OPT_FLAG, offsetof(struct bp_common_opts, no_save), NULL, NULL, 0, 0,
	  NULL, "do not save the result to the results database (see boardperf history)" },
	{ 0, "db", BP_OPT_STRING, offsetof(struct bp_common_opts, db), "FILE", NULL, 0, 0, NULL,
	  "the results database [default: $XDG_DATA_HOME/boardperf/results.db]" },
	{ 0, "label", BP_OPT_TEXT, offsetof(struct bp_common_opts, label), "NAME", NULL, 0, 0,
	  NULL, "a name for this run (the board, a setup), kept in params.label (UTF-8)" },
	{ 0, "repeat", BP_OPT_INT, offsetof(struct bp_common_opts, repeat), "N", NULL, 1,
	  BP_REPEAT_MAX, NULL, "run the test N times: median, min, max and CoV of its headline "
	  "figures, each run kept under results (with --until-stable: at most N) [default: once]" },
	{ 0, "until-stable", BP_OPT_NUMBER, offsetof(struct bp_common_opts, until_stable), "COV",
	  NULL, 0.01, 100, NULL, "repeat until the headline's coefficient of variation is at most "
	  "COV percent (at least 3 runs, at most --repeat, default 10); warns not-stable if not" },
	{ 'q', "quiet", BP_OPT_FLAG, offsetof(struct bp_common_opts, quiet), NULL, NULL, 0, 0, NULL,
	  "only errors on stderr" },
	{ 'v', "verbose", BP_OPT_COUNT, offsetof(struct bp_common_opts, verbose), NULL, NULL, 0, 0,
	  NULL, "more detail: every column, param and table, the long form of each warning, and "
	  "debug lines on stderr (twice: trace)" },
	{ 'h', "help", BP_OPT_FLAG, offsetof(struct bp_common_opts, help), NULL, NULL, 0, 0, NULL,
	  "show this help" },
	{ 0, "no-monitor", BP_OPT_FLAG, offsetof(struct bp_common_opts, no_monitor), NULL, NULL, 0,
	  0, NULL, "do not sample clocks, temperatures and other load during the test" },
	{ 0, "busy-warn", BP_OPT_NUMBER, offsetof(struct bp_common_opts, busy_warn), "PCT", "20",
	  0, 100, NULL, "warn busy-machine when other processes took more than PCT % of the CPUs" },
	{ 0, "start-at", BP_OPT_STRING, offsetof(struct bp_common_opts, start_at), "TIME", NULL, 0,
	  0, NULL, "start measuring at this wall-clock instant, RFC 3339 or epoch seconds (several "
	  "testers together; docs/json.md, \"A start at an instant\")" },
	BP_OPT_END,
};

bool bp_opt_is_end(const struct bp_opt *o)
{
	return !o->short_name && !o->long_name;
}

bool bp_opt_takes_value(const struct bp_opt *o)
{
	return o->type != BP_OPT_FLAG && o->type != BP_OPT_COUNT && o->type != BP_OPT_OPTINT;
}

/* "-t" or "--time": how the user names this option in messages. */
static const char *opt_label(const struct bp_opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static enum bp_unit_kind opt_unit_kind(enum bp_opt_type t)
{
	switch (t) {
	case BP_OPT_RATE: return BP_UNIT_RATE;
	case BP_OPT_SIZE: return BP_UNIT_SIZE;
	case BP_OPT_DURATION: return BP_UNIT_DURATION;
	case BP_OPT_NUMBER: return BP_UNIT_NUMBER;
	default: return BP_UNIT_INT;
	}
}

/* The unit in which the table writes min/max, for range messages. */
static const char *opt_range_unit(enum bp_opt_type t)
{
	switch (t) {
	case BP_OPT_RATE: return "bit/s";
	case BP_OPT_SIZE: return "B";
	case BP_OPT_DURATION: return "ns";
	default: return "";
	}
}

static int check_range(const struct bp_opt *o, const char *label, const char *text,
		       double v, char *err, size_t errlen)
{
	char lo[48], hi[48];
	double scale = o->type == BP_OPT_DURATION ? 1e9 : 1;
	const char *unit = opt_range_unit(o->type);

	if (o->min == 0 && o->max == 0)
		return 0;
	if (v >= o->min && v <= o->max)
		return 0;
	bp_format_value(lo, sizeof(lo), o->min * scale, unit);
	bp_format_value(hi, sizeof(hi), o->max * scale, unit);
	set_err(err, errlen, "%s '%s': out of range, expected %s to %s", label, text, lo, hi);
	return -ERANGE;
}

static int parse_choice(const struct bp_opt *o, const char *label, const char *text,
			int *out, char *err, size_t errlen)
{
	char list[256] = "";
	size_t used = 0;

	for (int i = 0; o->choices[i]; i++) {
		if (!strcmp(o->choices[i], text)) {
			*out = i;
			return 0;
		}
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					 "%s%s", i ? ", " : "", o->choices[i]);
	}
	set_err(err, errlen, "%s '%s': expected one of %s", label, text, list);
	return -EINVAL;
}

/*
 * A TEXT value: not empty, UTF-8 (a byte that is not would make the result drop the whole
 * value), not longer than max bytes. A long value is quoted only in part.
 */
static int check_text(const struct bp_opt *o, const char *label, const char *text,
		      char *err, size_t errlen)
{
	long bad = bp_utf8_invalid_at(text);
	size_t len = strlen(text);

	if (!len) {
		set_err(err, errlen, "%s '': expected %s", label, o->metavar ? o->metavar : "text");
		return -EINVAL;
	}
	if (bad >= 0) {
		set_err(err, errlen, "%s: byte %ld (0x%02x) is not UTF-8: expected text in UTF-8",
			label, bad, (unsigned)(unsigned char)text[bad]);
		return -EILSEQ;
	}
	if (o->max > 0 && (double)len > o->max) {
		set_err(err, errlen, "%s '%.*s%s': %zu bytes long, expected at most %.0f", label,
			len > 24 ? 24 : (int)len, text, len > 24 ? "..." : "", len, o->max);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Parse text as o's type into the field of params at o->offset. */
static int opt_store(const struct bp_opt *o, const char *label, void *params, const char *text,
		     char *err, size_t errlen)
{
	char *field = (char *)params + o->offset;
	int64_t i64 = 0;
	uint64_t u64 = 0;
	double d = 0;
	int rc = 0;

	switch (o->type) {
	case BP_OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case BP_OPT_COUNT:
		(*(int *)field)++;
		return 0;
	case BP_OPT_STRING:
		if (!*text) {
			set_err(err, errlen, "%s '': expected %s", label,
				o->metavar ? o->metavar : "a value");
			return -EINVAL;
		}
		*(const char **)field = text;
		return 0;
	case BP_OPT_TEXT:
		rc = check_text(o, label, text, err, errlen);
		if (!rc)
			*(const char **)field = text;
		return rc;
	case BP_OPT_CHOICE:
		return parse_choice(o, label, text, (int *)field, err, errlen);
	case BP_OPT_STRINGS: {
		struct bp_strings *list = (struct bp_strings *)field;

		if (!*text) {
			set_err(err, errlen, "%s '': expected %s", label,
				o->metavar ? o->metavar : "a value");
			return -EINVAL;
		}
		if (list->n == BP_STRINGS_MAX) {
			set_err(err, errlen, "%s '%s': at most %d of them", label, text,
				BP_STRINGS_MAX);
			return -E2BIG;
		}
		list->v[list->n++] = text;
		return 0;
	}
	case BP_OPT_INT:
	case BP_OPT_OPTINT:
		rc = bp_parse_int(text, &i64);
		d = (double)i64;
		break;
	case BP_OPT_NUMBER:
		rc = bp_parse_number(text, &d);
		/* a share in percent may say so: --max-failure-ratio 0.001% is 0.001 */
		if (rc && o->metavar && !strcmp(o->metavar, "PCT") && *text &&
		    text[strlen(text) - 1] == '%') {
			char num[64];

			if (strlen(text) < sizeof(num)) {
				snprintf(num, sizeof(num), "%.*s", (int)strlen(text) - 1, text);
				rc = bp_parse_number(num, &d);
			}
		}
		break;
	case BP_OPT_RATE:
		rc = bp_parse_rate(text, &d);
		break;
	case BP_OPT_SIZE:
		rc = bp_parse_size(text, &u64);
		d = (double)u64;
		break;
	case BP_OPT_DURATION:
		rc = bp_parse_duration(text, &u64);
		d = (double)u64 / 1e9;
		break;
	}
	if (rc == -ERANGE) {
		set_err(err, errlen, "%s '%s': out of range, expected %s", label, text,
			bp_units_expected(opt_unit_kind(o->type)));
		return rc;
	}
	if (rc) {
		set_err(err, errlen, "%s '%s': expected %s", label, text,
			bp_units_expected(opt_unit_kind(o->type)));
		return rc;
	}
	rc = check_range(o, label, text, d, err, errlen);
	if (rc)
		return rc;
	switch (o->type) {
	case BP_OPT_INT: case BP_OPT_OPTINT: *(int64_t *)field = i64; break;
	case BP_OPT_NUMBER: case BP_OPT_RATE: *(double *)field = d; break;
	case BP_OPT_SIZE: case BP_OPT_DURATION: *(uint64_t *)field = u64; break;
	default: break;
	}
	return 0;
}

int bp_opts_defaults(const struct bp_opt *table, void *params, char *err, size_t errlen)
{
	for (const struct bp_opt *o = table; !bp_opt_is_end(o); o++) {
		char label[64];
		int rc;

		if (!o->def || (!bp_opt_takes_value(o) && o->type != BP_OPT_OPTINT))
			continue;
		rc = opt_store(o, opt_label(o, label, sizeof(label)), params, o->def, err, errlen);
		if (rc)
			return rc; /* a bad default is a bug in the table; the message says where */
	}
	return 0;
}

/*
 * A command's own option of a common option's name replaces it (the parser looks in the
 * command's table first): compare's --json is its table's JSON, not a result document.
 */
static bool shadowed(const struct bp_opt *table, const struct bp_opt *common)
{
	for (const struct bp_opt *o = table; o && !bp_opt_is_end(o); o++)
		if (o->long_name && common->long_name && !strcmp(o->long_name, common->long_name))
			return true;
	return false;
}

/* The group of each common option a command may leave out (options.h); -q, -v, -h: none. */
static const struct {
	const char *name;
	unsigned group;
} common_groups[] = {
	{ "json", BP_COMMON_JSON },
	{ "json-stream", BP_COMMON_STREAM },
	{ "csv", BP_COMMON_CSV },
	{ "no-save", BP_COMMON_SAVE },
	{ "db", BP_COMMON_DB },
	{ "label", BP_COMMON_LABEL },
	{ "repeat", BP_COMMON_REPEAT },
	{ "until-stable", BP_COMMON_REPEAT },
	{ "no-monitor", BP_COMMON_MONITOR },
	{ "busy-warn", BP_COMMON_MONITOR },
	{ "start-at", BP_COMMON_START },
};

static unsigned group_of(const struct bp_opt *common)
{
	for (size_t i = 0; i < sizeof(common_groups) / sizeof(common_groups[0]); i++)
		if (!strcmp(common->long_name, common_groups[i].name))
			return common_groups[i].group;
	return 0;
}

/* The groups of common options the command of table does not take: its end row's. */
static unsigned refused_groups(const struct bp_opt *table)
{
	const struct bp_opt *o = table;

	if (!o)
		return 0;
	while (!bp_opt_is_end(o))
		o++;
	return (unsigned)o->offset;
}

/* A common option the command of table has: it takes its group and has no option of its name. */
static bool common_taken(const struct bp_opt *table, const struct bp_opt *common)
{
	return !(group_of(common) & refused_groups(table)) && !shadowed(table, common);
}

/* Find an option by long name (name may end at '=') in the command table, then common. */
static const struct bp_opt *find_long(const struct bp_opt *const tables[2], const char *name,
				      size_t namelen, int *which)
{
	for (int t = 0; t < 2; t++)
		for (const struct bp_opt *o = tables[t]; !bp_opt_is_end(o); o++)
			if (o->long_name && strlen(o->long_name) == namelen &&
			    !strncmp(o->long_name, name, namelen)) {
				*which = t;
				return o;
			}
	return NULL;
}

static const struct bp_opt *find_short(const struct bp_opt *const tables[2], char c, int *which)
{
	for (int t = 0; t < 2; t++)
		for (const struct bp_opt *o = tables[t]; !bp_opt_is_end(o); o++)
			if (o->short_name == c) {
				*which = t;
				return o;
			}
	return NULL;
}

struct parse_state {
	struct bp_parsed *parsed;
	const struct bp_opt *tables[2];
	void *targets[2];
	int argc;
	char **argv;
	int i;       /* index of the argument being read */
	char *err;
	size_t errlen;
};

/* A common option the command leaves out is no option of it: false, with the message. */
static bool taken(struct parse_state *ps, const struct bp_opt *o, int which, const char *label)
{
	struct bp_parsed *p = ps->parsed;
	bool seen = false;

	for (int i = 0; i < p->ngiven && !seen; i++)
		seen = p->given[i] == o;
	if (!seen && p->ngiven < BP_MAX_GIVEN)
		p->given[p->ngiven++] = o;
	if (which == 0 || !(group_of(o) & refused_groups(ps->tables[0])))
		return true;
	set_err(ps->err, ps->errlen, "%s is not an option of this command", label);
	return false;
}

/* The value for an option: the rest of this argument, or the next argument. */
static int take_value(struct parse_state *ps, const struct bp_opt *o, const char *label,
		      const char *inline_val, const char **val)
{
	if (inline_val) {
		*val = inline_val;
		return 0;
	}
	if (ps->i + 1 >= ps->argc) {
		set_err(ps->err, ps->errlen, "%s needs a value: expected %s", label,
			o->type == BP_OPT_STRING || o->type == BP_OPT_CHOICE ||
			o->type == BP_OPT_STRINGS || o->type == BP_OPT_TEXT ?
			(o->metavar ? o->metavar : "a value") :
			bp_units_expected(opt_unit_kind(o->type)));
		return -EINVAL;
	}
	*val = ps->argv[++ps->i];
	return 0;
}

static int parse_long(struct parse_state *ps, const char *arg)
{
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t namelen = eq ? (size_t)(eq - name) : strlen(name);
	const char *val = NULL;
	int which = 0;
	const struct bp_opt *o = find_long(ps->tables, name, namelen, &which);
	char label[64];
	int rc;

	if (!o) {
		set_err(ps->err, ps->errlen, "unknown option '--%.*s'", (int)namelen, name);
		return -EINVAL;
	}
	snprintf(label, sizeof(label), "--%s", o->long_name);
	if (!taken(ps, o, which, label))
		return -EINVAL;
	if (o->type == BP_OPT_OPTINT)
		return opt_store(o, label, ps->targets[which], eq ? eq + 1 : "1", ps->err,
				 ps->errlen);
	if (!bp_opt_takes_value(o) && eq) {
		set_err(ps->err, ps->errlen, "--%s takes no value (got '%s')", o->long_name, eq + 1);
		return -EINVAL;
	}
	if (bp_opt_takes_value(o)) {
		rc = take_value(ps, o, label, eq ? eq + 1 : NULL, &val);
		if (rc)
			return rc;
	}
	return opt_store(o, label, ps->targets[which], val, ps->err, ps->errlen);
}

/* "-J", "-qv" (a cluster of flags), "-t10" or "-t 10". */
static int parse_short(struct parse_state *ps, const char *arg)
{
	for (const char *p = arg + 1; *p; p++) {
		int which = 0;
		const struct bp_opt *o = find_short(ps->tables, *p, &which);
		const char *val = NULL;
		char label[4] = { '-', *p, 0 };
		int rc;

		if (!o) {
			set_err(ps->err, ps->errlen, "unknown option '-%c'", *p);
			return -EINVAL;
		}
		if (!taken(ps, o, which, label))
			return -EINVAL;
		if (!bp_opt_takes_value(o)) {
			rc = opt_store(o, label, ps->targets[which],
				       o->type == BP_OPT_OPTINT ? "1" : NULL, ps->err, ps->errlen);
			if (rc)
				return rc;
			continue;
		}
		rc = take_value(ps, o, label, p[1] ? p + 1 : NULL, &val);
		if (rc)
			return rc;
		return opt_store(o, label, ps->targets[which], val, ps->err, ps->errlen);
	}
	return 0;
}

static int add_positional(struct parse_state *ps, struct bp_parsed *parsed, const char *arg)
{
	if (parsed->npos >= BP_MAX_POSITIONAL) {
		set_err(ps->err, ps->errlen, "too many arguments at '%s' (at most %d)", arg,
			BP_MAX_POSITIONAL);
		return -EINVAL;
	}
	parsed->pos[parsed->npos++] = arg;
	return 0;
}

int bp_opts_parse(const struct bp_opt *table, void *params,
		  struct bp_common_opts *common, struct bp_parsed *parsed,
		  int argc, char **argv, char *err, size_t errlen)
{
	struct parse_state ps = {
		.parsed = parsed,
		.tables = { table, bp_common_opt_table },
		.targets = { params, common },
		.argc = argc, .argv = argv, .err = err, .errlen = errlen,
	};
	bool only_positional = false;
	int rc;

	memset(common, 0, sizeof(*common));
	memset(parsed, 0, sizeof(*parsed));
	rc = bp_opts_defaults(table, params, err, errlen);
	if (!rc)
		rc = bp_opts_defaults(bp_common_opt_table, common, err, errlen);
	if (rc)
		return rc;
	for (ps.i = 0; ps.i < argc; ps.i++) {
		const char *arg = argv[ps.i];

		if (only_positional || arg[0] != '-' || !arg[1])
			rc = add_positional(&ps, parsed, arg);
		else if (!strcmp(arg, "--"))
			only_positional = true;
		else if (arg[1] == '-')
			rc = parse_long(&ps, arg);
		else
			rc = parse_short(&ps, arg);
		if (rc)
			return rc;
	}
	return 0;
}

bool bp_parsed_given(const struct bp_parsed *parsed, const char *long_name)
{
	for (int i = 0; parsed && long_name && i < parsed->ngiven; i++)
		if (parsed->given[i]->long_name && !strcmp(parsed->given[i]->long_name, long_name))
			return true;
	return false;
}

const struct bp_opt *bp_opts_next(const struct bp_opt *table, const struct bp_opt *prev)
{
	bool in_table = !prev;
	const struct bp_opt *o;

	for (const struct bp_opt *t = table; prev && t && !bp_opt_is_end(t); t++)
		if (t == prev)
			in_table = true;
	if (in_table) {
		o = prev ? prev + 1 : table;
		if (o && !bp_opt_is_end(o))
			return o;
		o = bp_common_opt_table;
	} else {
		o = prev + 1;
	}
	for (; !bp_opt_is_end(o); o++)
		if (common_taken(table, o))
			return o;
	return NULL;
}

static json_t *opt_value_json(const struct bp_opt *o, const void *params)
{
	const char *field = (const char *)params + o->offset;

	switch (o->type) {
	case BP_OPT_FLAG: return json_boolean(*(const bool *)field);
	case BP_OPT_COUNT: return json_integer(*(const int *)field);
	case BP_OPT_INT: case BP_OPT_OPTINT:
		return json_integer((json_int_t)*(const int64_t *)field);
	case BP_OPT_NUMBER: case BP_OPT_RATE: return json_real(*(const double *)field);
	case BP_OPT_SIZE: return json_integer((json_int_t)*(const uint64_t *)field);
	case BP_OPT_DURATION:
		/* Seconds, as iperf3's JSON gives durations; metrics use ns. */
		return json_real((double)*(const uint64_t *)field / 1e9);
	case BP_OPT_STRING: case BP_OPT_TEXT: {
		const char *s = *(const char *const *)field;

		return s ? json_string(s) : json_null();
	}
	case BP_OPT_CHOICE:
		return json_string(o->choices[*(const int *)field]);
	case BP_OPT_STRINGS: {
		const struct bp_strings *list = (const struct bp_strings *)field;
		json_t *a = json_array();

		for (int i = 0; a && i < list->n; i++)
			json_array_append_new(a, json_string(list->v[i]));
		return a ? a : json_null();
	}
	}
	return json_null();
}

json_t *bp_opts_defaulted(const struct bp_opt *table, const void *params, size_t params_size)
{
	void *scratch = calloc(1, params_size ? params_size : 1);
	json_t *now = NULL, *was = NULL, *same = NULL, *v;
	const char *key;
	char err[160];

	if (scratch && !bp_opts_defaults(table, scratch, err, sizeof(err))) {
		now = bp_opts_to_json(table, params);
		was = bp_opts_to_json(table, scratch);
		same = now && was ? json_object() : NULL;
	}
	json_object_foreach(now, key, v)
		if (same && json_equal(v, json_object_get(was, key)))
			json_object_set_new(same, key, json_true());
	json_decref(now);
	json_decref(was);
	free(scratch);
	return same;
}

json_t *bp_opts_to_json(const struct bp_opt *table, const void *params)
{
	json_t *obj = json_object();

	for (const struct bp_opt *o = table; obj && !bp_opt_is_end(o); o++) {
		char key[2] = { o->short_name, 0 };

		json_object_set_new(obj, o->long_name ? o->long_name : key,
				    opt_value_json(o, params));
	}
	return obj;
}

int bp_check_no_positional(const struct bp_parsed *parsed, char *err, size_t errlen)
{
	if (!parsed->npos)
		return 0;
	snprintf(err, errlen, "unexpected argument '%s'", parsed->pos[0]);
	return -EINVAL;
}

int bp_check_exclusive(bool a, const char *a_name, bool b, const char *b_name,
		       char *err, size_t errlen)
{
	if (!a || !b)
		return 0;
	snprintf(err, errlen, "%s and %s exclude each other: choose one", a_name, b_name);
	return -EINVAL;
}
