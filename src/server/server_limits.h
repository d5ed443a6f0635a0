/*
 * The server's admission limits. A test is admitted only when what it asks for (duration,
 * streams, rate) is within the server's bounds and neither the server as a whole nor the
 * client's own address already runs as many tests as allowed. The check itself is pure
 * (no sockets, no sessions), so that every limit and each edge of it has a unit test; the
 * session side (the client's address, the count, the refusal in the client's dialect) is
 * srv_limits_admit.
 */
#ifndef BP_SERVER_SERVER_LIMITS_H
#define BP_SERVER_SERVER_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "server/server.h"

/*
 * The address a client's tests are counted under: IPv6, with IPv4 written as
 * ::ffff:a.b.c.d, so that an IPv4 client counts the same whether it reached an IPv4 socket
 * or a dual-stack one (where it arrives IPv4-mapped). A link-local address keeps its
 * interface: fe80::1 on two links is two hosts.
 */
struct bp_client_key {
	unsigned char addr[16];
	uint32_t scope;
};

/* The key of a peer's address; 0, or -EAFNOSUPPORT for a family other than IPv4 and IPv6. */
int bp_client_key_from(const struct sockaddr *sa, socklen_t len, struct bp_client_key *k);
bool bp_client_key_equal(const struct bp_client_key *a, const struct bp_client_key *b);
/* "192.0.2.1" (also for an IPv4-mapped key) or "2001:db8::1", for messages. */
char *bp_client_key_str(const struct bp_client_key *k, char *buf, size_t len);

/* What a test asks for, and what the server already runs, at the moment of admission. */
struct bp_limits_ask {
	uint64_t time_ns, omit_ns;
	double rate;              /* -b: bit/s per stream; 0: as fast as it goes */
	int parallel;             /* -P: streams per direction */
	int running;              /* tests admitted and not yet finished, from anyone */
	int running_from_client;  /* of those, from this client's address */
	const char *client;       /* the client's address, for the message */
};

/* The limits, in the order they are checked (and so the one a refusal names). */
enum bp_limit {
	BP_LIMIT_NONE,        /* admitted */
	BP_LIMIT_CLIENTS,     /* --max-clients */
	BP_LIMIT_PER_CLIENT,  /* --max-per-client */
	BP_LIMIT_DURATION,    /* --max-duration */
	BP_LIMIT_STREAMS,     /* --max-streams */
	BP_LIMIT_RATE,        /* --max-rate */
};

/*
 * The first limit of o that the ask breaks, or BP_LIMIT_NONE. On a refusal msg holds the
 * one line the client prints and the server logs, naming the option and its value.
 */
enum bp_limit bp_limits_check(const struct bp_server_opts *o, const struct bp_limits_ask *a,
			      char *msg, size_t len);

/*
 * How a stock iperf3 client hears of a refusal: the server is "busy" (iperf3's
 * ACCESS_DENIED state, after which it prints "the server is busy running a test") for the
 * two counts; otherwise the iperf3 error number whose text it prints (test duration too
 * long, too many parallel streams, total bandwidth above the server's limit).
 */
bool bp_limit_busy(enum bp_limit l);
int bp_limit_iperf3_code(enum bp_limit l);

struct srv;
struct srv_session;

/* Tests admitted and not finished whose client has key k. */
int srv_limits_running_from(const struct srv *s, const struct bp_client_key *k);

/*
 * The limit that refuses session ss (its parameters read; its client's address is taken
 * from the control connection and kept in ss->client), or BP_LIMIT_NONE; msg as for
 * bp_limits_check. The caller refuses in the client's dialect, or admits and counts.
 */
enum bp_limit srv_limits_check(struct srv_session *ss, char *msg, size_t len);

#endif
