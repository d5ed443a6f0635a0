/* Turning what `boardperf http` measured into a result: metrics, latency, intervals, CPU. */
#ifndef BP_HTTP_HTTP_REPORT_H
#define BP_HTTP_HTTP_REPORT_H

#include "http/http_client.h"
#include "result/result.h"

/* One interval's figures (requests/s, bytes/s, latency, errors): the result's, the live line's. */
void bp_http_interval_metrics(struct bp_interval *iv, const struct bp_http_interval *v);

int bp_http_report(struct bp_result *r, const struct bp_http_client_opts *o,
		   const struct bp_http_outcome *out);

/*
 * Run the load and report it, also what was measured before a failure. A run in which no
 * request was answered could not measure: -EIO with the first error's message.
 */
int bp_http_run_and_report(const struct bp_http_client_opts *o, struct bp_result *r,
			   char *err, size_t errlen);

#endif
