#include "result/text_brief.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/term.h"
#include "core/unconst.h"
#include "result/text_table.h"
#include "result/text_tree.h"

int bp_text_cols(const struct bp_result *r)
{
	return r->text_width ? r->text_width : BP_TERM_DEFAULT_WIDTH;
}

int bp_text_fill_line(FILE *out, const struct bp_result *r, const char *line)
{
	bp_term_fill(out, line, 0, 2, bp_text_cols(r));
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/* false, 0 and "": an option the run left off, which the default text does not list. */
static bool left_off(const json_t *v)
{
	return json_is_false(v) || (json_is_number(v) && json_number_value(v) == 0) ||
	       (json_is_string(v) && !*json_string_value(v));
}

/* key=value pairs, nested objects flattened to dotted keys; values with blanks quoted. */
static int params_of(FILE *out, const json_t *obj, const char *prefix, bool all,
		     const json_t *defaulted)
{
	const char *key;
	json_t *val;
	int err = 0;

	json_object_foreach(bp_unconst(obj), key, val) {
		char *s;

		/* a null is an option left unset: the JSON records it, the text leaves it out */
		if (json_is_null(val) || (!all && left_off(val)))
			continue;
		/* an option at its default: the run did not set it */
		if (!all && !*prefix && json_object_get(defaulted, key))
			continue;
		if (json_is_object(val) && json_object_size(val)) {
			char *sub;

			if (asprintf(&sub, "%s%s.", prefix, key) < 0)
				return -ENOMEM;
			err = params_of(out, val, sub, all, NULL);
			free(sub);
			if (err)
				return err;
			continue;
		}
		s = bp_json_inline_text(val, BP_SCALAR_PLAIN);
		if (!s)
			return -ENOMEM;
		bp_text_clean(s);
		fprintf(out, strchr(s, ' ') || !*s ? " %s%s=\"%s\"" : " %s%s=%s", prefix, key, s);
		free(s);
	}
	return 0;
}

int bp_text_params(FILE *out, const struct bp_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int err;

	if (!json_is_object(r->params) || !json_object_size(r->params))
		return 0;
	m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	fputs("params:", m);
	err = params_of(m, r->params, "", r->text_verbose > 0, r->params_defaulted);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err && strcmp(text, "params:"))
		err = bp_text_fill_line(out, r, text);
	free(text);
	return err;
}

/* "local" is this side, "remote" the peer; other records keep their key. */
static const char *side_name(const char *key)
{
	return !strcmp(key, "local") ? "this side" : !strcmp(key, "remote") ? "peer" : key;
}

static double number_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void cpu_summary(FILE *m, const json_t *cpu)
{
	const char *key, *sep = "tester cpu: ";
	json_t *side;

	json_object_foreach(bp_unconst(cpu), key, side) {
		double total = number_at(side, "total_percent");
		double busiest = number_at(side, "busiest_worker_percent");

		if (!isfinite(total))
			continue;
		fprintf(m, "%s%s %.1f %%", sep, side_name(key), total);
		/* a worker apart from the side's total: one busier than the rest */
		if (isfinite(busiest) && fabs(busiest - total) >= 1.0)
			fprintf(m, " (busiest worker %.1f %%)", busiest);
		sep = ", ";
	}
}

size_t bp_text_widest(const char *text)
{
	size_t widest = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text), w = 0;

		for (size_t i = 0; i < n; i++)
			w += ((unsigned char)text[i] & 0xc0) != 0x80;
		widest = w > widest ? w : widest;
		text += n + (nl != NULL);
	}
	return widest;
}

/* The table, printed when it fits the width (or with -v); else false. */
static bool cpu_table(FILE *out, const struct bp_result *r, int *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool fits;

	if (!m) {
		*err = -ENOMEM;
		return true;
	}
	if (bp_json_is_records(r->cpu)) {
		*err = bp_text_records(m, r->cpu, "tester cpu", 0);
	} else {
		fputs("tester cpu\n", m);
		*err = bp_text_tree(m, r->cpu, 2);
	}
	if (fclose(m) && !*err)
		*err = -ENOMEM;
	fits = !*err && bp_text_widest(text) <= (size_t)bp_text_cols(r);
	if (!*err && (fits || r->text_verbose > 0))
		fputs(text, out);
	free(text);
	return *err || fits || r->text_verbose > 0;
}

int bp_text_print_if_fits(FILE *out, const struct bp_result *r,
			  int (*print)(FILE *out, const struct bp_result *r, const void *arg),
			  const void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int err;

	if (!m)
		return -ENOMEM;
	err = print(m, r, arg);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err && (r->text_verbose > 0 || bp_text_widest(text) <= (size_t)bp_text_cols(r))) {
		fputs(text, out);
		err = ferror(out) ? -EIO : 1;
	}
	free(text);
	return err;
}

/* bp_text_if_fits's print, called through bp_text_print_if_fits's arg */
struct plain_print {
	int (*print)(FILE *out, const struct bp_result *r);
};

static int call_plain(FILE *out, const struct bp_result *r, const void *arg)
{
	return ((const struct plain_print *)arg)->print(out, r);
}

int bp_text_if_fits(FILE *out, const struct bp_result *r, const char *what,
		    int (*print)(FILE *out, const struct bp_result *r))
{
	struct plain_print p = { print };
	int rc = bp_text_print_if_fits(out, r, call_plain, &p);

	if (rc == 0)
		fprintf(out, "%s: wider than the terminal (-v shows it)\n", what);
	return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}

int bp_text_cpu(FILE *out, const struct bp_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int err = 0;

	if (r->text_verbose > 0 || !bp_json_is_records(r->cpu)) {
		cpu_table(out, r, &err);
		return err;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	cpu_summary(m, r->cpu);
	if (fclose(m))
		err = -ENOMEM;
	if (!err && *text)
		err = bp_text_fill_line(out, r, text);
	else if (!err && !cpu_table(out, r, &err))
		err = bp_text_fill_line(out, r, "tester cpu: wider than the terminal (-v shows it)");
	free(text);
	return err;
}

/*
 * What to do about the warnings that fire most, in a few words; the others show the first
 * clause of their own sentence.
 */
static const struct {
	const char *code, *brief;
} briefs[] = {
	{ "tester-cpu-bound", "the tester may be the limit: try -P or a faster host" },
	{ "tester-cpu-starved", "other load took the tester's CPU: stop it, rerun" },
	{ "busy-machine", "other processes used the CPUs: stop them, rerun" },
	{ "throttled", "the board throttled: cool or power it, then rerun" },
	{ "clock-dropped", "the CPU clock fell: pin the governor, rerun" },
	{ "hot", "the board ran hot: cool it, then rerun" },
	{ "late-starts", "starts came late: the latency tail may be the tester's wait" },
};

/* Where the clause from s ends: at ": ", "; " or " (", or s's end. */
static size_t clause_end(const char *s)
{
	size_t n = strlen(s);
	static const char *const ends[] = { ": ", "; ", " (" };

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		const char *e = strstr(s, ends[i]);

		if (e && (size_t)(e - s) < n && e != s)
			n = (size_t)(e - s);
	}
	return n;
}

/*
 * The first clause of message. A one-word subject before ": " (gpio's "sysfs: /sys/class/gpio
 * is deprecated ...", a method's name) is no clause: the one after it comes with it.
 */
static size_t first_clause(const char *message)
{
	size_t n = clause_end(message);

	if (!strncmp(message + n, ": ", 2) && !memchr(message, ' ', n))
		n += 2 + clause_end(message + n + 2);
	return n;
}

/* The bytes of s's first cols columns, never inside a character. */
static size_t prefix_bytes(const char *s, size_t cols)
{
	size_t i = 0;

	for (size_t c = 0; s[i] && c <= cols; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c++ == cols)
			break;
	return i;
}

/* s's first n bytes, cut at a word so that col + its columns fit width ("..." when cut). */
static void put_fitted(FILE *out, const char *s, size_t n, int col, int width)
{
	char *t = strndup(s, n);
	size_t cols;

	if (!t)
		return;
	bp_text_clean(t);
	cols = bp_text_width(t);
	if (col + (int)cols > width) {
		size_t keep = prefix_bytes(t, (size_t)(width - col > 4 ? width - col - 4 : 0));
		char *sp;

		t[keep] = '\0';
		sp = strrchr(t, ' ');
		if (sp && sp > t)
			*sp = '\0';
		fprintf(out, "%s ...", t);
	} else {
		fputs(t, out);
	}
	free(t);
}

/* Returns whether the sentence was shortened. */
static bool warning_brief(FILE *out, const struct bp_warning *w, int width)
{
	const char *brief = NULL;
	size_t col = strlen(w->code) + 12;

	/* a sentence that fits the line is its own best summary */
	for (size_t i = 0; col + bp_text_width(w->message) > (size_t)width &&
	     i < sizeof(briefs) / sizeof(briefs[0]); i++)
		if (!strcmp(w->code, briefs[i].code))
			brief = briefs[i].brief;
	fputs("warning [", out);
	bp_text_put(out, w->code);
	fputs("]: ", out);
	if (brief)
		put_fitted(out, brief, strlen(brief), (int)col, width);
	else
		put_fitted(out, w->message, col + bp_text_width(w->message) > (size_t)width ?
			   first_clause(w->message) : strlen(w->message), (int)col, width);
	fputc('\n', out);
	return col + bp_text_width(w->message) > (size_t)width;
}

int bp_text_warnings(FILE *out, const struct bp_result *r)
{
	bool shortened = false;

	for (size_t i = 0; i < r->nwarnings; i++) {
		if (r->text_verbose <= 0) {
			shortened |= warning_brief(out, &r->warnings[i], bp_text_cols(r));
			continue;
		}
		fputs("warning [", out);
		bp_text_put(out, r->warnings[i].code);
		fputs("]: ", out);
		bp_text_put(out, r->warnings[i].message);
		fputc('\n', out);
	}
	if (shortened)
		fputs("(-v: each warning in full)\n", out);
	return ferror(out) ? -EIO : 0;
}
