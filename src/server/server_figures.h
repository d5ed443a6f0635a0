/*
 * A client's UDP figures that no real sender makes, seen from the server's receivers: the
 * log line (rate-limited per address) and "bp_warnings" in the results the client gets.
 */
#ifndef BP_SERVER_SERVER_FIGURES_H
#define BP_SERVER_SERVER_FIGURES_H

#include <jansson.h>

#include "proto/results.h"

/*
 * res: this side's results; theirs: the client's, as it sent them (unchecked: read here
 * only through proto/peer_json.h); mine: the results about to go out, which get
 * "bp_warnings" when anything was flagged. One log line per test at most.
 */
void srv_flag_figures(const struct bp_net_results *res, const json_t *theirs,
		      const char *peer, json_t *mine);

#endif
