/* Turning what both sides of a TCP test measured into a result (metrics, intervals, CPU). */
#ifndef BP_NET_TCP_REPORT_H
#define BP_NET_TCP_REPORT_H

#include "net/tcp_client.h"
#include "result/result.h"

int bp_tcp_report(struct bp_result *r, const struct bp_net_params *np,
		  const struct bp_tcp_outcome *out);

/* Run a client test and report what both sides measured, also after a late failure. */
int bp_net_run_and_report(const struct bp_tcp_client_opts *o, struct bp_result *r,
			  char *err, size_t errlen);

#endif
