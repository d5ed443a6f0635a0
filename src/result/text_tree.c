#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/term.h"
#include "core/unconst.h"
#include "core/units.h"
#include "result/text_table.h"
#include "result/text_tree.h"

/* Nested sections step in by this much: enough to see the level, little enough to fit. */
#define TREE_STEP 2

/* Room for any value formatted with its unit ("1023.99 GiB", "1800 MHz"). */
#define VALUE_LEN 64

char *bp_format_double_exact(char *buf, size_t len, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static const char *number_text(const json_t *v, enum bp_scalar_style style,
			       char *buf, size_t len)
{
	double d;

	if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	d = json_real_value(v);
	if (style == BP_SCALAR_PLAIN)
		return bp_format_double_exact(buf, len, d);
	/* A person reads 1800000000 more easily than 1.8e+09, and 45.3 than 45.30000. */
	if (d == floor(d) && fabs(d) < 1e15)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.10g", d);
	return buf;
}

/* Formatters for the unit a key names (key_units below); v is in that unit. */
static char *format_plain(char *buf, size_t len, double v, const char *unit)
{
	/* Whole or large numbers without decimals ("1800 MHz"), others to 4 digits ("48.7"). */
	if (v == floor(v) || fabs(v) >= 1000)
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
	return buf;
}

static char *format_khz(char *buf, size_t len, double khz)
{
	return format_plain(buf, len, khz / 1e3, "MHz");
}

static char *format_mbps(char *buf, size_t len, double mbps)
{
	return format_plain(buf, len, mbps, "Mbit/s");
}

static char *format_celsius(char *buf, size_t len, double c)
{
	return format_plain(buf, len, c, "\xc2\xb0" "C");  /* UTF-8 degree sign */
}

static char *format_pct(char *buf, size_t len, double pct)
{
	return format_plain(buf, len, pct, "%");
}

static char *format_ms(char *buf, size_t len, double ms)
{
	return bp_format_duration(buf, len, ms * 1e6);
}

/*
 * A key in seconds prints in seconds ("4.03 s", "0.00210 s", "0 s"), three significant
 * digits: a column of CPU times in s beside ms and ns made 0.3 s and 2.1 ms hard to compare,
 * and 0 s read as "0 ns", a unit the figure never had.
 */
static char *format_s(char *buf, size_t len, double s)
{
	double a = fabs(s);

	if (s == 0)
		snprintf(buf, len, "0 s");
	else if (a >= 99.95)
		snprintf(buf, len, "%.0f s", s);
	else if (a >= 0.001)
		snprintf(buf, len, "%#.3g s", s);
	else
		snprintf(buf, len, "%.2g s", s);
	return buf;
}

/* A share is a fraction in JSON (busy_share 1.49: one and a half cores); people read %. */
static char *format_share(char *buf, size_t len, double share)
{
	return format_pct(buf, len, share * 100);
}

/*
 * Why the text renderer keys on suffixes: the inventory (and the tester's CPU accounting)
 * writes plain numbers in JSON, in base units or the kernel's own (bytes, kHz), and lets
 * the key carry the unit: "total_bytes", "cur_khz", "temp_c". Scripts thus get exact
 * figures with no unit field per leaf, and JSON and CSV stay as they are; only here,
 * where a person reads 3.70 GiB rather than 3975688192, does the suffix pick a formatter.
 * A key matches when it is the unit itself ("khz") or ends in "_" and the unit
 * ("scaling_max_khz"); "disc" or "mtu" match nothing.
 */
static const struct {
	const char *unit;
	char *(*format)(char *buf, size_t len, double v);
} key_units[] = {
	{ "bytes", bp_format_bytes },
	{ "khz", format_khz },
	{ "mbps", format_mbps },
	{ "c", format_celsius },
	{ "pct", format_pct },
	{ "percent", format_pct },
	{ "share", format_share },
	{ "ms", format_ms },
	{ "s", format_s },
};

char *bp_format_by_key(char *buf, size_t len, const char *key, double v)
{
	size_t klen = key ? strlen(key) : 0;

	if (!isfinite(v))
		return NULL;
	for (size_t i = 0; i < sizeof(key_units) / sizeof(key_units[0]); i++) {
		size_t ulen = strlen(key_units[i].unit);

		if (klen < ulen || strcmp(key + klen - ulen, key_units[i].unit))
			continue;
		if (klen == ulen || key[klen - ulen - 1] == '_')
			return key_units[i].format(buf, len, v);
	}
	return NULL;
}

const char *bp_json_scalar_text(const json_t *v, enum bp_scalar_style style,
				char *buf, size_t len)
{
	bool human = style == BP_SCALAR_HUMAN;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return json_string_value(v);
	case JSON_INTEGER:
	case JSON_REAL:
		return number_text(v, style, buf, len);
	case JSON_TRUE:
		return human ? "yes" : "true";
	case JSON_FALSE:
		return human ? "no" : "false";
	case JSON_NULL:
		return human ? "unknown" : "";
	default:
		return NULL;
	}
}

/* One element of an inline list: a scalar as text, a container as compact JSON. */
static void put_inline_item(FILE *f, const json_t *v, enum bp_scalar_style style)
{
	char buf[32];
	const char *s = bp_json_scalar_text(v, style, buf, sizeof(buf));

	if (s)
		fputs(s, f);
	else
		json_dumpf(v, f, JSON_COMPACT | JSON_ENCODE_ANY);
}

char *bp_json_inline_text(const json_t *v, enum bp_scalar_style style)
{
	const char *empty = style == BP_SCALAR_HUMAN ? "none" : "";
	char *text = NULL;
	size_t size, i;
	json_t *item;
	FILE *f;

	if (!v)
		return strdup(style == BP_SCALAR_HUMAN ? "unknown" : "");
	if ((json_is_array(v) && !json_array_size(v)) ||
	    (json_is_object(v) && !json_object_size(v)))
		return strdup(empty);
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	if (json_is_array(v)) {
		json_array_foreach(v, i, item) {
			if (i)
				fputs(", ", f);
			put_inline_item(f, item, style);
		}
	} else {
		put_inline_item(f, v, style);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* A value for a person: a number by its key's unit when the key names one. malloc'd. */
static char *human_text(const char *key, const json_t *v)
{
	char buf[VALUE_LEN];

	if (json_is_number(v) && bp_format_by_key(buf, sizeof(buf), key, json_number_value(v)))
		return strdup(buf);
	return bp_json_inline_text(v, BP_SCALAR_HUMAN);
}

/* Does v say nothing: absent, null or the inventory's "unknown"? */
static bool is_unknown(const json_t *v)
{
	return !v || json_is_null(v) ||
	       (json_is_string(v) && !strcmp(json_string_value(v), "unknown"));
}

static bool is_table(const json_t *v)
{
	size_t i;
	json_t *item;

	if (!json_is_array(v) || !json_array_size(v))
		return false;
	json_array_foreach(v, i, item)
		if (!json_is_object(item))
			return false;
	return true;
}

static bool is_section(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) || is_table(v);
}

/* Does any record hold a real value under key? */
static bool column_known(const json_t *arr, const char *key)
{
	size_t i;
	json_t *item;

	json_array_foreach(arr, i, item)
		if (!is_unknown(json_object_get(item, key)))
			return true;
	return false;
}

/*
 * Union of the elements' keys but those holding objects, in the order they are first seen,
 * without the columns that hold no real value in any record: on an x86 PC the ARM
 * implementer, part and variant are "unknown" for every core, and a column of "unknown"
 * tells a person nothing.
 */
static int table_keys(const json_t *arr, const char ***keys, size_t *nkeys)
{
	size_t i, n = 0, cap = 0;
	const char **k = NULL, *key;
	json_t *item, *val;

	json_array_foreach(arr, i, item) {
		json_object_foreach(item, key, val) {
			size_t j;

			for (j = 0; j < n && strcmp(k[j], key); j++)
				;
			/* a record's nested detail (a NIC's features) is the JSON's: no cell holds it */
			if (j < n || json_is_object(val) || !column_known(arr, key))
				continue;
			if (n == cap) {
				const char **p = realloc(k, (cap = cap ? cap * 2 : 8) * sizeof(*k));

				if (!p) {
					free(k);
					return -ENOMEM;
				}
				k = p;
			}
			k[n++] = key;
		}
	}
	*keys = k;
	*nkeys = n;
	return 0;
}

/*
 * A table of records (objects): one column per key, one row per record, preceded by a
 * label column when labels is given. Columns holding only numbers are right-aligned.
 */
struct records {
	const json_t *arr;      /* array of objects */
	const char **labels;    /* one per record, or NULL */
	const char *corner;     /* header of the label column */
};

static int record_row(struct bp_table *t, const struct records *rec, size_t i,
		      const char **keys)
{
	const json_t *obj = json_array_get(rec->arr, i);
	size_t off = rec->labels ? 1 : 0;
	int err = bp_table_add_row(t);

	if (!err && off)
		err = bp_table_set(t, 0, rec->labels[i]);
	for (size_t c = off; !err && c < t->ncols; c++) {
		json_t *v = json_object_get(obj, keys[c - off]);
		char *s;

		if (!v)
			continue;
		/* Numbers line up on the right; an "unknown" among them does not spoil that. */
		if (!json_is_number(v) && !json_is_null(v))
			t->right[c] = false;
		s = human_text(keys[c - off], v);
		err = s ? bp_table_set(t, c, s) : -ENOMEM;
		free(s);
	}
	return err;
}

static int print_records(FILE *out, const struct records *rec, unsigned indent)
{
	size_t off = rec->labels ? 1 : 0, nkeys;
	struct bp_table t;
	const char **keys;
	int err = table_keys(rec->arr, &keys, &nkeys);

	if (err)
		return err;
	/* Not one column holds a real value: say so once rather than print empty rows. */
	if (!nkeys && !off) {
		fprintf(out, "%*sunknown\n", (int)indent, "");
		goto out;
	}
	err = bp_table_init(&t, nkeys + off, indent);
	if (err)
		goto out;
	t.max_width = (size_t)bp_term_width_of(out);
	err = bp_table_add_row(&t);
	if (!err && off)
		err = bp_table_set(&t, 0, rec->corner);
	for (size_t c = off; !err && c < t.ncols; c++) {
		t.right[c] = true;
		err = bp_table_set(&t, c, keys[c - off]);
	}
	for (size_t i = 0; !err && i < json_array_size(rec->arr); i++)
		err = record_row(&t, rec, i, keys);
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
out:
	free(keys);
	return err;
}

static int print_object_table(FILE *out, const json_t *arr, unsigned indent)
{
	const struct records rec = { .arr = arr };

	return print_records(out, &rec, indent);
}

bool bp_json_is_records(const json_t *obj)
{
	const char *key;
	json_t *val;

	if (!json_is_object(obj) || !json_object_size(obj))
		return false;
	json_object_foreach(bp_unconst(obj), key, val)
		if (!json_is_object(val))
			return false;
	return true;
}

int bp_text_records(FILE *out, const json_t *obj, const char *corner, unsigned indent)
{
	struct records rec = { .corner = corner };
	size_t n = 0;
	const char *key;
	json_t *val, *arr;
	int err = -ENOMEM;

	if (!bp_json_is_records(obj))
		return -EINVAL;
	arr = json_array();
	rec.labels = calloc(json_object_size(obj), sizeof(*rec.labels));
	if (!arr || !rec.labels)
		goto out;
	json_object_foreach(bp_unconst(obj), key, val) {
		if (json_array_append(arr, val))
			goto out;
		rec.labels[n++] = key;
	}
	rec.arr = arr;
	err = print_records(out, &rec, indent);
out:
	free(rec.labels);
	json_decref(arr);
	return err;
}

static size_t inline_key_width(const json_t *obj)
{
	const char *key;
	json_t *val;
	size_t w = 0;

	json_object_foreach(bp_unconst(obj), key, val) {
		size_t kw = bp_text_width(key);

		if (!is_section(val) && kw > w)
			w = kw;
	}
	return w;
}

static int print_inline(FILE *out, const char *key, const json_t *val,
			unsigned indent, size_t width)
{
	char *s = human_text(key, val);

	if (!s)
		return -ENOMEM;
	size_t col = indent + width + 2, cols = (size_t)bp_term_width_of(out);

	fprintf(out, "%*s", (int)indent, "");
	bp_text_put(out, key);
	fprintf(out, "%*s  ", (int)(width - bp_text_width(key)), "");
	bp_text_clean(s);
	/* a value wider than the terminal (a build's flags): its words under its first */
	if (col + bp_text_width(s) > cols && col + 20 <= cols)
		bp_term_fill(out, s, (int)col, (int)col, (int)cols);
	else
		fputs(s, out);
	fputc('\n', out);
	free(s);
	return 0;
}

/* The title line of a nested section. */
static void print_title(FILE *out, const char *key, unsigned indent)
{
	fprintf(out, "%*s", (int)indent, "");
	bp_text_put(out, key);
	fputc('\n', out);
}

int bp_text_tree(FILE *out, const json_t *obj, unsigned indent)
{
	size_t width = inline_key_width(obj);
	bool printed = false, prev_section = false;
	const char *key;
	json_t *val;
	int err = 0;

	if (!json_is_object(obj))
		return -EINVAL;
	json_object_foreach(bp_unconst(obj), key, val) {
		bool section = is_section(val);

		/* At the left margin, a blank line sets each section apart from the next. */
		if (indent == 0 && printed && (section || prev_section))
			fputc('\n', out);
		if (!section) {
			err = print_inline(out, key, val, indent, width);
		} else {
			print_title(out, key, indent);
			if (json_is_object(val))
				err = bp_text_tree(out, val, indent + TREE_STEP);
			else
				err = print_object_table(out, val, indent + TREE_STEP);
		}
		if (err)
			return err;
		printed = true;
		prev_section = section;
	}
	return ferror(out) ? -EIO : 0;
}
