/* The renderers of compare bp_compare_render hands a format to; each 0 or a negative errno. */
#ifndef BP_COMPARE_COMPARE_RENDER_H
#define BP_COMPARE_COMPARE_RENDER_H

#include <stdio.h>

#include "compare/compare_model.h"

int bp_cmp_render_csv(const struct bp_compare *c, FILE *out);
int bp_cmp_render_html(const struct bp_compare *c, FILE *out);
int bp_cmp_render_json(const struct bp_compare *c, FILE *out);
/* The JSON document bp_cmp_render_json prints (docs/results.md, "Comparing boards": its shape);
 * NULL out of memory. */
json_t *bp_cmp_to_json(const struct bp_compare *c);

#endif
