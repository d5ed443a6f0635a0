#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/text_table.h"
#include "result/text_tree.h"

/* Nested sections step in by this much: enough to see the level, little enough to fit. */
#define TREE_STEP 2

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

/* Union of the elements' keys, in the order they are first seen. */
static int table_keys(const json_t *arr, const char ***keys, size_t *nkeys)
{
	size_t i, n = 0, cap = 0;
	const char **k = NULL, *key;
	json_t *item, *val;

	json_array_foreach(arr, i, item) {
		json_object_foreach((json_t *)item, key, val) {
			size_t j;

			for (j = 0; j < n && strcmp(k[j], key); j++)
				;
			if (j < n)
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
		if (!json_is_number(v))
			t->right[c] = false;
		s = bp_json_inline_text(v, BP_SCALAR_HUMAN);
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
	err = bp_table_init(&t, nkeys + off, indent);
	if (err)
		goto out;
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
	json_object_foreach((json_t *)obj, key, val)
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
	json_object_foreach((json_t *)obj, key, val) {
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

	json_object_foreach((json_t *)obj, key, val) {
		size_t kw = bp_text_width(key);

		if (!is_section(val) && kw > w)
			w = kw;
	}
	return w;
}

static int print_inline(FILE *out, const char *key, const json_t *val,
			unsigned indent, size_t width)
{
	char *s = bp_json_inline_text(val, BP_SCALAR_HUMAN);

	if (!s)
		return -ENOMEM;
	fprintf(out, "%*s", (int)indent, "");
	bp_text_put(out, key);
	fprintf(out, "%*s  ", (int)(width - bp_text_width(key)), "");
	bp_text_put(out, s);
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
	json_object_foreach((json_t *)obj, key, val) {
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
