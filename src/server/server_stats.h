/*
 * The server's own counters, for `serve --metrics` (docs/results.md, "Prometheus"): tests by kind
 * and outcome (ok, refused with the refusal's reason, failed), the bytes the tests' data
 * moved, connections accepted on the test port and those it closed before they were part
 * of a test, the tests running, the uptime. Kept on the server's loop thread, the only
 * one that changes or reads them, so they are plain integers.
 */
#ifndef BP_SERVER_SERVER_STATS_H
#define BP_SERVER_SERVER_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "export/om_text.h"
#include "proto/params.h"
#include "server/half.h"

/* Why a test was refused: a short stable word each (srv_refusal_name). */
enum srv_refusal {
	SRV_REFUSAL_NONE,
	SRV_REFUSAL_NOT_SERVED,      /* a test kind this server does not serve */
	SRV_REFUSAL_BAD_PARAMETERS,  /* parameters outside their domain */
	SRV_REFUSAL_AUTHENTICATION,  /* --psk or iperf3's --username not proven */
	SRV_REFUSAL_MAX_CLIENTS,     /* the limits, server_limits.h */
	SRV_REFUSAL_MAX_PER_CLIENT,
	SRV_REFUSAL_MAX_PER_SUBNET,  /* a subnet's share of --max-clients */
	SRV_REFUSAL_MAX_DURATION,
	SRV_REFUSAL_MAX_STREAMS,
	SRV_REFUSAL_MAX_RATE,        /* asked for too much, or ran above it */
	SRV_REFUSAL_STREAM_SETUP,    /* a data stream's socket options failed */
	SRV_REFUSAL_OUT_OF_MEMORY,
	SRV_REFUSAL_PROTOCOL,        /* a message out of turn */
	SRV_REFUSAL_SHED,            /* in set-up when --max-pending needed room */
	SRV_REFUSAL_NO_STREAMS,      /* admitted, its streams did not come: released */
	SRV_REFUSAL_COUNT,
};
const char *srv_refusal_name(enum srv_refusal r);

/* Kinds by their number among those served (server/half.h); 0 counts tests of any other. */
#define SRV_STATS_KINDS (SRV_MAX_SERVED + 1)

enum srv_outcome { SRV_OUTCOME_OK, SRV_OUTCOME_FAILED, SRV_OUTCOME_REFUSED };

struct srv_stats {
	uint64_t start_ns;
	uint64_t tests[SRV_STATS_KINDS][2];               /* ok, failed */
	uint64_t refused[SRV_STATS_KINDS][SRV_REFUSAL_COUNT];
	uint64_t received[SRV_STATS_KINDS], sent[SRV_STATS_KINDS];
	uint64_t accepted;        /* connections on the test port */
	uint64_t scrapes;         /* GET /metrics answered 200 */
};

/* A test ended: its outcome (why refused, for SRV_OUTCOME_REFUSED) and what it moved. */
void srv_stats_test(struct srv_stats *st, int kind, enum srv_outcome o, enum srv_refusal why,
		    uint64_t received, uint64_t sent);

/* What the door closed before a connection was part of a test (server_accept.h). */
struct srv_stats_door {
	uint64_t fd_limit, shed, not_a_client, no_cookie;
};

/*
 * The families: boardperf_server_tests_total, _received_bytes_total, _sent_bytes_total,
 * _connections_accepted_total, _connections_refused_total, _active_tests,
 * _uptime_seconds, _scrapes_total, boardperf_build_info. No "# EOF".
 */
void srv_stats_write(const struct srv_stats *st, const struct srv_stats_door *door,
		     int active, uint64_t now_ns, FILE *out, enum bp_om_format f);

#endif
