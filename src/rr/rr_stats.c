#include "rr/rr_stats.h"

#include <errno.h>

const char *bp_rr_fail_name(enum bp_rr_fail f)
{
	static const char *const names[BP_RR_NFAIL] = { "refused", "reset", "timeout",
							"no_port", "other" };

	return f < BP_RR_NFAIL ? names[f] : "other";
}

enum bp_rr_fail bp_rr_fail_of(int err)
{
	switch (err) {
	case ECONNREFUSED:
		return BP_RR_FAIL_REFUSED;
	case ECONNRESET:
	case EPIPE:
	case ECONNABORTED:
		return BP_RR_FAIL_RESET;
	case ETIMEDOUT:
	case EHOSTUNREACH:  /* a router's ICMP after the SYN went unanswered */
		return BP_RR_FAIL_TIMEOUT;
	case EADDRNOTAVAIL:
		return BP_RR_FAIL_NO_PORT;
	default:
		return BP_RR_FAIL_OTHER;
	}
}
