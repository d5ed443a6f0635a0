/*
 * Shared by server_iperf2.c (the TCP tests, and what every iperf 2 test has),
 * server_iperf2_udp.c (the UDP tests) and server_iperf2_trip.c (TCP --trip-times): a test's
 * iperf 2 state and the steps they take.
 */
#ifndef BP_SERVER_SERVER_IPERF2_INTERNAL_H
#define BP_SERVER_SERVER_IPERF2_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "io/loop.h"
#include "io/sock.h"
#include "proto/iperf2_burst.h"
#include "proto/iperf2_udp.h"
#include "server/connect_back.h"
#include "server/server_internal.h"

/* One of the client's connections. */
struct iperf2_conn {
	/*
	 * A second descriptor of the connection, in the server's loop for EPOLLRDHUP alone:
	 * the client's FIN (it stopped sending) or its reset, the moment it comes, while the
	 * stream pool's worker reads the data through the first. -1 once seen.
	 */
	struct bp_flow watch;
	struct srv_session *ss;
	bool peer_done;
};

struct srv_iperf2 {
	struct bp_iperf2_header h;     /* the first connection's; the others match it */
	/*
	 * What moves where: the client sends on its connections (all but -R and -r's second
	 * test); this side sends on them (-R, --full-duplex), or on connections it opens back
	 * to the client's listening port (-d; -r's second test, after the client's own).
	 */
	bool recv, send_same, send_back;
	bool second;                   /* -r's second test: this side's connections only */
	struct bp_addr local;          /* the address the client reached: the back's source */
	int n;
	struct iperf2_conn conns[BP_IPERF2_MAX_THREADS];
	int nbacks;
	struct srv_connect_back backs[BP_IPERF2_MAX_THREADS];
	/* this side stops sending (-t, or -n polled), its bytes drain to the client (polled),
	 * or --max-duration's cut */
	struct bp_timer end;
	bool sending_done, drained;
	uint64_t sending_done_ns;
	bool cut;                      /* -t was above --max-duration: the test is cut there */
	/* UDP (server_iperf2_udp.c): each client socket's stream, and its report */
	bool udp;
	bool bb;                       /* a bounceback test (no header: h is made up for it) */
	uint64_t first_ns;             /* the first datagram's arrival */
	int nudp;
	struct iperf2_udp_peer *udp_peers;  /* h.threads of them */
	bool reporting;                /* the FINs came: the reports went out */
	/* TCP --trip-times (server_iperf2_trip.c): a reader of each client connection's writes */
	struct bp_iperf2_burst_reader *bursts;  /* BP_IPERF2_MAX_THREADS of them, or NULL */
	int nbursts;
};

/*
 * server_iperf2_trip.c, once the streams stopped: the test's one-way delay over TCP
 * (--trip-times) in the log, or why the client's write times could not be read.
 */
void srv_iperf2_trip_log(const struct srv_session *ss);
/*
 * The log line of a --trip-times test's one-way delays w over proto ("tcp", "udp"), counted
 * in what ("writes", "datagrams"); nothing when w holds none.
 */
void srv_iperf2_log_owd(const struct srv_session *ss, const char *proto,
			const struct bp_welford *w, const char *what);

/* A refused connection is reset (TCP; fd -1: a datagram, nothing to close): counted in
 * --metrics, its line in the log. */
void srv_iperf2_refuse(struct srv *s, int fd, const char *peer, enum srv_refusal why,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* What a header asks that this server does not do (over UDP: udp): 0, or the refusal with
 * its line in why. */
enum srv_refusal srv_iperf2_unserved(const struct srv *s, const struct bp_iperf2_header *h,
				     bool udp, char *why, size_t len);
/* The test of this client still waiting for streams like this one (its other -P). */
struct srv_session *srv_iperf2_test_of(struct srv *s, const struct bp_addr *from,
				       const struct bp_iperf2_header *h, bool udp);
/*
 * A test of h's from the client at from (peer: its name), which reached this server at
 * local; second: -r's second test; udp: a UDP test. Admitted and waiting for its streams,
 * or refused and closed (NULL, the reason in the log).
 */
struct srv_session *srv_iperf2_new_test(struct srv *s, const struct bp_addr *from,
					const struct bp_addr *local, const char *peer,
					const struct bp_iperf2_header *h, bool second, bool udp);
/* The test's end: its totals, its log line; the session closes on the way out (note: what
 * the log says of an end that is not the test's own, NULL for none). */
void srv_iperf2_finish(struct srv_session *ss, const char *note);
const char *srv_iperf2_mode_name(enum bp_iperf2_mode m);
/* server_iperf2_udp.c: the test started; its session closes */
void srv_iperf2_udp_started(struct srv_session *ss, uint64_t now);
void srv_iperf2_udp_free(struct srv_session *ss);

#endif
