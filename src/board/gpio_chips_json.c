#include "board/gpio_chips.h"

#include "board/jsonval.h"

json_t *bp_gpio_inventory_json(const char *root)
{
	struct bp_gpio_chips c;
	json_t *a;

	if (bp_gpio_chips_read(root, &c))
		return NULL;
	a = json_array();
	for (int i = 0; a && i < c.n; i++) {
		json_t *o = json_object();

		bp_json_put(o, "name", json_string(c.v[i].name));
		bp_json_put(o, "label", bp_json_str_or_null(c.v[i].label));
		bp_json_put(o, "lines", json_integer(c.v[i].lines));
		json_array_append_new(a, o);
	}
	bp_gpio_chips_free(&c);
	return a;
}
