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
#include "io/sock.h"
#include "stream/net_cli.h"
#include "stream/stream_metrics.h"
#include "stream/stream_client.h"
#include "stream/stream_report.h"
#include "result/result.h"

struct tcp_params {
	struct bp_net_cli net;
	uint64_t window;
	uint64_t len;
	int64_t mss;
	bool nodelay;
	const char *congestion;
	bool zerocopy;
	double rate;
};

static const struct bp_opt tcp_opts[] = {
	BP_NET_CLI_OPTS(struct tcp_params),
	BP_NET_CLI_SCTP_OPTS(struct tcp_params),
	{ 'w', "window", BP_OPT_SIZE, offsetof(struct tcp_params, window), "SIZE", NULL, 0,
	  1 << 30, NULL, "socket buffer size (SO_SNDBUF/SO_RCVBUF) on both ends" },
	{ 'l', "length", BP_OPT_SIZE, offsetof(struct tcp_params, len), "SIZE", NULL, 1,
	  1 << 20, NULL, "bytes per write (at most 1M; default 128K, with --sctp 64K: iperf3's)" },
	{ 'M', "set-mss", BP_OPT_INT, offsetof(struct tcp_params, mss), "MSS", "0", 0, 65535,
	  NULL, "TCP maximum segment size (0: the kernel's)" },
	{ 'N', "no-delay", BP_OPT_FLAG, offsetof(struct tcp_params, nodelay), NULL, NULL, 0, 0,
	  NULL, "TCP_NODELAY: no Nagle" },
	{ 'C', "congestion", BP_OPT_TEXT, offsetof(struct tcp_params, congestion), "ALGO",
	  NULL, 0, BP_SOCK_CONGESTION_MAX, NULL, "congestion control algorithm (e.g. cubic, "
	  "bbr; at most 15 bytes, Linux's TCP_CA_NAME_MAX)" },
	{ 'Z', "zerocopy", BP_OPT_FLAG, offsetof(struct tcp_params, zerocopy), NULL, NULL, 0, 0,
	  NULL, "send with MSG_ZEROCOPY where the kernel has it (the result says which ran)" },
	{ 'b', "bitrate", BP_OPT_RATE, offsetof(struct tcp_params, rate), "RATE", "0", 0, 1e12,
	  NULL, "pace each sending stream to RATE bit/s (kernel pacing), 0: as fast as it goes" },
	BP_OPT_END,
};

static int tcp_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct tcp_params *p = params;
	const char *tcp_only = p->congestion ? "-C" : p->zerocopy ? "-Z" : p->rate > 0 ? "-b" : NULL;

	if (bp_net_cli_check(&p->net, parsed, err, errlen))
		return -EINVAL;
	/* iperf3's defaults: 128 KiB a write over TCP, 64 KiB a message over SCTP */
	if (!p->len)
		p->len = p->net.sctp ? 64 * 1024 : 128 * 1024;
	/* Linux's SCTP has one congestion control, no MSG_ZEROCOPY and no socket pacing. */
	if (p->net.sctp && tcp_only) {
		snprintf(err, errlen, "%s is TCP's: not with --sctp", tcp_only);
		return -EINVAL;
	}
	return 0;
}

static int tcp_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct tcp_params *p = params;
	struct bp_stream_client_opts o;
	struct bp_net_params *np = &o.np;

	/* -v: per-stream lines per interval too, as iperf3 prints them with -P */
	r->text_show_stream_intervals = ctx->common && ctx->common->verbose > 0;
	bp_net_cli_fill(&p->net, "tcp", &o);
	o.start_at_ns = ctx->common ? ctx->common->start_at_ns : 0;
	o.live = ctx->live;
	o.live_result = r;
	np->window = (int)p->window;
	np->len = (int)p->len;
	np->mss = (int)p->mss;
	np->nodelay = p->nodelay;
	np->zerocopy = p->zerocopy;
	np->bandwidth = p->rate;
	snprintf(np->congestion, sizeof(np->congestion), "%s", p->congestion ? p->congestion : "");
	return bp_net_cli_run(&p->net, &o, r, err, errlen);
}

const struct bp_test bp_cmd_tcp = {
	.name = "tcp",
	.summary = "TCP (or --sctp: SCTP) throughput to or from `boardperf serve`, per interval "
		   "and in total",
	.synopsis = "-c HOST [-t S] [-i S] [-P N] [-R | --bidir] [-b RATE] [-w SIZE] [-l SIZE] [-Z] "
		    "[--iperf3] [--sctp [--nstreams N]]",
	.opts = tcp_opts,
	.params_size = sizeof(struct tcp_params),
	.check = tcp_check,
	.run = tcp_run,
	.kind = &bp_kind_tcp,
	.starts_at_first_byte = true,
};
