/*
 * What is rr's own in its statistics: why a transaction failed, and those kinds' names. The
 * counting (per worker, per interval, the end of the run) is stats/txn_stats.h's.
 */
#ifndef BP_RR_RR_STATS_H
#define BP_RR_RR_STATS_H

#include "stats/txn_stats.h"

/* Why a transaction failed (crr: also why a connection failed). */
enum bp_rr_fail {
	BP_RR_FAIL_REFUSED,   /* ECONNREFUSED: RST to the SYN (closed port, a firewall's reject) */
	BP_RR_FAIL_RESET,     /* ECONNRESET/EPIPE after the connection stood */
	BP_RR_FAIL_TIMEOUT,   /* no answer within --timeout (a dropped SYN, a lost datagram) */
	BP_RR_FAIL_NO_PORT,   /* EADDRNOTAVAIL: the client ran out of ephemeral ports */
	BP_RR_FAIL_OTHER,
	BP_RR_NFAIL,
};

/* "refused", "reset", "timeout", "no_port", "other" */
const char *bp_rr_fail_name(enum bp_rr_fail f);
/* The kind of a connect() or I/O errno (a positive errno). */
enum bp_rr_fail bp_rr_fail_of(int err);

/* rr's counts: the common ones (done: transactions), fails indexed by enum bp_rr_fail. */
struct bp_rr_counts {
	struct bp_txn_counts txn;
};

_Static_assert(BP_RR_NFAIL <= BP_TXN_MAX_KINDS, "rr's failure kinds fit txn_stats");

#endif
