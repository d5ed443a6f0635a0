/*
 * `boardperf udp -c HOST`: UDP at a paced rate (or as fast as possible): datagrams and
 * bit/s offered and received, loss with the tester's own drops told apart, RFC 3550 jitter.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/buildinfo.h"
#include "core/test.h"
#include "net/frame.h"
#include "net/proto.h"
#include "net/tcp_report.h"
#include "net/udp_header.h"

struct udp_params {
	const char *host;
	int64_t port;
	double rate;
	uint64_t len;
	int64_t frame;
	uint64_t time, interval, omit;
	int64_t parallel;
	bool reverse, bidir;
	uint64_t window;
	bool v4, v6;
	uint64_t connect_timeout;
	size_t payload;   /* resolved by udp_check */
};

static const struct bp_opt udp_opts[] = {
	{ 'c', "client", BP_OPT_STRING, offsetof(struct udp_params, host), "HOST", NULL, 0, 0,
	  NULL, "the boardperf server to test against (required)" },
	{ 'p', "port", BP_OPT_INT, offsetof(struct udp_params, port), "PORT", "5201", 1, 65535,
	  NULL, "server port" },
	{ 'b', "bitrate", BP_OPT_RATE, offsetof(struct udp_params, rate), "RATE", "1M", 0, 1e12,
	  NULL, "payload bit/s per stream, as iperf3 -b; 0: as fast as possible" },
	{ 'l', "length", BP_OPT_SIZE, offsetof(struct udp_params, len), "LEN", "1460",
	  BP_UDP_IPERF_MIN_LEN, BP_UDP_IPERF_MAX_LEN, NULL, "UDP payload bytes per datagram" },
	{ 0, "frame", BP_OPT_INT, offsetof(struct udp_params, frame), "SIZE", "0", 0, 9216, NULL,
	  "Ethernet frame size with FCS (64..1518) instead of -l: the payload that fills it" },
	{ 't', "time", BP_OPT_DURATION, offsetof(struct udp_params, time), "S", "10", 0.1, 86400,
	  NULL, "how long to send" },
	{ 'i', "interval", BP_OPT_DURATION, offsetof(struct udp_params, interval), "S", "1", 0,
	  3600, NULL, "seconds between interval reports, 0 for none" },
	{ 'O', "omit", BP_OPT_DURATION, offsetof(struct udp_params, omit), "S", "0", 0, 3600,
	  NULL, "first run S seconds more and leave them out of the totals" },
	{ 'P', "parallel", BP_OPT_INT, offsetof(struct udp_params, parallel), "N", "1", 1, 128,
	  NULL, "parallel streams (per direction)" },
	{ 'R', "reverse", BP_OPT_FLAG, offsetof(struct udp_params, reverse), NULL, NULL, 0, 0,
	  NULL, "the server sends, this side receives" },
	{ 0, "bidir", BP_OPT_FLAG, offsetof(struct udp_params, bidir), NULL, NULL, 0, 0, NULL,
	  "both send at once" },
	{ 'w', "window", BP_OPT_SIZE, offsetof(struct udp_params, window), "SIZE", "4M", 0,
	  1 << 30, NULL, "socket buffers (a receiver needs room for bursts)" },
	{ '4', "version4", BP_OPT_FLAG, offsetof(struct udp_params, v4), NULL, NULL, 0, 0, NULL,
	  "IPv4 only" },
	{ '6', "version6", BP_OPT_FLAG, offsetof(struct udp_params, v6), NULL, NULL, 0, 0, NULL,
	  "IPv6 only" },
	{ 0, "connect-timeout", BP_OPT_DURATION, offsetof(struct udp_params, connect_timeout),
	  "S", "3", 0.1, 600, NULL, "give up connecting after S seconds" },
	BP_OPT_END,
};

static int udp_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct udp_params *p = params;

	if (bp_check_no_positional(parsed, err, errlen) ||
	    bp_check_exclusive(p->v4, "-4", p->v6, "-6", err, errlen) ||
	    bp_check_exclusive(p->reverse, "-R", p->bidir, "--bidir", err, errlen))
		return -EINVAL;
	if (!p->host) {
		snprintf(err, errlen, "-c HOST is required: the boardperf server to test against");
		return -EINVAL;
	}
	p->payload = (size_t)p->len;
	/* A frame size names the payload that fills exactly that frame (IPv6 has 20 B more). */
	if (p->frame && bp_frame_payload((unsigned)p->frame, p->v6 ? 6 : 4, BP_UDP_IPERF_MIN_LEN,
					 0, &p->payload, err, errlen))
		return -EINVAL;
	return 0;
}

static int udp_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct udp_params *p = params;
	struct bp_tcp_client_opts o = {
		.host = p->host, .port = (unsigned)p->port,
		.family = p->v4 ? BP_FAMILY_V4 : p->v6 ? BP_FAMILY_V6 : BP_FAMILY_ANY,
		.connect_timeout_ns = p->connect_timeout,
	};
	struct bp_net_params *np = &o.np;

	(void)ctx;
	snprintf(np->test, sizeof(np->test), "udp");
	np->bp_version = BP_PROTO_VERSION;
	np->time_ns = p->time;
	np->omit_ns = p->omit;
	np->interval_ns = p->interval;
	np->parallel = (int)p->parallel;
	np->reverse = p->reverse;
	np->bidir = p->bidir;
	np->window = (int)p->window;
	np->len = (int)p->payload;
	np->bandwidth = p->rate;
	np->udp64 = true;
	snprintf(np->client_version, sizeof(np->client_version), "boardperf %s", bp_version());
	json_object_set_new(r->params, "payload", json_integer((json_int_t)p->payload));
	return bp_net_run_and_report(&o, r, err, errlen);
}

const struct bp_test bp_cmd_udp = {
	.name = "udp",
	.summary = "UDP packet rate, loss and jitter to or from `boardperf serve`",
	.synopsis = "-c HOST [-b RATE] [-l LEN | --frame SIZE] [-t S] [-P N] [-R | --bidir]",
	.opts = udp_opts,
	.params_size = sizeof(struct udp_params),
	.needs_peer = true,
	.check = udp_check,
	.run = udp_run,
};
