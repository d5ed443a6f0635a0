/*
 * What tcp and udp emit (stream_report.c): one report serves both, udp adding its packet
 * figures, tcp its senders' TCP_INFO ones. Under --bidir every figure but "omitted" comes
 * as up.<name> and down.<name>.
 */
#include "stream/stream_metrics.h"

#define L BP_BETTER_LOWER
#define H BP_BETTER_HIGHER
#define N BP_BETTER_NONE
#define TOTAL BP_SCOPE_TOTAL
#define IV BP_SCOPE_INTERVAL
#define BOTH BP_SCOPE_BOTH

/* Both ends' bytes and spans, and --omit's mark: tcp and udp alike. */
#define STREAM_BYTE_METRICS \
	{ "sender.bitrate", "bit/s", H, 0, BP_COMBINE_SUM, BOTH, true, \
	  "bits the sender sent per second of its own span" }, \
	{ "sender.bytes", "B", N, 0, BP_COMBINE_SUM, BOTH, true, \
	  "bytes the sender sent" }, \
	{ "sender.span", "ns", N, 0, BP_COMBINE_MAX, BOTH, true, \
	  "how long the sender sent" }, \
	{ "receiver.bytes", "B", N, 0, BP_COMBINE_SUM, BOTH, true, \
	  "bytes the receiver took" }, \
	{ "receiver.span", "ns", N, 0, BP_COMBINE_MAX, BOTH, true, \
	  "how long the receiver took them" }, \
	{ "omitted", "count", N, 0, BP_COMBINE_NONE, IV, false, \
	  "1 on an interval inside --omit, left out of the totals" }

static const struct bp_metric_decl tcp_metrics[] = {
	{ "receiver.bitrate", "bit/s", H, 1, BP_COMBINE_SUM, BOTH, true,
	  "bits the receiver took per second of its own span" },
	{ "sender.retransmits", "count", L, 2, BP_COMBINE_SUM, TOTAL, true,
	  "segments the sender sent again" },
	{ "retransmits", "count", L, 0, BP_COMBINE_SUM, IV, true,
	  "segments the sender sent again in the interval" },
	{ "cwnd", "B", N, 0, BP_COMBINE_NONE, IV, true,
	  "the sender's congestion window at the interval's end" },
	{ "rtt", "ns", L, 0, BP_COMBINE_MEAN, IV, true,
	  "the sender's smoothed round-trip time" },
	STREAM_BYTE_METRICS,
};

static const struct bp_metric_decl udp_metrics[] = {
	{ "receiver.pps", "pkt/s", H, 1, BP_COMBINE_SUM, BOTH, true,
	  "datagrams the receiver took per second" },
	{ "loss.percent", "percent", L, 2, BP_COMBINE_MEAN, BOTH, true,
	  "datagrams that never arrived, in percent of those sent" },
	{ "receiver.bitrate", "bit/s", H, 0, BP_COMBINE_SUM, BOTH, true,
	  "bits the receiver took per second of its own span" },
	{ "sender.packets", "count", N, 0, BP_COMBINE_SUM, TOTAL, true,
	  "datagrams sent" },
	{ "sender.pps", "pkt/s", H, 0, BP_COMBINE_SUM, BOTH, true,
	  "datagrams sent per second" },
	{ "sender.stalls", "count", L, 0, BP_COMBINE_SUM, TOTAL, true,
	  "sends the sender's kernel refused (a full buffer)" },
	{ "receiver.packets", "count", N, 0, BP_COMBINE_SUM, TOTAL, true,
	  "datagrams received" },
	{ "lost.packets", "count", L, 0, BP_COMBINE_SUM, TOTAL, true,
	  "sequence numbers that never arrived" },
	{ "lost", "count", L, 0, BP_COMBINE_SUM, IV, true,
	  "sequence numbers that never arrived in the interval" },
	{ "receiver.kernel_drops", "count", L, 0, BP_COMBINE_SUM, TOTAL, true,
	  "datagrams dropped in the receiver's own socket buffer" },
	{ "receiver.out_of_order", "count", L, 0, BP_COMBINE_SUM, TOTAL, true,
	  "datagrams that arrived after a later one" },
	{ "receiver.duplicates", "count", L, 0, BP_COMBINE_SUM, TOTAL, true,
	  "datagrams that arrived twice" },
	{ "jitter", "ns", L, 0, BP_COMBINE_MAX, BOTH, true,
	  "variation of the transit time (RFC 3550)" },
	STREAM_BYTE_METRICS,
};

const struct bp_kind bp_kind_tcp = {
	.name = "tcp",
	.metrics = tcp_metrics,
	.nmetrics = sizeof(tcp_metrics) / sizeof(tcp_metrics[0]),
	.repeatable = true,
};

const struct bp_kind bp_kind_udp = {
	.name = "udp",
	.metrics = udp_metrics,
	.nmetrics = sizeof(udp_metrics) / sizeof(udp_metrics[0]),
	.repeatable = true,
};
