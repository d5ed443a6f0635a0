#include "gpio/gpio_list.h"

#include <stdlib.h>
#include <string.h>

#include "board/jsonval.h"
#include "gpio/gpio_lines.h"

static json_t *line_json(const struct bp_gpio_line_info *li)
{
	json_t *o = json_object();

	bp_json_put(o, "line", json_integer(li->line));
	bp_json_put(o, "name", bp_json_str_or_null(li->name));
	bp_json_put(o, "consumer", bp_json_str_or_null(li->consumer));
	bp_json_put(o, "used", li->known ? json_boolean(li->used) : json_null());
	bp_json_put(o, "direction", li->direction_known ?
		    json_string(li->output ? "output" : "input") : json_null());
	bp_json_put(o, "active_low", json_boolean(li->active_low));
	bp_json_put(o, "free", li->known ? json_boolean(!li->used) : json_null());
	return o;
}

static json_t *chip_json(const char *root, const struct bp_gpio_chip *c, bool *v1)
{
	struct bp_gpio_line_info *lines = NULL;
	json_t *o = json_object(), *a;
	int rc;

	bp_json_put(o, "name", json_string(c->name));
	bp_json_put(o, "path", json_string(c->path));
	bp_json_put(o, "label", bp_json_str_or_null(c->label));
	bp_json_put(o, "lines", json_integer(c->lines));
	bp_json_put(o, "sysfs_base", c->sysfs_base >= 0 ? json_integer(c->sysfs_base) :
		    json_null());
	rc = bp_gpio_lines_read(root, c, &lines, v1);
	if (rc) {
		bp_json_put(o, "lines_info", json_null());
		bp_json_put(o, "error", json_string(strerror(-rc)));
		return o;
	}
	a = json_array();
	for (unsigned i = 0; a && i < c->lines; i++)
		json_array_append_new(a, line_json(&lines[i]));
	free(lines);
	bp_json_put(o, "lines_info", a);
	return o;
}

json_t *bp_gpio_list_json(const char *root, const struct bp_gpio_chips *c, bool *v1)
{
	json_t *a = json_array();

	for (int i = 0; a && i < c->n; i++)
		if (json_array_append_new(a, chip_json(root, &c->v[i], v1))) {
			json_decref(a);
			return NULL;
		}
	return a;
}
