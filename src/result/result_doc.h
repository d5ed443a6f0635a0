/*
 * A result document (docs/json.md, "JSON result contract") back into the result model: what a
 * suite needs to hold the documents its child processes printed (`together` runs each test
 * in a process of its own) as children of its own result, so that the renderers and the
 * store see them as they see `run`'s. The bytes come from another process: every field is
 * checked for its type, and a document that is not a boardperf/1 result is refused.
 */
#ifndef BP_RESULT_RESULT_DOC_H
#define BP_RESULT_RESULT_DOC_H

#include <stddef.h>

#include <jansson.h>

#include "result/result.h"

/* Nesting of "results" taken (a suite of suites is two). */
#define BP_RESULT_DOC_DEPTH 4

/*
 * A new result from doc, or NULL with the first reason in err ("metrics[2].value: expected
 * a number or null"). Interval metrics take the unit and direction of the total of the same
 * name (the contract leaves them out of intervals), else none.
 */
struct bp_result *bp_result_from_json(const json_t *doc, char *err, size_t errlen);

#endif
