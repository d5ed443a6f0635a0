#include "result/render_chips.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "result/text_table.h"

bool bp_chips_text_has(const struct bp_result *r)
{
	return json_is_array(r->chips);
}

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : dflt;
}

static int line_row(struct bp_table *t, const json_t *li)
{
	char off[24], name[48], used[64];
	const char *dir = str_or(li, "direction", "?");
	const char *consumer = str_or(li, "consumer", NULL);
	int err;

	snprintf(off, sizeof(off), "%lld", (long long)json_integer_value(json_object_get(li, "line")));
	snprintf(name, sizeof(name), "%s", str_or(li, "name", "unnamed"));
	if (json_is_null(json_object_get(li, "free")))
		snprintf(used, sizeof(used), "unknown");  /* no character device to ask */
	else if (json_is_true(json_object_get(li, "free")))
		snprintf(used, sizeof(used), "free");
	else if (consumer)
		snprintf(used, sizeof(used), "used by \"%s\"", consumer);
	else
		snprintf(used, sizeof(used), "used");
	err = bp_table_add_row(t);
	err = err ? err : bp_table_set(t, 0, "line");
	err = err ? err : bp_table_set(t, 1, off);
	err = err ? err : bp_table_set(t, 2, name);
	err = err ? err : bp_table_set(t, 3, dir);
	err = err ? err : bp_table_set(t, 4, json_is_true(json_object_get(li, "active_low")) ?
				       "active-low" : "active-high");
	err = err ? err : bp_table_set(t, 5, used);
	return err;
}

static int chip_text(FILE *out, const json_t *c)
{
	const json_t *lines = json_object_get(c, "lines_info"), *li;
	json_int_t base = json_integer_value(json_object_get(c, "sysfs_base"));
	struct bp_table t = { 0 };
	size_t i;
	int err;

	fprintf(out, "%s \"%s\": %lld lines, %s", str_or(c, "name", "?"), str_or(c, "label", ""),
		(long long)json_integer_value(json_object_get(c, "lines")),
		str_or(c, "path", "?"));
	if (json_is_integer(json_object_get(c, "sysfs_base")))
		fprintf(out, ", sysfs base %lld", (long long)base);
	fputc('\n', out);
	if (!json_array_size(lines))
		return 0;
	err = bp_table_init(&t, 6, 2);
	if (err)
		return err;
	t.right[1] = true;
	json_array_foreach(lines, i, li) {
		err = line_row(&t, li);
		if (err)
			break;
	}
	if (!err)
		err = bp_table_print(out, &t);
	bp_table_free(&t);
	return err;
}

int bp_chips_text(FILE *out, const struct bp_result *r)
{
	const json_t *c;
	size_t i;
	int err = 0;

	if (!json_array_size(r->chips)) {
		fprintf(out, "no GPIO chips\n");
		return 0;
	}
	json_array_foreach(r->chips, i, c) {
		if (i)
			fputc('\n', out);
		err = chip_text(out, c);
		if (err)
			break;
	}
	return err;
}
