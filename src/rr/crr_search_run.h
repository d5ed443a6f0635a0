/* crr --search: trials of crr's open loop driven by the search of crr_search.h. */
#ifndef BP_RR_CRR_SEARCH_RUN_H
#define BP_RR_CRR_SEARCH_RUN_H

#include <stddef.h>

#include "result/result.h"
#include "rr/rr_client.h"
#include "rr/rr_report.h"

/*
 * Search from o->rate (100/s when 0), each trial o with its rate, judged against
 * ro->max_failure_pct, to within resolution_pct of the rate found. Fills r with the trials
 * (intervals) and, when the search ran to its end, the answer (search.rate, ...).
 */
int bp_crr_search_run(const struct bp_rr_client_opts *o, const struct bp_rr_report_opts *ro,
		      double resolution_pct, struct bp_result *r, char *err, size_t errlen);

#endif
