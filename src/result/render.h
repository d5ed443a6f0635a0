/* Renderers: they read a result and print it; they never measure. */
#ifndef BP_RESULT_RENDER_H
#define BP_RESULT_RENDER_H

#include <stdio.h>

#include <jansson.h>

#include "result/result.h"

enum bp_format {
	BP_FORMAT_TEXT,
	BP_FORMAT_JSON,
	BP_FORMAT_CSV,
};

/*
 * The contract form of a result (docs/ARCHITECTURE.md, "The result model and the JSON
 * contract"; field by field in the README), with "schema". New reference.
 */
json_t *bp_result_to_json(const struct bp_result *r);

/* Each returns 0 or a negative errno (write error). */
int bp_render_text(FILE *out, const struct bp_result *r);
int bp_render_json(FILE *out, const struct bp_result *r);
int bp_render_csv(FILE *out, const struct bp_result *r);
int bp_render(FILE *out, const struct bp_result *r, enum bp_format format);

#endif
