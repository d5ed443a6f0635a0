/* Turning what an rr or crr run measured into a result: rates, latency, failures, verdict. */
#ifndef BP_RR_RR_REPORT_H
#define BP_RR_RR_REPORT_H

#include "rr/rr_client.h"
#include "result/result.h"

struct bp_rr_report_opts {
	double max_failure_pct;   /* crr: the pass/fail threshold, percent of attempts */
};

/* One interval's figures (a rate, latency, failures), for the result and the live line. */
void bp_rr_interval_metrics(struct bp_interval *iv, const struct bp_rr_client_opts *o,
			    const struct bp_rr_interval *v);

int bp_rr_report(struct bp_result *r, const struct bp_rr_client_opts *o,
		 const struct bp_rr_report_opts *ro, const struct bp_rr_outcome *out);

/* Run a client test and report what both sides measured, also after a late failure. */
int bp_rr_run_and_report(const struct bp_rr_client_opts *o, const struct bp_rr_report_opts *ro,
			 struct bp_result *r, char *err, size_t errlen);

#endif
