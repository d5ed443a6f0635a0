/*
 * Shared between server.c (listener, connections, loop), server_session.c (a test's control
 * connection) and the kinds' halves (server/half.h), which read the session.
 */
#ifndef BP_SERVER_SERVER_INTERNAL_H
#define BP_SERVER_SERVER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/log.h"
#include "core/peer_budget.h"
#include "io/loop.h"
#include "proto/iperf2_bounceback.h"
#include "proto/params.h"
#include "proto/control.h"
#include "proto/udp_connect.h"
#include "server/server.h"
#include "server/server_accept.h"
#include "server/server_auth.h"
#include "server/server_backoff.h"
#include "server/half.h"
#include "server/server_limits.h"
#include "server/server_metrics.h"
#include "server/server_stats.h"
#include "server/server_udp.h"
#include "side/stream_side.h"

struct srv_session;
struct srv_proof;
struct srv_iperf2;

struct srv {
	const struct bp_server_opts *o;
	struct bp_loop *loop;
	struct bp_stream_pool *pool;
	struct bp_flow listener;
	struct bp_flow udp_listener;   /* UDP hellos for the same port (server_udp.c) */
	struct bp_addr bound;          /* the test port's address, as bound */
	/* SCTP data connections on the same port number (server_sctp.c), opened by the first
	 * test over SCTP; fd 0 until then */
	struct bp_flow sctp_listener;
	struct srv_udp_drops udp_drops; /* hellos not answered, for the log */
	struct srv_door door;          /* connections before their cookie (server_accept.h) */
	struct srv_session *sessions;  /* linked list */
	int nsessions;                 /* tests admitted and not yet finished */
	int finished;                  /* tests completed (for max_tests) */
	struct srv_stats stats;        /* for --metrics (server_stats.h) */
	struct bp_stallers stallers;   /* tests released without streams, lately (server_limits.h) */
	struct srv_metrics metrics;    /* the /metrics listener (server_metrics.h) */
	struct srv_backoff backoff;    /* wrong key proofs, by address (server_backoff.h) */
	/* bytes peers have made the server hold unparsed, all together (core/peer_budget.h):
	 * o->budget, shared with the HTTP responder, or own_budget */
	struct bp_peer_budget *budget, own_budget;
	/* iperf 2 UDP client sockets refused lately (server_iperf2_udp.c): a refused client
	 * sends on, and its further datagrams are dropped without a line or a count */
	struct bp_addr udp_refused[16];
	uint64_t udp_refused_ns[16];
	int udp_refused_next;
};

enum srv_state {
	SS_PARAMS,    /* PARAM_EXCHANGE sent, waiting for the parameters */
	SS_AUTH,      /* a key challenge sent, waiting for the answer (server_auth.h) */
	SS_STREAMS,   /* CREATE_STREAMS sent, waiting for the data connections */
	SS_RUNNING,   /* TEST_RUNNING sent, data moving until TEST_END */
	SS_RESULTS,   /* EXCHANGE_RESULTS sent, waiting for the client's results */
	SS_DONE,      /* results and DISPLAY_RESULTS sent, waiting for IPERF_DONE */
};

struct srv_session {
	struct srv *srv;
	struct srv_session *next;
	struct bp_flow flow;           /* the control connection */
	char peer[64];
	struct bp_addr ctl_addr;       /* the control connection's peer: UDP data goes only there */
	char cookie[BP_COOKIE_LEN];
	enum srv_state state;
	bool admitted;                 /* counted in srv->nsessions */
	bool params_read;              /* a test was asked for: counted when it ends */
	bool completed;                /* ran to IPERF_DONE (or the client's close after it) */
	enum srv_refusal refusal;      /* why it was refused; SRV_REFUSAL_NONE: it was not */
	struct bp_client_key client;   /* the address --max-per-client counts it under */
	struct bp_proto_decoder dec;
	unsigned char inbuf[4096];     /* bytes read but not yet decoded */
	size_t inlen;
	struct bp_net_params np;
	struct srv_auth auth;          /* a locked server's challenge (server_auth.c) */
	const struct srv_half *half;   /* from np.test once the parameters came; then not NULL */
	void *half_state;              /* the half's own (half->state_size bytes) */
	struct bp_stream_side side;
	bool side_ready;
	bool engine_warned;            /* the packet engine's fallback was logged once */
	int expected_streams, got_streams;
	/* --psk: data connections whose proof is still coming (server_proof.c), and the
	 * stream indexes proved, so that no proof opens two streams */
	struct srv_proof *proofs;
	int nproofs;
	uint64_t proved[BP_NET_MAX_STREAMS / 64];
	struct bp_timer idle;          /* drops a silent client */
	struct bp_timer tick;          /* interval marks and the end of the omit */
	uint64_t last_activity_ns;
	uint64_t last_progress_ns;     /* data last moved */
	uint64_t end_asked_ns;         /* TEST_END came (the end may wait for ACKs) */
	uint64_t born_ns;              /* its control connection's cookie came */
	uint64_t last_total_bytes;
	char udp_peers[BP_NET_MAX_STREAMS][64]; /* UDP streams taken, by peer address */
	/* A stock iperf 2 client's test (server_iperf2.h): no control connection (flow.fd is
	 * -1), its header for the parameters, its connections the streams; NULL otherwise */
	struct srv_iperf2 *iperf2;
	/* iperf 2's bounceback: the first request's bytes the door read (its head) */
	uint8_t first[BP_IPERF2_BB_HEAD_LEN];
	size_t first_len;
	bool dead;                     /* closed at the end of the current handler */
	char why[256];                 /* what the log says about the end */
};

/*
 * server_sctp.c: the SCTP listener on the test port's number, opened on the first test that
 * asks for SCTP (so that a server nobody asks for SCTP never loads the kernel's sctp
 * module) and kept until the server ends. 0, or a negative errno with the line in err.
 */
int srv_sctp_open(struct srv *s, char *err, size_t errlen);
void srv_sctp_close(struct srv *s);

/*
 * server_proof.c: a data connection of a test that proved the key (ss->auth.stream_proof)
 * must prove it too, with the cookie (proto/auth_psk.h). Takes fd: the stream is added
 * once its proof checks out (now, or when the rest of it arrives), closed otherwise.
 */
void srv_proof_start(struct srv_session *ss, int fd, const struct bp_addr *peer);
/* Close the connections still proving (the streams are all in, or the session ends). */
void srv_proof_close_all(struct srv_session *ss);

/* server_session.c */
/* A new test on control connection fd (owned from now on, closed on any failure). */
void srv_session_new(struct srv *s, int fd, const char *peer, const char cookie[BP_COOKIE_LEN]);
/*
 * A data connection whose cookie names this session; false when it does not want one. It
 * must come from the control connection's address (a cookie is no credential: anyone on
 * the path sees it), and after a key was proved, prove the key itself (server_proof.c).
 */
bool srv_session_take_stream(struct srv_session *ss, int fd);
/* The data connection fd, proved (or needing no proof), becomes stream index. */
void srv_session_add_stream(struct srv_session *ss, int fd, int index);
/* The same for the next stream, sending or receiving, without closing a session that ends
 * (the caller's entry point reaps). */
void srv_session_add_tcp(struct srv_session *ss, int fd, bool sender);
/*
 * A test without a control connection (an iperf 2 client's, server_iperf2.c), from addr:
 * linked in, not yet admitted; the caller fills ss->np and calls srv_session_begin, which
 * admits it (or refuses it: ss->dead) and leaves it waiting for its streams. i2 is the
 * dialect's state, freed with the session (srv_iperf2_free). NULL: out of memory.
 */
struct srv_session *srv_session_headless(struct srv *s, const struct bp_addr *addr,
					 const char *peer, struct srv_iperf2 *i2);
void srv_session_begin(struct srv_session *ss);
/*
 * Inside a handler the session is only marked dead, with what the log says of its end (NULL:
 * nothing); the entry point that ran the handler closes it on the way out with
 * srv_session_reap (true when it was closed and freed), so no code touches a freed session.
 */
void srv_session_end(struct srv_session *ss, const char *why);
bool srv_session_reap(struct srv_session *ss);
/* A UDP stream whose hello came from peer; a repeated hello (the first answer was lost)
 * is recognised and its socket closed. seeds: a stock iperf 2 client's first datagrams,
 * read from the listener, counted on the stream (nseeds 0: none). */
void srv_session_take_udp(struct srv_session *ss, int fd, const char *peer,
			  const struct bp_udp_datagram *seeds, int nseeds);
/*
 * Close the oldest session still in set-up (cookie sent, no test admitted): from host when
 * its sessions in set-up reach --max-pending-per-addr, or anyone's when all of them reach
 * --max-pending; with host NULL, the oldest of all at once (out of descriptors). False
 * when nothing was shed.
 */
bool srv_session_shed_setup(struct srv *s, const struct bp_addr *host, const char *why);
/* When the oldest session still in set-up began; UINT64_MAX: none. */
uint64_t srv_session_oldest_setup_ns(const struct srv *s);
/* The session a UDP hello without a cookie (stock iperf3) from `from` belongs to: the
 * oldest one waiting for UDP streams whose control connection came from that address. */
struct srv_session *srv_session_waiting_udp(struct srv *s, const struct bp_addr *from);
/* Whether any session waits for UDP streams (tells a wrong address from no test at all). */
bool srv_session_any_waiting_udp(const struct srv *s);
struct srv_session *srv_session_find(struct srv *s, const char *cookie);
void srv_session_close(struct srv_session *ss, const char *why);
/*
 * Refuse or abort the test with a reason the client prints (code: iperf3's error number,
 * for a stock iperf3; why: what --metrics counts it under). Only marks the session: the entry point that ran the handler closes
 * it on the way out, so a kind's hook may refuse and still touch ss until it returns.
 */
void srv_session_refuse(struct srv_session *ss, enum srv_refusal why, int code,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
