/*
 * `boardperf rr -c HOST`: request/response latency and transactions/s (netperf's TCP_RR and
 * UDP_RR, sockperf's ping-pong), closed or open loop.
 * `boardperf crr -c HOST`: a new connection per transaction (netperf's TCP_CRR), RFC 9411's
 * connections per second with ramp-up, sustain and a failure-ratio verdict, or with
 * --concurrent the number of connections a path holds at once; with --connect-only the
 * handshake and close alone (iperf2's --connect-only), to any TCP listener.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buildinfo.h"
#include "core/clock.h"
#include "core/test.h"
#include "core/units.h"
#include "proto/iperf2_bounceback.h"
#include "core/share.h"
#include "stream/net_cli.h"
#include "rr/crr_search_run.h"
#include "rr/rr_metrics.h"
#include "rr/rr_report.h"
#include "rr/rr_responder.h"

struct rr_params {
	struct bp_net_cli net;
	const char *sizes;
	bool udp;
	double rate;
	uint64_t timeout;
	uint64_t ramp;
	int64_t concurrent;
	bool connect_only;
	int64_t max_inflight;
	bool search;
	double resolution;
	double max_failures;
	bool trip_times;    /* rr --iperf2 --trip-times */
	const char *share_text;
	struct bp_share share;  /* --share K/N, resolved by the check */
	size_t req, resp;   /* resolved by the check */
};

#define RR_COMMON_OPTS \
	BP_NET_CLI_BASE_OPTS(struct rr_params), \
	{ 'l', "length", BP_OPT_STRING, offsetof(struct rr_params, sizes), "REQ[,RESP]", NULL, \
	  0, 0, NULL, "request and response bytes (one size: both; default 1, over UDP 8), " \
	  "e.g. 64,1K" }, \
	{ 0, "rate", BP_OPT_NUMBER, offsetof(struct rr_params, rate), "N", "0", 0, 1e8, NULL, \
	  "open loop: N transactions/s over all flows, latency from each one's due time; " \
	  "0: closed loop" }, \
	{ 0, "share", BP_OPT_STRING, offsetof(struct rr_params, share_text), "K/N", NULL, 0, 0, \
	  NULL, "offer the K-th of N shares of --rate, N testers at once each with its K " \
	  "(docs/json.md, \"Shares of a load\")" }

static const struct bp_opt rr_opts[] = {
	RR_COMMON_OPTS,
	BP_NET_CLI_SCTP_OPTS(struct rr_params),
	{ 'u', "udp", BP_OPT_FLAG, offsetof(struct rr_params, udp), NULL, NULL, 0, 0, NULL,
	  "over UDP (a lost request or answer counts as a timeout)" },
	{ 0, "timeout", BP_OPT_DURATION, offsetof(struct rr_params, timeout), "S", "1", 0.001,
	  60, NULL, "a transaction not answered within S fails" },
	{ 0, "iperf2", BP_OPT_FLAG, offsetof(struct rr_params, net.iperf2), NULL, NULL, 0, 0,
	  NULL, "the server is a stock iperf -s (2.1): iperf 2's bounceback, port 5001, -l 100 "
	  "both ways unless set (64 B to 1 MiB)" },
	{ 0, "trip-times", BP_OPT_FLAG, offsetof(struct rr_params, trip_times), NULL, NULL, 0,
	  0, NULL, "with --iperf2: each direction's one-way delay from the server's times "
	  "(the clocks must agree)" },
	BP_OPT_END,
};

static const struct bp_opt crr_opts[] = {
	RR_COMMON_OPTS,
	BP_NET_CLI_SCTP_OPT(struct rr_params),
	{ 0, "timeout", BP_OPT_DURATION, offsetof(struct rr_params, timeout), "S", "2", 0.001,
	  60, NULL, "a connection not done within S fails (a dropped SYN is retried after 1 s)" },
	{ 0, "ramp", BP_OPT_DURATION, offsetof(struct rr_params, ramp), "S", "0", 0, 3600, NULL,
	  "with --rate: rise from 0 to the rate over S seconds first (not counted)" },
	{ 0, "concurrent", BP_OPT_INT, offsetof(struct rr_params, concurrent), "N", "0", 0,
	  1000000, NULL, "open N connections (-P at a time), hold them -t seconds, check each "
	  "still answers" },
	{ 0, "connect-only", BP_OPT_FLAG, offsetof(struct rr_params, connect_only), NULL, NULL,
	  0, 0, NULL, "only connect and close (this side closes first), as iperf2 --connect-only: "
	  "any TCP listener will do, no boardperf server needed" },
	{ 0, "max-failure-ratio", BP_OPT_NUMBER, offsetof(struct rr_params, max_failures), "PCT",
	  "0.001", 0, 100, NULL, "the verdict's threshold: failed attempts in percent "
	  "(RFC 9411: 0.001); also --search's" },
	{ 0, "max-inflight", BP_OPT_INT, offsetof(struct rr_params, max_inflight), "N", "0", 0,
	  100000000, NULL, "with --rate: connections in flight at most (each due one starts on "
	  "its own socket); 0: rate x --timeout + 10 %, within ulimit -n" },
	{ 0, "search", BP_OPT_FLAG, offsetof(struct rr_params, search), NULL, NULL, 0, 0, NULL,
	  "find the highest connection rate within --max-failure-ratio (RFC 9411): trials of -t "
	  "seconds from --rate (default 100) up, doubling until one fails, then bisecting" },
	{ 0, "resolution", BP_OPT_NUMBER, offsetof(struct rr_params, resolution), "PCT", NULL,
	  0.1, 50, NULL, "--search stops when the bracket is this narrow, in percent of the rate "
	  "found (default 1)" },
	BP_OPT_END,
};

/*
 * "64" or "64,1K": sizes within 1 byte (8 over UDP: the sequence number; 64 with --iperf2:
 * a bounceback request's head) and 1 MiB.
 */
static int parse_sizes(struct rr_params *p, char *err, size_t errlen)
{
	size_t min = p->net.iperf2 ? BP_IPERF2_BB_HEAD_LEN : p->udp ? BP_RR_SEQ_LEN : 1;
	const char *sizes = p->sizes ? p->sizes : p->net.iperf2 ? "100" : p->udp ? "8" : "1";
	const char *comma = strchr(sizes, ',');
	char first[64];
	uint64_t a, b;

	snprintf(first, sizeof(first), "%.*s", comma ? (int)(comma - sizes) : 63, sizes);
	if (bp_parse_size(first, &a) || (comma && bp_parse_size(comma + 1, &b))) {
		snprintf(err, errlen, "-l '%s': expected REQ[,RESP] sizes such as 64 or 64,1K",
			 sizes);
		return -EINVAL;
	}
	if (!comma)
		b = a;
	if (a < min || b < min || a > BP_RR_MAX_LEN || b > BP_RR_MAX_LEN) {
		snprintf(err, errlen, "-l '%s': sizes must be %zu B .. 1 MiB%s", sizes, min,
			 p->net.iperf2 ? " with --iperf2 (a bounceback request's head is 64)" :
			 p->udp ? " over UDP (8 bytes carry the sequence number)" : "");
		return -EINVAL;
	}
	if (p->net.iperf2 && a != b) {
		snprintf(err, errlen, "-l '%s' with --iperf2: one size, iperf 2's bounceback "
			 "answers with the request's own bytes", sizes);
		return -EINVAL;
	}
	p->req = (size_t)a;
	p->resp = (size_t)b;
	return 0;
}

static int rr_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct rr_params *p = params;

	/* -R, --bidir and --iperf3 are not in the table (BP_NET_CLI_BASE_OPTS): never set. */
	if (bp_net_cli_check(&p->net, parsed, err, errlen))
		return -EINVAL;
	if (p->net.sctp && p->udp) {
		snprintf(err, errlen, "--sctp and --udp: expected one transport");
		return -EINVAL;
	}
	if (p->net.iperf2 && p->udp) {
		snprintf(err, errlen, "--iperf2 with --udp: iperf 2's bounceback runs over TCP only");
		return -EINVAL;
	}
	if (p->trip_times && !p->net.iperf2) {
		snprintf(err, errlen, "--trip-times needs --iperf2: it reads the times an iperf 2 "
			 "server writes into each answer");
		return -EINVAL;
	}
	if (p->share_text && bp_share_parse(p->share_text, &p->share, err, errlen))
		return -EINVAL;
	if (p->share.n && (p->rate <= 0 || p->search)) {
		snprintf(err, errlen, "--share %s needs --rate to share%s", p->share_text,
			 p->search ? ", not --search (each tester would search on its own)" :
			 " (a closed loop has none)");
		return -EINVAL;
	}
	if (bp_share_check(&p->share, p->share_text, p->rate, "--rate", err, errlen))
		return -EINVAL;
	if (p->ramp && p->rate <= 0 && !p->search) {
		snprintf(err, errlen, "--ramp needs --rate: a ramp rises to an offered rate");
		return -EINVAL;
	}
	if (p->concurrent && p->rate > 0 && p->ramp) {
		snprintf(err, errlen, "--concurrent opens at --rate; --ramp does not apply");
		return -EINVAL;
	}
	if (p->max_inflight && p->rate <= 0 && !p->search) {
		snprintf(err, errlen, "--max-inflight %lld needs --rate or --search: a closed loop "
			 "has one connection per flow", (long long)p->max_inflight);
		return -EINVAL;
	}
	if (p->resolution > 0 && !p->search) {
		snprintf(err, errlen, "--resolution %g needs --search: it is the search's stop",
			 p->resolution);
		return -EINVAL;
	}
	if (p->search && !(p->resolution > 0))
		p->resolution = 1;
	if (p->search && p->concurrent) {
		snprintf(err, errlen, "--search finds a connection rate; --concurrent %lld counts "
			 "held connections instead", (long long)p->concurrent);
		return -EINVAL;
	}
	if (p->max_inflight && p->concurrent) {
		snprintf(err, errlen, "--max-inflight does not apply to --concurrent: it holds -P "
			 "connections opening at a time");
		return -EINVAL;
	}
	if (p->connect_only && p->net.psk_file) {
		snprintf(err, errlen, "--psk does not apply to --connect-only: it opens no control "
			 "connection to prove a key on");
		return -EINVAL;
	}
	if (p->connect_only && (p->sizes || p->concurrent)) {
		snprintf(err, errlen, "%s does not apply to --connect-only: no request is sent%s",
			 p->sizes ? "-l" : "--concurrent",
			 p->sizes ? "" : ", so nothing could check that a held connection answers");
		return -EINVAL;
	}
	return parse_sizes(p, err, errlen);
}

static int run_common(const struct rr_params *p, const char *test,
		      const struct bp_test_ctx *ctx, struct bp_result *r, char *err, size_t errlen)
{
	struct bp_stream_client_opts base;
	struct bp_rr_client_opts o = { 0 };
	struct bp_rr_report_opts ro = { .max_failure_pct = p->max_failures };
	struct bp_iperf3_client auth;
	int rc;

	bp_net_cli_fill(&p->net, test, &base);
	o.host = base.host;
	o.port = base.port;
	o.family = base.family;
	o.connect_timeout_ns = base.connect_timeout_ns;
	o.start_at_ns = ctx->common ? ctx->common->start_at_ns : 0;
	o.idle_timeout_ns = base.idle_timeout_ns;
	o.psk = base.psk;
	o.np = base.np;
	o.np.len = (int)p->req;  /* iperf3's block size key; the rr keys carry the real sizes */
	o.np.rr_request = (int)p->req;
	o.np.rr_response = (int)p->resp;
	o.np.rr_udp = p->udp;
	o.np.trip_times = p->trip_times;
	o.np.crr_hold = p->concurrent > 0;
	o.rate = bp_share_of(&p->share, p->rate);
	if (p->share.n)
		json_object_set_new(r->params, "share_rate", json_real(o.rate));
	o.timeout_ns = p->timeout;
	o.ramp_ns = p->ramp;
	o.concurrent = p->concurrent;
	o.connect_only = p->connect_only;
	o.live = ctx->live;
	o.live_result = r;
	o.max_inflight = (size_t)p->max_inflight;
	if (!p->connect_only) {  /* the option itself is in params as connect-only */
		json_object_set_new(r->params, "request", json_integer((json_int_t)p->req));
		json_object_set_new(r->params, "response", json_integer((json_int_t)p->resp));
	}
	rc = bp_net_cli_sctp_ready(&p->net, err, errlen);
	if (!rc)
		rc = bp_net_cli_auth_open(&p->net, &auth, &o.np, err, errlen);
	if (rc)
		return rc;
	if (p->search)
		rc = bp_crr_search_run(&o, &ro, p->resolution, r, err, errlen);
	else
		rc = bp_rr_run_and_report(&o, &ro, r, err, errlen);
	bp_net_cli_auth_close(&auth);
	return rc;
}

static int rr_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		  char *err, size_t errlen)
{
	return run_common(params, "rr", ctx, r, err, errlen);
}

static int crr_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	return run_common(params, "crr", ctx, r, err, errlen);
}

const struct bp_test bp_cmd_rr = {
	.name = "rr",
	.summary = "request/response latency percentiles and transactions/s to `boardperf serve`",
	.synopsis = "-c HOST [-l REQ[,RESP]] [-P N] [-t S] [-i S] [--udp | --sctp] [--rate N] "
		    "[--iperf2 [--trip-times]]",
	.opts = rr_opts,
	.params_size = sizeof(struct rr_params),
	.check = rr_check,
	.run = rr_run,
	.kind = &bp_kind_rr,
	.starts_at_first_byte = true,
};

const struct bp_test bp_cmd_crr = {
	.name = "crr",
	.summary = "connections/s (connect, request, response, close) and concurrent connections",
	.synopsis = "-c HOST [-l REQ[,RESP] | --connect-only] [-P N] [-t S] [--rate N [--ramp S]] "
		    "[--concurrent N] [--max-failure-ratio PCT] [--sctp]",
	.opts = crr_opts,
	.params_size = sizeof(struct rr_params),
	.check = rr_check,
	.run = crr_run,
	.kind = &bp_kind_crr,
	.starts_at_first_byte = true,
};
