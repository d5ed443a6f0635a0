/*
 * JSON values for the inventory: a value we could not read still gets its key, as null
 * (strings, numbers, booleans alike), so `boardperf info --json` has the same shape on every
 * machine, scripts never meet a missing key, and none has to know a magic word: the text
 * renderer prints null as "unknown" for a person.
 */
#ifndef BP_BOARD_JSONVAL_H
#define BP_BOARD_JSONVAL_H

#include <stdint.h>

#include <jansson.h>

/*
 * null for NULL, "" or "unknown": the word the kernel writes where it does not know (duplex,
 * operstate) and our own labels use (bp_bus_name, bp_usb_speed_label).
 */
json_t *bp_json_str_or_null(const char *s);

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
