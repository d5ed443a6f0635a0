/* The environment snapshot every result carries (docs/ARCHITECTURE.md,
 * "The result model and the JSON contract"). */
#ifndef BP_BOARD_ENV_H
#define BP_BOARD_ENV_H

#include <jansson.h>

/*
 * {"boardperf": build facts and library versions, "collected_at": UTC wall time,
 *  "inventory": bp_inventory_collect(root, dir)} (new reference).
 */
json_t *bp_env_snapshot(const char *root, const char *dir);

#endif
