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
 * contract"; field by field in docs/json.md, "JSON result contract"), with "schema". New reference.
 */
json_t *bp_result_to_json(const struct bp_result *r);
/* One interval as the contract's "intervals" array holds it: start, end, metrics. */
json_t *bp_interval_to_json(const struct bp_interval *iv);
/* A figure as JSON carries it: null where it is not finite (JSON has no NaN). */
json_t *bp_json_number(double v);
/* metrics as a name -> value object (an interval's form; merge's testers), NULL when out of
 * memory. */
json_t *bp_metrics_map_json(const struct bp_metric *metrics, size_t n);

/* Each returns 0 or a negative errno (write error). */
int bp_render_text(FILE *out, const struct bp_result *r);
int bp_render_json(FILE *out, const struct bp_result *r);
int bp_render_csv(FILE *out, const struct bp_result *r);
int bp_render(FILE *out, const struct bp_result *r, enum bp_format format);

/*
 * Pieces of the text renderer the live sink (result/live.h) prints with, so that its lines
 * read as the end-of-test text does. The header line: "tcp: <board>, <cpu>, kernel <release>,
 * boardperf <version>". A figure as the tables show it ("941 Mbit/s", "n/a" for NaN); buf
 * holds at least BP_TEXT_VALUE_LEN bytes.
 */
#define BP_TEXT_VALUE_LEN 64
void bp_render_text_header(FILE *out, const struct bp_result *r);
char *bp_text_value(char *buf, double v, const char *unit);
/*
 * The end-of-test text after the live sink printed the header line and the interval lines:
 * the rest (the params line, metrics, latency, CPU, warnings), without either a second time.
 */
int bp_render_text_after_live(FILE *out, const struct bp_result *r);

#endif
