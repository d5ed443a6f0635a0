/*
 * JSON values for the inventory: a value we could not read still gets its key, as
 * "unknown" (strings) or null (numbers, booleans), so `boardperf info --json` has the same
 * shape on every machine and scripts never meet a missing key.
 */
#ifndef BP_BOARD_JSONVAL_H
#define BP_BOARD_JSONVAL_H

#include <stdint.h>

#include <jansson.h>

/* "unknown" for NULL or "". */
json_t *bp_json_str_or_unknown(const char *s);

/* null for BP_INT_UNKNOWN. */
json_t *bp_json_int_or_null(int64_t v);

/* null for NaN. */
json_t *bp_json_real_or_null(double v);

/* null for NaN; an integer when v is whole (480 rather than 480.0), else a real. */
json_t *bp_json_number_or_null(double v);

/* null for a negative value (our "unknown" for tri-state flags). */
json_t *bp_json_bool_or_null(int v);

/* json_object_set_new that ignores a NULL object, so builders need no error paths. */
void bp_json_put(json_t *obj, const char *key, json_t *val);

#endif
