/*
 * The client of `boardperf rr` and `boardperf crr`: the control exchange with
 * `boardperf serve` (none for crr --connect-only, which any TCP listener answers), the
 * flows on per-core workers, interval and total statistics.
 */
#ifndef BP_RR_RR_CLIENT_H
#define BP_RR_RR_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/params.h"
#include "proto/results.h"
#include "result/live.h"
#include "rr/rr_flow.h"
#include "rr/rr_stats.h"
#include "stats/conn_hists.h"

struct bp_psk;

struct bp_rr_client_opts {
	const char *host;
	unsigned port;
	enum bp_family family;
	uint64_t connect_timeout_ns;
	/* --start-at: the first byte waits for this wall-clock instant (ns; 0: at once) */
	int64_t start_at_ns;
	uint64_t idle_timeout_ns;  /* no transaction done this long ends an rr test; 0: 10 s */
	const struct bp_psk *psk;  /* the key to prove to a locked server (NULL: none) */
	/* test "rr" or "crr", parallel flows, time, omit, sizes; iperf2 (rr --iperf2: iperf 2's
	 * bounceback toward iperf -s, no control connection) and its trip_times */
	struct bp_net_params np;
	double rate;               /* open loop: transactions/s over all flows; 0 closed loop */
	uint64_t timeout_ns;       /* per transaction */
	uint64_t ramp_ns;          /* crr --rate: the rate rises from 0 over this (not counted) */
	int64_t concurrent;        /* crr: connections to open and hold, 0 for none */
	bool connect_only;         /* crr: connect and close, to any listener (no control) */
	struct bp_live *live;      /* each interval as it ends (NULL: none); live_result's */
	const struct bp_result *live_result;
	size_t max_inflight;       /* crr --rate: connections in flight at most; 0: derived */
};

struct bp_rr_interval {
	double start_s, end_s;
	bool omitted;              /* before the counted start (-O, --ramp) */
	struct bp_rr_counts c;
	struct bp_histo_summary latency, connect;
};

struct bp_rr_outcome {
	struct bp_rr_counts total;       /* the counted span */
	struct bp_histo_summary latency, connect;
	/* the run's distributions themselves, which the result carries whole (for `merge`) */
	struct bp_conn_hists hists;
	/* the mean of the best 95 % of the transactions' latencies (the responsiveness draft's TM) */
	double latency_tm95;
	struct bp_rr_interval *iv;
	int niv;
	double counted_s;                /* the counted span's length */
	double duration_s;               /* the whole run */
	struct bp_net_results *local;    /* CPU and flows of this side */
	struct bp_net_results *remote;   /* the server's: transactions answered, CPU */
	struct bp_rr_concurrent cc;      /* --concurrent */
	char server_addr[64];
	bool this_host;                 /* the server is on this machine (bp_addr_is_this_host) */
	json_t *path;                   /* the path toward it at the start (board/net_path.h), or NULL */
	int64_t start_at_ns, started_ns; /* --start-at: the instant, the wall clock as the first
	                                  * byte left (board/start_at_result.h); 0: none */
	int workers;
	bool interrupted;
	bool data_stopped;               /* rr: no answer for the idle timeout, ended early */
	double stopped_s, idle_s;        /* then: the last answer (from the start), the timeout */
	int flow_error;                  /* the first broken rr flow's errno (negative) */
	/* crr: the client's own TCP sockets in TIME_WAIT at the end (/proc/net/sockstat) */
	long time_wait;
	/* crr --rate: the cap on connections in flight (0: none applies), what the rate may need */
	size_t inflight_cap, inflight_need;
	double drained_s;                /* then: how long the drain after the end took */
	struct bp_rr_inflight inflight;
	/* rr --iperf2 --trip-times: the requests' and the answers' one-way delays (ns) */
	struct bp_welford owd_up, owd_down;
};

int bp_rr_client_run(const struct bp_rr_client_opts *o, struct bp_rr_outcome *out,
		     char *err, size_t errlen);
void bp_rr_outcome_free(struct bp_rr_outcome *out);

#endif
