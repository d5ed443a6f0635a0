/* Turning what an rr or crr run measured into a result: rates, latency, failures, verdict. */
#ifndef BP_RR_RR_REPORT_H
#define BP_RR_RR_REPORT_H

#include "rr/rr_client.h"
#include "result/result.h"

struct bp_rr_report_opts {
	double max_failure_pct;   /* crr: the pass/fail threshold, percent of attempts */
};

int bp_rr_report(struct bp_result *r, const struct bp_rr_client_opts *o,
		 const struct bp_rr_report_opts *ro, const struct bp_rr_outcome *out);

/* Run a client test and report what both sides measured, also after a late failure. */
int bp_rr_run_and_report(const struct bp_rr_client_opts *o, const struct bp_rr_report_opts *ro,
			 struct bp_result *r, char *err, size_t errlen);

#endif
