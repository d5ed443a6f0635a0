/*
 * `boardperf latency`'s two phases (docs/latency.md, "Latency under load"): rr probes on an idle
 * path, then the same probes while TCP streams load it, each probe protocol and the load
 * on connections (and control sessions) of their own against one `boardperf serve`. Each
 * is the real `rr` or `tcp` command, parsed from the command line a user would type, run
 * on a thread of its own, so that its result is the one that command gives alone; they
 * become the children of the latency result, which latency_report.c sums up.
 */
#ifndef BP_SUITE_LATENCY_RUN_H
#define BP_SUITE_LATENCY_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/test.h"
#include "result/result.h"

/* --load's names, in the order of enum bp_latency_load. */
extern const char *const bp_latency_load_names[];
enum bp_latency_load { BP_LATENCY_UP, BP_LATENCY_DOWN, BP_LATENCY_BIDIR };

struct bp_latency_plan {
	const char *host;
	int64_t port;
	bool v4, v6;
	uint64_t idle_ns;        /* the idle phase's probes */
	uint64_t time_ns;        /* the loaded phase's counted span (probes and load) */
	uint64_t omit_ns;        /* each phase's uncounted start (the queue fills under load) */
	uint64_t connect_timeout_ns, idle_timeout_ns;
	int load;                /* enum bp_latency_load */
	int64_t parallel;        /* load streams per direction */
	double rate;             /* probes/s per protocol */
	bool tcp, udp;           /* which probes */
	const char *congestion;  /* the load's -C, NULL for the machine's default */
	const char *psk_file;
};

/*
 * Connections each probe protocol spreads its --rate over: one probe at a time per
 * connection, so each gets about half a second between its probes (see the .c).
 */
int bp_latency_probe_flows(double rate);

/*
 * Run both phases, adding each child's result to r (idle probes, then the loaded probes
 * and the load; params.phase "idle" or "loaded", params.role "probe" or "load"). 0, or the
 * first failure's negative errno and message; what was measured stays in r.
 */
int bp_latency_run(const struct bp_latency_plan *p, const struct bp_test_ctx *ctx,
		   struct bp_result *r, char *err, size_t errlen);

#endif
