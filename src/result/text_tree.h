/*
 * JSON trees (the environment snapshot, the tester's CPU use) as text a person reads,
 * and JSON scalars as the text the text and CSV renderers print.
 */
#ifndef BP_RESULT_TEXT_TREE_H
#define BP_RESULT_TEXT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

enum bp_scalar_style {
	BP_SCALAR_HUMAN,  /* null "unknown", booleans yes/no, reals to 10 digits */
	BP_SCALAR_PLAIN,  /* null "", booleans true/false, reals exact (for CSV, k=v) */
};

/*
 * The shortest of %.15g, %.16g and %.17g that reads back as the same double, so that
 * 0.1 prints as "0.1" and every value still round-trips. buf needs 32 bytes.
 */
char *bp_format_double_exact(char *buf, size_t len, double v);

/*
 * v formatted for a person by the unit its key names: "*_bytes" as "3.70 GiB", "*_khz" as
 * "1800 MHz", "*_mbps" as "1000 Mbit/s", "*_c" as "48.7 °C", "*_pct" and "*_percent" as
 * "88.2 %", "*_share" (a fraction) as "149.4 %", "*_ms" as a duration ("1.50 s"), "*_s" in
 * seconds ("0.300 s"); a key that is the unit alone ("khz") counts too.
 * buf, or NULL when the key names no unit or v is not finite. buf needs 64 bytes.
 */
char *bp_format_by_key(char *buf, size_t len, const char *key, double v);

/*
 * A scalar (string, number, boolean, null) as text: either the string's own storage or
 * buf. NULL when v is an array or an object. buf needs 32 bytes.
 */
const char *bp_json_scalar_text(const json_t *v, enum bp_scalar_style style,
				char *buf, size_t len);

/*
 * Any value on one line: scalars as above, arrays comma-joined, an empty container as
 * "none" (HUMAN) or "" (PLAIN), anything deeper as compact JSON. malloc'd; NULL: ENOMEM.
 */
char *bp_json_inline_text(const json_t *v, enum bp_scalar_style style);

/*
 * An object as indented "key  value" lines (keys aligned within each object), nested
 * objects as titled sections, arrays of objects as tables; top-level sections are set
 * apart by blank lines when indent is 0. Numbers are formatted by their key's unit
 * (bp_format_by_key), and a table leaves out the columns that are unknown in every row.
 * 0, -EINVAL (not an object), -ENOMEM or -EIO.
 */
int bp_text_tree(FILE *out, const json_t *obj, unsigned indent);

/* Is obj a non-empty object whose every value is an object (a record)? */
bool bp_json_is_records(const json_t *obj);

/*
 * Records as one table: a row per key of obj (labelled by the key, under the header
 * corner), a column per key of the records, formatted and pruned as in bp_text_tree.
 * 0, -EINVAL (not records), -ENOMEM or -EIO.
 */
int bp_text_records(FILE *out, const json_t *obj, const char *corner, unsigned indent);

#endif
