/*
 * `boardperf latency -c HOST`: latency under load (bufferbloat), as flent's RRUL, iperf 2's
 * --bounceback-congest and the IETF responsiveness draft measure it: small rr probes on an
 * idle path, then the same probes while -P TCP streams saturate it in one direction or
 * both; the delay the load added per percentile, round trips per minute under load, the
 * throughput reached meanwhile and the load's congestion control (docs/latency.md, "Latency
 * under load"). The probes and the load are the rr and tcp commands themselves (latency_run.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "core/checks.h"
#include "core/options.h"
#include "core/test.h"
#include "io/sock.h"
#include "result/result.h"
#include "suite/latency_metrics.h"
#include "suite/latency_report.h"
#include "suite/latency_run.h"

struct latency_params {
	const char *host;
	int64_t port;
	uint64_t time, idle, omit;
	int load;
	int64_t parallel;
	double rate;
	bool tcp, udp;
	const char *congestion;
	bool v4, v6;
	uint64_t connect_timeout, idle_timeout;
	const char *psk_file;
};

#define OFF(f) offsetof(struct latency_params, f)

static const struct bp_opt latency_opts[] = {
	{ 'c', "client", BP_OPT_STRING, OFF(host), "HOST", NULL, 0, 0, NULL,
	  "the boardperf server to test against (required)" },
	{ 'p', "port", BP_OPT_INT, OFF(port), "PORT", "5201", 1, 65535, NULL, "server port" },
	{ 0, "load", BP_OPT_CHOICE, OFF(load), "DIR", "up", 0, 0, bp_latency_load_names,
	  "which way the load's streams send: up (this side sends), down (the server sends) "
	  "or bidir (both at once)" },
	{ 'P', "parallel", BP_OPT_INT, OFF(parallel), "N", "4", 1, 64, NULL,
	  "load streams (per direction)" },
	{ 't', "time", BP_OPT_DURATION, OFF(time), "S", "20", 1, 3600, NULL,
	  "the loaded phase: probes and load counted this long" },
	{ 0, "idle-time", BP_OPT_DURATION, OFF(idle), "S", "5", 1, 3600, NULL,
	  "the idle phase before it: probes alone this long" },
	{ 'O', "omit", BP_OPT_DURATION, OFF(omit), "S", "2", 0, 600, NULL,
	  "each phase runs S seconds before it counts (under load: while the queue fills)" },
	{ 0, "rate", BP_OPT_NUMBER, OFF(rate), "N", "20", 0.5, 128, NULL,
	  "probes per second of each protocol (open loop, latency from each one's due time)" },
	{ 0, "tcp", BP_OPT_FLAG, OFF(tcp), NULL, NULL, 0, 0, NULL,
	  "TCP probes only (default: TCP and UDP)" },
	{ 0, "udp", BP_OPT_FLAG, OFF(udp), NULL, NULL, 0, 0, NULL,
	  "UDP probes only (default: TCP and UDP)" },
	{ 'C', "congestion", BP_OPT_TEXT, OFF(congestion), "ALGO", NULL, 0,
	  BP_SOCK_CONGESTION_MAX, NULL, "the load's congestion control (e.g. cubic, bbr; at "
	  "most 15 bytes, Linux's TCP_CA_NAME_MAX; default: the sender's own)" },
	{ '4', "version4", BP_OPT_FLAG, OFF(v4), NULL, NULL, 0, 0, NULL, "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, OFF(v6), NULL, NULL, 0, 0, NULL, "IPv6 only" },
	{ 0, "connect-timeout", BP_OPT_DURATION, OFF(connect_timeout), "S", "3", 0.1, 600, NULL,
	  "give up connecting (to the server's first answer) after S seconds" },
	{ 0, "idle-timeout", BP_OPT_DURATION, OFF(idle_timeout), "S", "10", 0.1, 3600, NULL,
	  "end a phase when nothing moved for S seconds (a cut link, a server gone)" },
	{ 0, "psk", BP_OPT_STRING, OFF(psk_file), "FILE", NULL, 0, 0, NULL,
	  "prove the pre-shared key in FILE to a locked server (serve --psk)" },
	BP_OPT_END,
};

static int latency_check(void *params, const struct bp_parsed *parsed, char *err,
			 size_t errlen)
{
	struct latency_params *p = params;

	if (bp_check_no_positional(parsed, err, errlen) ||
	    bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen))
		return -EINVAL;
	if (!p->host) {
		snprintf(err, errlen, "-c HOST is required: the boardperf server to test against");
		return -EINVAL;
	}
	if (bp_check_host("-c", p->host, "-p", err, errlen))
		return -EINVAL;
	/* Both flags or neither: both protocols probe. */
	if (!p->tcp && !p->udp)
		p->tcp = p->udp = true;
	return 0;
}

static int latency_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		       char *err, size_t errlen)
{
	const struct latency_params *p = params;
	struct bp_latency_plan plan = {
		.host = p->host, .port = p->port, .v4 = p->v4, .v6 = p->v6,
		.idle_ns = p->idle, .time_ns = p->time, .omit_ns = p->omit,
		.connect_timeout_ns = p->connect_timeout, .idle_timeout_ns = p->idle_timeout,
		.load = p->load, .parallel = p->parallel, .rate = p->rate, .tcp = p->tcp,
		.udp = p->udp, .congestion = p->congestion, .psk_file = p->psk_file,
	};
	int rc = bp_latency_run(&plan, ctx, r, err, errlen), report_rc;

	json_object_set_new(r->params, "probe_flows",
			    json_integer(bp_latency_probe_flows(p->rate)));
	json_object_set_new(r->params, "congestion", json_string(p->congestion ? p->congestion :
								 "default"));
	/* What the phases measured is reported, also after one of them failed. */
	report_rc = bp_latency_report(r);
	return rc ? rc : report_rc;
}

const struct bp_test bp_cmd_latency = {
	.name = "latency",
	.summary = "latency under load: rr probes idle, then while TCP streams saturate the path "
		   "(added delay, RPM)",
	.synopsis = "-c HOST [--load up|down|bidir] [-P N] [-t S] [--idle-time S] [-O S] "
		    "[--rate N] [--tcp|--udp] [-C ALGO]",
	.opts = latency_opts,
	.params_size = sizeof(struct latency_params),
	.check = latency_check,
	.run = latency_run,
	.kind = &bp_kind_latency,
};
