/*
 * `boardperf tcp -c HOST`: TCP throughput against `boardperf serve`, with iperf3's flags and
 * meanings. Both ends count: the sender what it wrote, the receiver what arrived; the
 * result carries both, per interval and in total, with each side's CPU use.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/buildinfo.h"
#include "core/clock.h"
#include "core/test.h"
#include "net/proto.h"
#include "net/tcp_client.h"
#include "net/tcp_report.h"
#include "result/result.h"

struct tcp_params {
	const char *host;
	int64_t port;
	uint64_t time;
	uint64_t interval;
	uint64_t omit;
	int64_t parallel;
	bool reverse;
	bool bidir;
	uint64_t window;
	uint64_t len;
	int64_t mss;
	bool nodelay;
	const char *congestion;
	bool zerocopy;
	bool v4, v6;
	uint64_t connect_timeout;
};

static const struct bp_opt tcp_opts[] = {
	{ 'c', "client", BP_OPT_STRING, offsetof(struct tcp_params, host), "HOST", NULL, 0, 0,
	  NULL, "the boardperf server to test against (required)" },
	{ 'p', "port", BP_OPT_INT, offsetof(struct tcp_params, port), "PORT", "5201", 1, 65535,
	  NULL, "server port" },
	{ 't', "time", BP_OPT_DURATION, offsetof(struct tcp_params, time), "S", "10", 0.1, 86400,
	  NULL, "how long to move data" },
	{ 'i', "interval", BP_OPT_DURATION, offsetof(struct tcp_params, interval), "S", "1", 0,
	  3600, NULL, "seconds between interval reports, 0 for none" },
	{ 'O', "omit", BP_OPT_DURATION, offsetof(struct tcp_params, omit), "S", "0", 0, 3600,
	  NULL, "first run S seconds more and leave them (slow start) out of the totals" },
	{ 'P', "parallel", BP_OPT_INT, offsetof(struct tcp_params, parallel), "N", "1", 1, 128,
	  NULL, "parallel streams (per direction)" },
	{ 'R', "reverse", BP_OPT_FLAG, offsetof(struct tcp_params, reverse), NULL, NULL, 0, 0,
	  NULL, "the server sends, this side receives" },
	{ 0, "bidir", BP_OPT_FLAG, offsetof(struct tcp_params, bidir), NULL, NULL, 0, 0, NULL,
	  "both send at once" },
	{ 'w', "window", BP_OPT_SIZE, offsetof(struct tcp_params, window), "SIZE", NULL, 0,
	  1 << 30, NULL, "socket buffer size (SO_SNDBUF/SO_RCVBUF) on both ends" },
	{ 'l', "length", BP_OPT_SIZE, offsetof(struct tcp_params, len), "SIZE", "128K", 1,
	  1 << 20, NULL, "bytes per write (at most 1M, as iperf3)" },
	{ 'M', "set-mss", BP_OPT_INT, offsetof(struct tcp_params, mss), "MSS", "0", 0, 65535,
	  NULL, "TCP maximum segment size (0: the kernel's)" },
	{ 'N', "no-delay", BP_OPT_FLAG, offsetof(struct tcp_params, nodelay), NULL, NULL, 0, 0,
	  NULL, "TCP_NODELAY: no Nagle" },
	{ 'C', "congestion", BP_OPT_STRING, offsetof(struct tcp_params, congestion), "ALGO",
	  NULL, 0, 0, NULL, "congestion control algorithm (e.g. cubic, bbr)" },
	{ 'Z', "zerocopy", BP_OPT_FLAG, offsetof(struct tcp_params, zerocopy), NULL, NULL, 0, 0,
	  NULL, "send with MSG_ZEROCOPY where the kernel has it (the result says which ran)" },
	{ '4', "version4", BP_OPT_FLAG, offsetof(struct tcp_params, v4), NULL, NULL, 0, 0, NULL,
	  "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, offsetof(struct tcp_params, v6), NULL, NULL, 0, 0, NULL,
	  "IPv6 only" },
	{ 0, "connect-timeout", BP_OPT_DURATION, offsetof(struct tcp_params, connect_timeout),
	  "S", "3", 0.1, 600, NULL, "give up connecting after S seconds" },
	BP_OPT_END,
};

static int tcp_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	const struct tcp_params *p = params;

	if (bp_check_no_positional(parsed, err, errlen))
		return -EINVAL;
	if (!p->host) {
		snprintf(err, errlen, "-c HOST is required: the boardperf server to test against");
		return -EINVAL;
	}
	if (bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen))
		return -EINVAL;
	if (p->reverse && p->bidir) {
		snprintf(err, errlen, "-R and --bidir exclude each other: --bidir already sends "
			 "both ways");
		return -EINVAL;
	}
	return 0;
}

static void fill_net_params(const struct tcp_params *p, struct bp_net_params *np)
{
	memset(np, 0, sizeof(*np));
	snprintf(np->test, sizeof(np->test), "tcp");
	np->bp_version = BP_PROTO_VERSION;
	np->time_ns = p->time;
	np->omit_ns = p->omit;
	np->interval_ns = p->interval;
	np->parallel = (int)p->parallel;
	np->reverse = p->reverse;
	np->bidir = p->bidir;
	np->window = (int)p->window;
	np->len = (int)p->len;
	np->mss = (int)p->mss;
	np->nodelay = p->nodelay;
	np->zerocopy = p->zerocopy;
	snprintf(np->congestion, sizeof(np->congestion), "%s", p->congestion ? p->congestion : "");
	snprintf(np->client_version, sizeof(np->client_version), "boardperf %s", bp_version());
}

static int tcp_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct tcp_params *p = params;
	struct bp_tcp_client_opts o = {
		.host = p->host, .port = (unsigned)p->port,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
		.connect_timeout_ns = p->connect_timeout,
	};

	(void)ctx;
	fill_net_params(p, &o.np);
	return bp_net_run_and_report(&o, r, err, errlen);
}

const struct bp_test bp_cmd_tcp = {
	.name = "tcp",
	.summary = "TCP throughput to or from `boardperf serve`, per interval and in total",
	.synopsis = "-c HOST [-t S] [-i S] [-P N] [-R | --bidir] [-w SIZE] [-l SIZE] [-Z]",
	.opts = tcp_opts,
	.params_size = sizeof(struct tcp_params),
	.needs_peer = true,
	.check = tcp_check,
	.run = tcp_run,
};
