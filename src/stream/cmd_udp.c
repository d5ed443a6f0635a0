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
#include "io/frame.h"
#include "io/udp_header.h"
#include "stream/net_cli.h"
#include "core/share.h"
#include "stream/stream_metrics.h"
#include "stream/stream_report.h"
#include "side/udp_stream.h"

struct udp_params {
	struct bp_net_cli net;
	double rate;
	uint64_t len;
	int64_t frame;
	uint64_t window;
	int engine;       /* enum bp_udp_engine */
	bool trip_times;  /* --trip-times (with --iperf2) */
	size_t payload;   /* resolved by udp_check */
	const char *share_text;
	struct bp_share share;  /* --share K/N, resolved by udp_check */
};

static const struct bp_opt udp_opts[] = {
	BP_NET_CLI_OPTS(struct udp_params),
	{ 'b', "bitrate", BP_OPT_RATE, offsetof(struct udp_params, rate), "RATE", "1M", 0, 1e12,
	  NULL, "payload bit/s per stream, as iperf3 -b; 0: as fast as possible" },
	{ 'l', "length", BP_OPT_SIZE, offsetof(struct udp_params, len), "LEN", "1460",
	  BP_UDP_IPERF_MIN_LEN, BP_UDP_IPERF_MAX_LEN, NULL, "UDP payload bytes per datagram" },
	{ 0, "frame", BP_OPT_INT, offsetof(struct udp_params, frame), "SIZE", "0", 0, 9216, NULL,
	  "Ethernet frame size with FCS (64..1518) instead of -l: the payload that fills it" },
	{ 'w', "window", BP_OPT_SIZE, offsetof(struct udp_params, window), "SIZE", "4M", 0,
	  1 << 30, NULL, "socket buffers (a receiver needs room for bursts)" },
	{ 0, "engine", BP_OPT_CHOICE, offsetof(struct udp_params, engine), "ENGINE", "socket", 0,
	  0, bp_udp_engine_names, "the sender's path: " BP_UDP_ENGINE_HELP },
	{ 0, "trip-times", BP_OPT_FLAG, offsetof(struct udp_params, trip_times), NULL, NULL, 0,
	  0, NULL, "with --iperf2: the one-way delay (iperf 2's --trip-times; the server's "
	  "report, with -R this side's), read off both clocks: they must agree (NTP, PTP)" },
	{ 0, "share", BP_OPT_STRING, offsetof(struct udp_params, share_text), "K/N", NULL, 0, 0,
	  NULL, "offer the K-th of N shares of the rate, N testers at once each with its K " \
	  "(docs/json.md, \"Shares of a load\")" },
	BP_OPT_END,
};

static int udp_check(void *params, const struct bp_parsed *parsed, char *err, size_t errlen)
{
	struct udp_params *p = params;

	if (bp_net_cli_check(&p->net, parsed, err, errlen))
		return -EINVAL;
	if (p->share_text && bp_share_parse(p->share_text, &p->share, err, errlen))
		return -EINVAL;
	if (p->share.n && p->rate <= 0) {
		snprintf(err, errlen, "--share %s needs a rate to share: -b 0 is as fast as "
			 "possible", p->share_text);
		return -EINVAL;
	}
	if (bp_share_check(&p->share, p->share_text, p->rate, "-b", err, errlen))
		return -EINVAL;
	if (p->net.iperf2 && p->net.bidir) {
		snprintf(err, errlen, "udp --iperf2 --bidir: not offered (iperf 2's --full-duplex "
			 "is TCP's): run -R and without it, or tcp --iperf2 --bidir");
		return -EINVAL;
	}
	if (p->trip_times && !p->net.iperf2) {
		snprintf(err, errlen, "--trip-times needs --iperf2: it asks an iperf 2 server "
			 "(iperf -s, or serve) for the one-way delay; boardperf's own test has none");
		return -EINVAL;
	}
	p->payload = (size_t)p->len;
	/* A frame size names the payload that fills exactly that frame (IPv6 has 20 B more). */
	if (p->frame && bp_frame_payload((unsigned)p->frame, p->net.v6 ? 6 : 4,
					 BP_UDP_IPERF_MIN_LEN, 0, &p->payload, err, errlen))
		return -EINVAL;
	return 0;
}

/*
 * params.engine: the engine that sent, read off the path the sending side named (its
 * send_mode; the server's with -R), since a packet engine that could not run (no
 * CAP_NET_RAW) leaves the socket engine in its place. "up."/"down." with --bidir.
 */
static void set_engine(struct bp_result *r, const char *prefix)
{
	char key[32];
	const char *mode;

	snprintf(key, sizeof(key), "%ssend_mode", prefix);
	mode = json_string_value(json_object_get(r->params, key));
	if (!mode)
		return;
	snprintf(key, sizeof(key), "%sengine", prefix);
	json_object_set_new(r->params, key, json_string(bp_udp_engine_of_mode(mode)));
}

static int udp_run(const void *params, const struct bp_test_ctx *ctx, struct bp_result *r,
		   char *err, size_t errlen)
{
	const struct udp_params *p = params;
	struct bp_stream_client_opts o;
	struct bp_net_params *np = &o.np;
	int rc;

	/* -v: per-stream lines per interval too, as iperf3 prints them with -P */
	r->text_show_stream_intervals = ctx->common && ctx->common->verbose > 0;
	bp_net_cli_fill(&p->net, "udp", &o);
	o.start_at_ns = ctx->common ? ctx->common->start_at_ns : 0;
	o.live = ctx->live;
	o.live_result = r;
	np->window = (int)p->window;
	np->len = (int)p->payload;
	np->bandwidth = bp_share_of(&p->share, p->rate);
	if (p->share.n)
		json_object_set_new(r->params, "share_bitrate", json_real(np->bandwidth));
	/* A stock iperf3 uses 32-bit counters unless asked; they wrap only after 2^32. */
	np->udp64 = !p->net.iperf3;
	np->packet_engine = p->engine == BP_UDP_ENGINE_PACKET;
	np->trip_times = p->trip_times;
	json_object_set_new(r->params, "payload", json_integer((json_int_t)p->payload));
	rc = bp_net_cli_run(&p->net, &o, r, err, errlen);
	set_engine(r, "");
	set_engine(r, "up.");
	set_engine(r, "down.");
	return rc;
}

const struct bp_test bp_cmd_udp = {
	.name = "udp",
	.summary = "UDP packet rate, loss and jitter to or from `boardperf serve`",
	.synopsis = "-c HOST [-b RATE] [-l LEN | --frame SIZE] [-t S] [-P N] [-R | --bidir] "
		    "[--iperf3 | --iperf2 [--trip-times]] [--engine socket|packet]",
	.opts = udp_opts,
	.params_size = sizeof(struct udp_params),
	.check = udp_check,
	.run = udp_run,
	.kind = &bp_kind_udp,
	.starts_at_first_byte = true,
};
