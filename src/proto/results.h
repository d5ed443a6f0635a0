/*
 * The results each side sends in EXCHANGE_RESULTS, in iperf3's shape ("cpu_util_total",
 * "sender_has_retransmits", "streams": [{"id", "bytes", "retransmits", "jitter", "errors",
 * "packets", "start_time", "end_time"}]) plus boardperf's "bp_intervals" (what this side
 * moved per interval), "bp_busy_max" (the busiest data worker's share of its core) and
 * "bp_sent_counts" (what its TCP senders counted).
 */
#ifndef BP_PROTO_RESULTS_H
#define BP_PROTO_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "stats/welford.h"

#define BP_NET_MAX_STREAMS 256
#define BP_NET_MAX_INTERVALS 4096

struct bp_net_stream_result {
	int id;                 /* iperf3 numbering: 1, 3, 4, 5, ... */
	bool sender;            /* this side sent on it */
	uint64_t bytes;         /* after the omitted start */
	int64_t retransmits;    /* -1 when unknown (receivers, qemu) */
	double start_s, end_s;  /* counted span, seconds since the test started */
	/* UDP (0 for TCP): datagrams sent or received, and the receiver's classification */
	uint64_t packets;
	int64_t lost;
	uint64_t out_of_order, duplicates, kernel_drops, stalls;
	/* datagrams whose sequence jump or transit time no real sender makes (udp_seq.h):
	 * left out of lost and jitter; "bp_implausible" */
	uint64_t implausible;
	double jitter_ns;
	/*
	 * A receiver's one-way delay (udp --iperf2 --trip-times: the server's report): how
	 * many datagrams, their mean, least and most transit (the receiver's clock at arrival
	 * less the sender's at sending) and the sum of squared deviations from the mean (ns^2)
	 */
	struct bp_welford owd;
	/* A TCP sender's TCP_INFO when the test ended (0: unknown); see results_streams.h */
	uint32_t snd_cwnd;      /* bytes: segments times the MSS */
	uint32_t rtt_us, rttvar_us;
	uint32_t pmtu;          /* bytes */
};

struct bp_net_interval {
	double start_s, end_s;
	uint64_t sent, received; /* bytes this side moved in the interval */
	int64_t retransmits;     /* of this side's senders in the interval; -1 unknown */
	uint32_t cwnd;           /* bytes, first sender at the interval's end; 0 unknown */
	uint32_t rtt_us;         /* smoothed RTT, mean over this side's senders; 0 unknown */
	uint64_t packets_sent, packets_received; /* UDP */
	int64_t lost;            /* UDP: in this interval (negative when late ones fill gaps) */
	double jitter_ns;        /* UDP: the receiver's smoothed jitter at the interval's end */
	bool omitted;
};

/* What one stream moved in one interval of its side (results_streams.h). */
struct bp_net_stream_interval {
	uint64_t bytes;
	int64_t retransmits;     /* a TCP sender's, in the interval; -1 unknown */
	uint32_t cwnd;           /* bytes, a TCP sender's at the interval's end; 0 unknown */
	uint32_t rtt_us, rttvar_us, pmtu;
	uint64_t packets;        /* UDP datagrams sent or received */
	int64_t lost;            /* UDP receiver, in the interval */
	double jitter_ns;        /* UDP receiver, at the interval's end */
};

/*
 * Bounded, so that the results still fit one control message (BP_PROTO_MAX_JSON) beside
 * BP_NET_MAX_INTERVALS aggregate intervals: -P 4 keeps 512 intervals, -P 128 keeps 16.
 */
#define BP_NET_MAX_STREAM_INTERVALS 2048

struct bp_net_stream_series {
	int stride;              /* streams per interval: the side's streams when it started */
	int nintervals;          /* intervals 0..n-1 have records rec[k * stride + i], where i
				    is the stream's index in bp_net_results.streams */
	bool truncated;          /* later intervals had no room: they have no records */
	struct bp_net_stream_interval rec[BP_NET_MAX_STREAM_INTERVALS];
	/* The recording side's counters at its last mark (not exchanged). */
	uint64_t last_bytes[BP_NET_MAX_STREAMS], last_packets[BP_NET_MAX_STREAMS];
	int64_t last_lost[BP_NET_MAX_STREAMS];
	uint32_t last_retrans[BP_NET_MAX_STREAMS];
};

struct bp_net_results {
	double cpu_total, cpu_user, cpu_system; /* percent of one core, as iperf3 */
	double busy_max;                        /* 0..1, NAN when unknown */
	int nstreams;
	struct bp_net_stream_result streams[BP_NET_MAX_STREAMS];
	int nintervals;
	struct bp_net_interval intervals[BP_NET_MAX_INTERVALS];
	char congestion[32];
	/* The I/O path this side's senders and receivers took ("gso", "sendmmsg", "send";
	 * "gro+recvmmsg", "msg_zerocopy", ...): "bp_send_mode" and "bp_receive_mode", so that
	 * the client can say how the server sent with -R. "" when none or unknown (iperf3). */
	char send_mode[16], recv_mode[16];
	/* What this side's TCP senders counted ("bp_sent_counts"): "acked" (the kernel's
	 * tcpi_bytes_acked) or "written" (into the socket, where the kernel lacks that); "" for
	 * none or unknown (a stock iperf3 counts what it wrote). */
	char sent_counts[12];
	bool from_iperf3;   /* read from a stock iperf3: no bp_ keys, stream roles unknown */
	struct bp_net_stream_series stream_ivs;  /* per stream and interval (results_streams.h) */
};

json_t *bp_net_results_to_json(const struct bp_net_results *r);
/*
 * Tolerant of a stock iperf3's results (no bp_ keys). -EBADMSG, with one line in err
 * naming the key, its value and what was expected, when "streams" is missing, a stream or
 * interval is not an object, any number is outside its domain (proto/peer_json.h; the
 * ranges are in results.c) or a record's bytes and span make a rate no link carries; r is
 * then all zeros.
 */
int bp_net_results_from_json(const json_t *j, struct bp_net_results *r, char *err,
			     size_t errlen);

/*
 * A stock iperf3 does not say which of its streams sent: each is the mirror of the stream
 * with the same id on the other side (peer), as iperf3 itself pairs them.
 */
void bp_net_results_mirror_roles(struct bp_net_results *r, const struct bp_net_results *peer);

/*
 * The tail of each UDP stream rx received on: the datagrams its sender (the stream with the
 * same id in tx, which sent on it) numbered after the highest the receiver saw before it
 * stopped reading. A receiver's lost counts only the gaps below that highest number; the
 * tail, never read within the receiver's drain, is lost too, so that for every stream
 * sent = received - duplicates + lost. Counts that do not fit (duplicates above received,
 * a negative lost, a receiver that saw more than was sent) add nothing: the figures stay
 * as the receiver counted them. The tail is the last interval's loss too (the side's and
 * the stream's). Call once, after the results are exchanged.
 */
void bp_net_results_add_tail(struct bp_net_results *rx, const struct bp_net_results *tx);

/* Sums over the streams this side sent (sender=true) or received on. */
uint64_t bp_net_results_bytes(const struct bp_net_results *r, bool sender);
double bp_net_results_seconds(const struct bp_net_results *r, bool sender);
int64_t bp_net_results_retransmits(const struct bp_net_results *r);
/* UDP sums over the streams this side sent (sender) or received on. */
uint64_t bp_net_results_packets(const struct bp_net_results *r, bool sender);
int64_t bp_net_results_lost(const struct bp_net_results *r);
uint64_t bp_net_results_kernel_drops(const struct bp_net_results *r);
uint64_t bp_net_results_stalls(const struct bp_net_results *r);
/* Receiving streams: datagrams that came late (filled a gap) and that came twice. */
uint64_t bp_net_results_out_of_order(const struct bp_net_results *r);
uint64_t bp_net_results_duplicates(const struct bp_net_results *r);
/* The receiving streams' mean jitter. */
double bp_net_results_jitter_ns(const struct bp_net_results *r);
/* The receiving streams' one-way delay pooled over them (n 0: none measured it), ns. */
void bp_net_results_owd(const struct bp_net_results *r, struct bp_welford *out);

#endif
