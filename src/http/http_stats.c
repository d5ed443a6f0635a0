#include "http/http_stats.h"


const char *bp_http_err_name(enum bp_http_err e)
{
	static const char *const names[BP_HTTP_NERR] = {
		"connect", "read", "write", "timeout", "parse", "non_2xx",
	};

	return e < BP_HTTP_NERR ? names[e] : "other";
}

int bp_http_stats_init(struct bp_txn_stats *s)
{
	return bp_txn_stats_init(s, BP_HTTP_STATUS_MAX);
}

/* Status codes from 600 up (and below 100) are kept under 0. */
void bp_http_stats_response(struct bp_txn_stats *s, uint64_t now, unsigned status,
			    uint64_t latency_ns, bool late)
{
	bp_txn_stats_done(s, now, latency_ns, late, status < BP_HTTP_STATUS_MAX ? status : 0);
}

/*
 * Non-2xx answers are counted from the interval's status codes rather than per response:
 * the same number, and one lock per response instead of two.
 */
void bp_http_stats_take(struct bp_txn_stats *s, struct bp_http_counts *counts,
			uint64_t *status, struct bp_conn_hists *hists)
{
	uint64_t iv[BP_HTTP_STATUS_MAX] = { 0 };

	bp_txn_stats_take(s, &counts->txn, iv, hists);
	for (int i = 0; i < BP_HTTP_STATUS_MAX; i++) {
		status[i] += iv[i];
		if (i < 200 || i > 299)
			counts->txn.fails[BP_HTTP_ERR_STATUS] += iv[i];
	}
}
