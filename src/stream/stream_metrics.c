/*
 * What tcp and udp emit (stream_report.c): one report serves both, udp adding its packet
 * figures, tcp its senders' TCP_INFO ones. Under --bidir every figure but "omitted" comes
 * as up.<name> and down.<name>.
 */
#include "stream/stream_metrics.h"

#include "result/text_receiver.h"
#include "stream/stream_half.h"

/* Both ends' bytes and spans, and --omit's mark: tcp and udp alike. */
#define STREAM_BYTE_METRICS \
	BP_METRIC("sender.bitrate", "bit/s", HIGHER, SUM, BOTH, \
	  "bits the sender sent per second of its own span", .directed = true), \
	BP_METRIC("sender.bytes", "B", NONE, SUM, BOTH, \
	  "bytes the sender sent", .directed = true), \
	BP_METRIC("sender.span", "ns", NONE, MAX, BOTH, \
	  "how long the sender sent", .directed = true), \
	BP_METRIC("receiver.bytes", "B", NONE, SUM, BOTH, \
	  "bytes the receiver took", .directed = true), \
	BP_METRIC("receiver.span", "ns", NONE, MAX, BOTH, \
	  "how long the receiver took them", .directed = true), \
	BP_METRIC("omitted", "count", NONE, NONE, INTERVAL, \
	  "1 on an interval inside --omit, left out of the totals")

static const struct bp_metric_decl tcp_metrics[] = {
	BP_METRIC("receiver.bitrate", "bit/s", HIGHER, SUM, BOTH,
	  "bits the receiver took per second of its own span", .headline = 1, .directed = true),
	BP_METRIC("sender.retransmits", "count", LOWER, SUM, TOTAL,
	  "segments the sender sent again", .headline = 2, .directed = true),
	BP_METRIC("retransmits", "count", LOWER, SUM, INTERVAL,
	  "segments the sender sent again in the interval", .directed = true),
	BP_METRIC("cwnd", "B", NONE, NONE, INTERVAL,
	  "the sender's congestion window at the interval's end", .directed = true),
	BP_METRIC("rtt", "ns", LOWER, MEAN, INTERVAL,
	  "the sender's smoothed round-trip time", .directed = true),
	STREAM_BYTE_METRICS,
};

static const struct bp_metric_decl udp_metrics[] = {
	BP_METRIC("receiver.pps", "pkt/s", HIGHER, SUM, BOTH,
	  "datagrams the receiver took per second", .headline = 1, .directed = true),
	BP_METRIC("loss.percent", "percent", LOWER, MEAN, BOTH,
	  "datagrams that never arrived, in percent of those sent",
	  .headline = 2, .directed = true),
	BP_METRIC("receiver.bitrate", "bit/s", HIGHER, SUM, BOTH,
	  "bits the receiver took per second of its own span", .directed = true),
	BP_METRIC("sender.packets", "count", NONE, SUM, TOTAL,
	  "datagrams sent", .directed = true),
	BP_METRIC("sender.pps", "pkt/s", HIGHER, SUM, BOTH,
	  "datagrams sent per second", .directed = true),
	BP_METRIC("sender.stalls", "count", LOWER, SUM, TOTAL,
	  "sends the sender's kernel refused (a full buffer)", .directed = true),
	BP_METRIC("receiver.packets", "count", NONE, SUM, TOTAL,
	  "datagrams received", .directed = true),
	BP_METRIC("lost.packets", "count", LOWER, SUM, TOTAL,
	  "sequence numbers that never arrived", .directed = true),
	BP_METRIC("lost", "count", LOWER, SUM, INTERVAL,
	  "sequence numbers that never arrived in the interval", .directed = true),
	BP_METRIC("receiver.kernel_drops", "count", LOWER, SUM, TOTAL,
	  "datagrams dropped in the receiver's own socket buffer", .directed = true),
	BP_METRIC("receiver.out_of_order", "count", LOWER, SUM, TOTAL,
	  "datagrams that arrived after a later one", .directed = true),
	BP_METRIC("receiver.duplicates", "count", LOWER, SUM, TOTAL,
	  "datagrams that arrived twice", .directed = true),
	BP_METRIC("jitter", "ns", LOWER, MAX, BOTH,
	  "variation of the transit time (RFC 3550)", .directed = true),
	BP_METRIC("owd.mean", "ns", LOWER, MEAN, TOTAL,
	  "one-way delay, mean (--iperf2 --trip-times: read across two clocks)", .directed = true),
	BP_METRIC("owd.min", "ns", LOWER, MIN, TOTAL,
	  "one-way delay, least", .directed = true),
	BP_METRIC("owd.max", "ns", LOWER, MAX, TOTAL,
	  "one-way delay, most", .directed = true),
	BP_METRIC("owd.stdev", "ns", LOWER, MAX, TOTAL,
	  "one-way delay, standard deviation", .directed = true),
	STREAM_BYTE_METRICS,
};

const struct bp_kind bp_kind_tcp = {
	.name = "tcp",
	BP_KIND_CATALOGUE(tcp_metrics),
	.repeatable = true,
	.server_half = &srv_half_stream,
	.net = BP_NET_STREAMS,
};

const struct bp_kind bp_kind_udp = {
	.name = "udp",
	BP_KIND_CATALOGUE(udp_metrics),
	.repeatable = true,
	/* the live lines were the sender's: the receiver's intervals come with the end */
	.after_live = { bp_text_receiver_has, bp_text_receiver_print },
	.server_half = &srv_half_stream,
	.net = BP_NET_STREAMS | BP_NET_DATAGRAMS,
};
