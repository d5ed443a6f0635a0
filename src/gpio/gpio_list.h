/*
 * The chips and their lines as JSON, in full, for `boardperf gpio --list`
 * (bp_result.chips); `info`'s short list is board/gpio_chips.h's bp_gpio_inventory_json.
 */
#ifndef BP_GPIO_GPIO_LIST_H
#define BP_GPIO_GPIO_LIST_H

#include <stdbool.h>

#include <jansson.h>

#include "board/gpio_chips.h"

/*
 * [{"name", "path", "label", "lines", "sysfs_base", "lines_info": [{"line", "name",
 * "consumer", "used", "direction", "active_low", "free"}]}]; *v1 set when a chip answered
 * only uAPI v1. NULL when out of memory; a chip whose lines cannot be read has
 * "lines_info": null and "error": the reason.
 */
json_t *bp_gpio_list_json(const char *root, const struct bp_gpio_chips *c, bool *v1);

#endif
