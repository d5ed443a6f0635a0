/*
 * The parameters a client sends in PARAM_EXCHANGE, as iperf3 names them ("tcp", "time",
 * "parallel", "reverse", "bidirectional", "window", "len", "MSS", "nodelay", "congestion",
 * "omit", "bandwidth", "TOS", "fqrate", "dont_fragment", "zerocopy", "client_version")
 * plus boardperf's own keys ("bp_version",
 * "bp_test", "bp_time_ns", "bp_omit_ns", "bp_interval_ns", "bp_zerocopy"), which iperf3
 * ignores. iperf3 counts time in whole seconds; the bp_ keys carry the exact values.
 */
#ifndef BP_PROTO_PARAMS_H
#define BP_PROTO_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct bp_iperf3_client;

/* The longest "authtoken" kept: base64 of one RSA-8192 block (= BP_IPERF3_AUTH_TOKEN_MAX). */
#define BP_NET_AUTHTOKEN_MAX 1368

/*
 * The shortest interval a server marks (bp_interval_ns; 0: none): below 1 ms it would do
 * little but mark. The client checks it too, so that -i 0.0001 is its usage error (exit 2)
 * rather than the server's refusal.
 */
#define BP_NET_MIN_INTERVAL_NS 1000000ULL

struct bp_net_params {
	char test[16];          /* the kind's name as on the wire: "tcp", "udp", "rr", "crr" */
	/* what the protocol knows of that kind: its descriptor's bp_net_shape (result/kind.h),
	 * 0 for a name no installed kind has; set with test (bp_net_params_set_test) */
	unsigned shape;
	int bp_version;         /* 0: the peer is a stock iperf3 */
	uint64_t time_ns;       /* with num_bytes or num_blocks: 0 from a stock client (no
				 * time limit): the server sets its --max-duration */
	uint64_t omit_ns;
	/* iperf3's -n ("num": bytes) and -k ("blockcount": writes or datagrams): each sending
	 * stream sends its share, the client ends the test once it has sent or received them;
	 * 0: none */
	uint64_t num_bytes, num_blocks;
	uint64_t interval_ns;   /* 0: no interval series */
	int parallel;           /* streams per direction */
	bool reverse;           /* server sends */
	bool bidir;             /* both send */
	int window;             /* socket buffer bytes, 0: kernel default */
	int len;                /* bytes per write */
	int mss;                /* 0: kernel default */
	bool nodelay;
	bool zerocopy;
	bool packet_engine;     /* UDP senders through an AF_PACKET TX ring ("bp_packet_engine") */
	double bandwidth;       /* bit/s target, 0: as fast as possible */
	char congestion[32];    /* "" for the default */
	char client_version[32];
	bool get_server_output;
	bool udp64;             /* 64-bit datagram sequence numbers ("udp_counters_64bit") */
	int tos;                /* IP TOS / IPv6 traffic class of the data streams ("TOS") */
	double fq_rate;         /* bit/s per stream paced by the kernel ("fqrate"), 0: none */
	bool dont_fragment;     /* UDP datagrams with DF set ("dont_fragment") */
	bool iperf3;            /* client: the server is a stock iperf3, send iperf3's keys only */
	bool iperf2;            /* client: speak iperf 2 (tcp --iperf2): no control connection */
	bool trip_times;        /* udp --iperf2 --trip-times: the server's one-way delay */
	/* tcp, rr and crr over SCTP one-to-one sockets instead of TCP ("sctp", as iperf3's
	 * --sctp sends it); the control connection stays TCP */
	bool sctp;
	int nstreams;           /* client: SCTP outbound streams offered (--nstreams), 0: kernel's */
	/* rr and crr ("bp_rr_request", "bp_rr_response", "bp_rr_udp", "bp_crr_hold") */
	int rr_request, rr_response;  /* bytes per request and per answer */
	bool rr_udp;            /* rr over UDP */
	/* serve: a stock iperf 2 client's bounceback test (rr's half, never on the wire) */
	bool rr_bounceback;
	bool crr_hold;          /* crr --concurrent: the server keeps connections open */
	/* Server: iperf3's "authtoken" (proto/iperf3_auth.h), "" for none; the parameters are
	 * refused when it does not fit, and one of BP_NET_AUTHTOKEN_MAX + 1 characters the
	 * token's own check refuses. */
	char authtoken[BP_NET_AUTHTOKEN_MAX + 2];
	/* Client: whom to send a fresh token for on each control connection; NULL: none. */
	const struct bp_iperf3_client *auth;
};

/* The shape of the kind a test name stands for (its descriptor's); 0 for any other name. */
unsigned bp_net_shape_of(const char *name);
/* Write test and shape together, so the two never disagree. */
void bp_net_params_set_test(struct bp_net_params *p, const char *name);

/* True for a UDP test. */
bool bp_net_params_udp(const struct bp_net_params *p);
/* True for the request/response tests ("rr", "crr"). */
bool bp_net_params_rr(const struct bp_net_params *p);
/* True for a test whose connections come while it runs ("crr"). */
bool bp_net_params_conns_while_running(const struct bp_net_params *p);
/* True when the data streams greet the server over UDP (udp, rr --udp). */
bool bp_net_params_datagram(const struct bp_net_params *p);

/* Streams in each direction: client->server ("up") and server->client ("down"). */
int bp_net_params_up_streams(const struct bp_net_params *p);
int bp_net_params_down_streams(const struct bp_net_params *p);

/*
 * -n and -k: the blocks (TCP writes of len bytes, UDP datagrams) sending stream number k
 * (0, 1, ... of streams in one direction) sends, 0 for no limit: the blocks asked for (-n
 * in whole blocks, as iperf3 counts them) dealt out a block to each stream in turn, as
 * iperf3 sends them; at least one each (fewer blocks than streams: 0 would be no limit).
 * The same on both ends, so each knows what the other's streams will send.
 */
uint64_t bp_net_params_blocks_of_stream(const struct bp_net_params *p, int k, int streams);
/* The sum over a direction's streams: what its receiver has when all arrived. */
uint64_t bp_net_params_blocks_total(const struct bp_net_params *p, int streams);

json_t *bp_net_params_to_json(const struct bp_net_params *p);

/*
 * Read what a client sent. Refuses (-EINVAL, one line in err, iperf3's error number for it
 * in *ie) what cannot be run: no known transport, a bp_version newer than this one,
 * out-of-range counts or sizes, and the iperf3 options this server does not implement
 * (-n, -k, MPTCP, UDP bursts, flow labels, -A), which it never ignores silently, and SCTP
 * for udp or rr --udp.
 */
int bp_net_params_from_json(const json_t *j, struct bp_net_params *p, int *ie, char *err,
			    size_t errlen);

#endif
