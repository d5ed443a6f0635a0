/*
 * The request of a scrape of `serve --metrics`, read from bytes a stranger sends: only the
 * head (request line and headers, at most BP_METRICS_REQUEST_MAX bytes: a Prometheus
 * scrape is about 300), and only GET /metrics is served. A pure function of the bytes so
 * far, so that it is unit-tested and fuzzed (tests/fuzz/fuzz_metrics_request.c).
 *
 * The format follows the Accept header (RFC 9110's media ranges with q-values):
 * OpenMetrics 1.0.0 when application/openmetrics-text is preferred to text/plain (what
 * Prometheus asks for: openmetrics at q=1, text/plain;version=0.0.4 at q=0.5), the
 * Prometheus text format 0.0.4 otherwise, without an Accept header and on a tie (curl's
 * "*" "/" "*").
 */
#ifndef BP_SERVER_METRICS_REQUEST_H
#define BP_SERVER_METRICS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "export/om_text.h"

#define BP_METRICS_REQUEST_MAX 4096

struct bp_metrics_request {
	int status;                  /* 200, or 400, 404, 405 (not GET), 431 (too large) */
	enum bp_om_format format;    /* for 200 */
};

/*
 * Reads the len bytes received so far. False while the head is not whole (and below the
 * limit); true with r filled once it is, or once it can only be an error.
 */
bool bp_metrics_request_parse(const char *buf, size_t len, struct bp_metrics_request *r);

/*
 * The format one Accept header value asks for, given what earlier Accept headers of the
 * same request preferred (*om_q, *text_q: the best q in thousandths so far, -1 none).
 */
void bp_metrics_accept(const char *v, size_t len, int *om_q, int *text_q);

#endif
