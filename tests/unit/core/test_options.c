/* The option-table engine: parsing every form, defaults, ranges, messages, help, JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "core/options.h"
#include "tap.h"

struct params {
	bool reverse;
	int64_t streams;
	double rate;
	uint64_t len;
	uint64_t time;
	const char *host;
	int mode;
	double loss;
};

static const char *const modes[] = { "rndrw", "seqrd", NULL };

static const struct bp_opt table[] = {
	{ 'R', "reverse", BP_OPT_FLAG, offsetof(struct params, reverse), NULL, NULL, 0, 0, NULL,
	  "server sends" },
	{ 'P', "parallel", BP_OPT_INT, offsetof(struct params, streams), "N", "1", 1, 128, NULL,
	  "parallel streams" },
	{ 'b', "bitrate", BP_OPT_RATE, offsetof(struct params, rate), "RATE", "1M", 0, 100e9, NULL,
	  "target rate" },
	{ 'l', "length", BP_OPT_SIZE, offsetof(struct params, len), "LEN", "128K", 1, 1 << 30, NULL,
	  "write size" },
	{ 't', "time", BP_OPT_DURATION, offsetof(struct params, time), "S", "10", 0.1, 86400, NULL,
	  "duration" },
	{ 'c', "client", BP_OPT_STRING, offsetof(struct params, host), "HOST", NULL, 0, 0, NULL,
	  "server to test against" },
	{ 0, "mode", BP_OPT_CHOICE, offsetof(struct params, mode), "MODE", "rndrw", 0, 0, modes,
	  "workload" },
	{ 0, "loss", BP_OPT_NUMBER, offsetof(struct params, loss), "PCT", "0", 0, 100, NULL,
	  "accepted loss" },
	BP_OPT_END,
};

static int parse(struct params *p, struct bp_common_opts *c, struct bp_parsed *parsed,
		 char *err, size_t errlen, int argc, ...)
{
	char *argv[32];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	memset(p, 0, sizeof(*p));
	err[0] = '\0';
	return bp_opts_parse(table, p, c, parsed, argc, argv, err, errlen);
}

static void test_defaults(void)
{
	struct params p;
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[256];

	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 0), 0);
	CHECK(!p.reverse);
	CHECK_INT(p.streams, 1);
	CHECK_NEAR(p.rate, 1e6, 0);
	CHECK_INT(p.len, 131072);
	CHECK_INT(p.time, 10000000000ULL);
	CHECK(p.host == NULL);
	CHECK_INT(p.mode, 0);
	CHECK(!c.json && !c.help && c.verbose == 0);
}

static void test_forms(void)
{
	struct params p;
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[256];

	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 10, "-c", "198.18.0.2", "-P4", "-R",
			"--bitrate=1.5G", "--length", "64K", "-t", "500ms", "--mode=seqrd"), 0);
	CHECK_STR(p.host, "198.18.0.2");
	CHECK_INT(p.streams, 4);
	CHECK(p.reverse);
	CHECK_NEAR(p.rate, 1.5e9, 0);
	CHECK_INT(p.len, 65536);
	CHECK_INT(p.time, 500000000ULL);
	CHECK_INT(p.mode, 1);
	/* a share in percent (metavar PCT) may end in '%' */
	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 2, "--loss", "0.001%"), 0);
	CHECK_NEAR(p.loss, 0.001, 0);
	/* A cluster of flags, a count, common options and positionals around them. */
	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 6, "http://x/", "-RJvv", "--csv",
			"--", "-notanoption", "third"), 0);
	CHECK(p.reverse && c.json && c.csv);
	CHECK_INT(c.verbose, 2);
	CHECK_INT(parsed.npos, 3);
	CHECK_STR(parsed.pos[0], "http://x/");
	CHECK_STR(parsed.pos[1], "-notanoption");
	CHECK_STR(parsed.pos[2], "third");
}

static void test_errors(void)
{
	static const struct { const char *a, *b, *msg; } bad[] = {
		{ "-t", "ten", "-t 'ten': expected a duration such as 10, 10s, 500ms or 2m" },
		{ "-t", "0", "-t '0': out of range, expected 100 ms to 86400 s" },
		{ "-P", "0", "-P '0': out of range, expected 1 to 128" },
		{ "-P", "4x", "-P '4x': expected an integer such as 4" },
		{ "-b", "12x", "-b '12x': expected a rate in bit/s such as 100M, 1.5G or 64k" },
		{ "-b", "200G", "-b '200G': out of range, expected 0 bit/s to 100 Gbit/s" },
		{ "-l", "0", "-l '0': out of range, expected 1 B to 1.00 GiB" },
		{ "--mode", "x", "--mode 'x': expected one of rndrw, seqrd" },
		{ "--loss", "101", "--loss '101': out of range, expected 0 to 100" },
		{ "--loss", "101%", "--loss '101%': out of range, expected 0 to 100" },
		{ "--loss", "1%%", "--loss '1%%': expected a number such as 2.5" },
		{ "-P", "4%", "-P '4%': expected an integer such as 4" },
		{ "--nope", "1", "unknown option '--nope'" },
		{ "-x", "1", "unknown option '-x'" },
		{ "--reverse=1", "a", "--reverse takes no value (got '1')" },
		{ "-c", "", "-c '': expected HOST" },
	};
	struct params p;
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(parse(&p, &c, &parsed, err, sizeof(err), 2, bad[i].a, bad[i].b) < 0);
		CHECK_STR(err, bad[i].msg);
	}
	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 1, "-t"), -EINVAL);
	CHECK_STR(err, "-t needs a value: expected a duration such as 10, 10s, 500ms or 2m");
	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 1, "--client"), -EINVAL);
	CHECK_STR(err, "--client needs a value: expected HOST");
}

/*
 * TEXT: UTF-8 (a byte that is not is named by its offset: JSON would drop the value) and
 * at most max bytes (a long value quoted only in part); the common --label is TEXT.
 */
static void test_text(void)
{
	struct text_params { const char *cc; } p;
	static const struct bp_opt text_table[] = {
		{ 'C', "congestion", BP_OPT_TEXT, offsetof(struct text_params, cc), "ALGO", NULL, 0,
		  15, NULL, "congestion control" },
		BP_OPT_END,
	};
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[256], long_name[200], *argv[3] = { "-C", NULL, NULL };

	memset(&p, 0, sizeof(p));
	memset(&c, 0, sizeof(c));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	argv[1] = "cubic";
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)), 0);
	CHECK_STR(p.cc, "cubic");
	argv[1] = "abcdefghijklmno";  /* 15: the most */
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)), 0);
	argv[1] = long_name;
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)),
		  -ENAMETOOLONG);
	CHECK_STR(err, "-C 'aaaaaaaaaaaaaaaaaaaaaaaa...': 199 bytes long, expected at most 15");
	argv[1] = "d\xc3\xa9j\xe0";  /* é is fine; a lone lead byte at offset 4 is not */
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)), -EILSEQ);
	CHECK_STR(err, "-C: byte 4 (0xe0) is not UTF-8: expected text in UTF-8");
	argv[0] = "--label";
	argv[1] = "rpi\xff";
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)), -EILSEQ);
	CHECK_STR(err, "--label: byte 3 (0xff) is not UTF-8: expected text in UTF-8");
	argv[1] = "r\xc3\xa9seau \xe2\x82\xac";
	CHECK_INT(bp_opts_parse(text_table, &p, &c, &parsed, 2, argv, err, sizeof(err)), 0);
	CHECK_STR(c.label, "r\xc3\xa9seau \xe2\x82\xac");
}

static void test_help_and_json(void)
{
	struct params p;
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *j;

	bp_opts_help(f, "tcp", "-c HOST [-t S]", "TCP throughput", table);
	fclose(f);
	CHECK(strstr(buf, "Usage: boardperf tcp -c HOST [-t S]\n") == buf);
	CHECK(strstr(buf, "  -P, --parallel N") != NULL);
	CHECK(strstr(buf, "[default: 128K]") != NULL);
	CHECK(strstr(buf, "(rndrw|seqrd)") != NULL);
	CHECK(strstr(buf, "      --csv") != NULL);
	free(buf);

	CHECK_INT(parse(&p, &c, &parsed, err, sizeof(err), 2, "-t", "2m"), 0);
	j = bp_opts_to_json(table, &p);
	CHECK_NEAR(json_real_value(json_object_get(j, "time")), 120.0, 0);
	CHECK_INT(json_integer_value(json_object_get(j, "length")), 131072);
	CHECK_STR(json_string_value(json_object_get(j, "mode")), "rndrw");
	CHECK(json_is_null(json_object_get(j, "client")));
	CHECK(json_is_false(json_object_get(j, "reverse")));
	json_decref(j);
}

/* A table of the other forms: a common option replaced, a repeatable one, --x[=N]. */
struct more {
	bool json;
	struct bp_strings headers;
	int64_t readback;
};

static const struct bp_opt more_table[] = {
	{ 0, "json", BP_OPT_FLAG, offsetof(struct more, json), NULL, NULL, 0, 0, NULL,
	  "the table as JSON" },
	{ 'H', "header", BP_OPT_STRINGS, offsetof(struct more, headers), "'NAME: VALUE'", NULL, 0, 0,
	  NULL, "send this header" },
	{ 0, "readback", BP_OPT_OPTINT, offsetof(struct more, readback), "N", "0", 0, 100, NULL,
	  ".every Nth write" },
	BP_OPT_END,
};

static char *man_of(const struct bp_opt *t, bool common)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	bp_opts_man(f, t, common);
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The man page's entries: the same names, value and text as --help, in roff. */
static void test_man(void)
{
	char *m = man_of(table, true);
	int ncommon = 0, n = 0, njson = 0;
	const struct bp_opt *o;

	CHECK(m && strstr(m, ".TP\n\\fB\\-P\\fR, \\fB\\-\\-parallel\\fR \\fIN\\fR\n"
			    "parallel streams [default: 1]\n") == m + strlen(".TP\n\\fB\\-R\\fR, "
			    "\\fB\\-\\-reverse\\fR\nserver sends\n"));
	CHECK(m && strstr(m, ".TP\n\\fB\\-\\-mode\\fR \\fIMODE\\fR\n"
			    "workload (rndrw|seqrd) [default: rndrw]\n"));
	CHECK(m && strstr(m, ".TP\n\\fB\\-J\\fR, \\fB\\-\\-json\\fR\n"));
	CHECK(m && strstr(m, "\\fB\\-\\-db\\fR \\fIFILE\\fR\n"));
	/* every option once: the table's, then every common one */
	for (o = bp_common_opt_table; o->short_name || o->long_name; o++)
		ncommon++;
	CHECK_INT(count(m, ".TP\n"), 8 + ncommon);
	free(m);

	m = man_of(table, false);
	CHECK_INT(count(m, ".TP\n"), 8);
	CHECK(m && !strstr(m, "json"));
	free(m);

	/* the table's --json replaces the common one; 'x' and [=N] as --help writes them */
	m = man_of(more_table, true);
	CHECK_INT(count(m, "\\-\\-json\\fR"), 1);
	CHECK(m && strstr(m, ".TP\n\\fB\\-\\-json\\fR\nthe table as JSON\n") == m);
	CHECK(m && strstr(m, ".TP\n\\fB\\-H\\fR, \\fB\\-\\-header\\fR "
			    "\\fI\\(aqNAME: VALUE\\(aq\\fR\nsend this header (repeatable)\n"));
	CHECK(m && strstr(m, ".TP\n\\fB\\-\\-readback\\fR[=\\fIN\\fR]\n\\&.every Nth write\n"));
	CHECK_INT(count(m, ".TP\n"), 3 + ncommon - 1);
	free(m);

	/* bp_opts_next: the same order, the replaced common option left out */
	o = bp_opts_next(more_table, NULL);
	CHECK(o == &more_table[0]);
	for (; o; o = bp_opts_next(more_table, o)) {
		njson += o->long_name && !strcmp(o->long_name, "json");
		n++;
	}
	CHECK_INT(n, 3 + ncommon - 1);
	CHECK_INT(njson, 1);
	CHECK(bp_opts_next(NULL, NULL) == bp_common_opt_table);
	CHECK(!bp_opt_takes_value(&more_table[0]) && bp_opt_takes_value(&more_table[1]) &&
	      !bp_opt_takes_value(&more_table[2]));
}

/* A command that leaves out common groups: not parsed, not listed, not in its --help. */
static const struct bp_opt lean_table[] = {
	{ 'x', "extra", BP_OPT_FLAG, 0, NULL, NULL, 0, 0, NULL, "an option of its own" },
	BP_OPT_END_WITHOUT(BP_COMMON_REPEAT | BP_COMMON_MONITOR),
};

static void test_common_groups(void)
{
	bool extra = false;
	struct bp_common_opts c;
	struct bp_parsed parsed;
	char err[160] = "", *help = NULL;
	size_t len = 0;
	FILE *f;
	char *rep[] = { "--repeat", "2" }, *mon[] = { "-x", "--no-monitor" }, *ok[] = { "-xJ",
		"--db=x.db", "-q" };
	int n = 0, nrepeat = 0;

	CHECK_INT(bp_opts_parse(lean_table, &extra, &c, &parsed, 2, rep, err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "--repeat is not an option of this command");
	CHECK_INT(bp_opts_parse(lean_table, &extra, &c, &parsed, 2, mon, err, sizeof(err)),
		  -EINVAL);
	CHECK_STR(err, "--no-monitor is not an option of this command");
	CHECK_INT(bp_opts_parse(lean_table, &extra, &c, &parsed, 3, ok, err, sizeof(err)), 0);
	CHECK(extra && c.json && c.quiet && c.db && !strcmp(c.db, "x.db"));
	for (const struct bp_opt *o = bp_opts_next(lean_table, NULL); o;
	     o = bp_opts_next(lean_table, o)) {
		nrepeat += !strcmp(o->long_name, "repeat") || !strcmp(o->long_name, "until-stable") ||
			   !strcmp(o->long_name, "no-monitor") || !strcmp(o->long_name, "busy-warn");
		n++;
	}
	CHECK_INT(nrepeat, 0);
	/* its own, and every common one but the four it leaves out */
	for (const struct bp_opt *o = bp_common_opt_table; !bp_opt_is_end(o); o++)
		n--;
	CHECK_INT(n, 1 - 4);
	f = open_memstream(&help, &len);
	if (f) {
		setenv("COLUMNS", "60", 1);
		bp_opts_help(f, "lean", "[-x] [--a-rather-long-option-name VALUE]", "a summary that "
			     "goes on and on, past the width of the narrow terminal it is on", lean_table);
		fclose(f);
	}
	CHECK(help && !strstr(help, "--repeat") && !strstr(help, "--no-monitor") &&
	      strstr(help, "  -x, --extra                an option of its own\n"));
	/* filled to $COLUMNS (no terminal): the synopsis under its start, the summary wrapped */
	CHECK(help && strstr(help, "Usage: boardperf lean [-x]\n"
				   "                      [--a-rather-long-option-name VALUE]\n"));
	CHECK(help && strstr(help, "narrow\nterminal it is on\n"));
	for (char *l = help; l && *l; l = strchr(l, '\n') + 1)
		CHECK(strcspn(l, "\n") <= 60);
	free(help);
	unsetenv("COLUMNS");
}

int main(void)
{
	test_defaults();
	test_forms();
	test_errors();
	test_text();
	test_help_and_json();
	test_man();
	test_common_groups();
	return tap_done();
}
