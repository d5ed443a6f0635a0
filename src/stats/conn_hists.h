/*
 * The two latency histograms of a request/response test over connections (rr, crr, http):
 * each operation's latency, and each connect's. Worker statistics keep one pair per interval;
 * the reporter merges them into the interval's and the run's.
 */
#ifndef BP_STATS_CONN_HISTS_H
#define BP_STATS_CONN_HISTS_H

#include "stats/histogram.h"

struct bp_conn_hists {
	struct bp_histo *latency;     /* a transaction or request, ns (its meaning: the test's) */
	struct bp_histo *connect;     /* a connect (http: and its TLS handshake), ns */
};

int bp_conn_hists_init(struct bp_conn_hists *h);   /* 0 or -ENOMEM */
void bp_conn_hists_free(struct bp_conn_hists *h);
void bp_conn_hists_reset(struct bp_conn_hists *h);
void bp_conn_hists_merge(struct bp_conn_hists *dst, const struct bp_conn_hists *src);

#endif
