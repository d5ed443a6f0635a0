/*
 * The server's admission limits. A test is admitted only when what it asks for (duration,
 * streams, rate) is within the server's bounds and neither the server as a whole, nor the
 * client's own address, nor its subnet already runs as many tests as allowed. A slot is
 * held only while the test uses it: one whose streams stop coming is released after
 * BP_SERVER_STREAMS_WAIT_NS, or sooner to a newcomer at a full server (BP_SERVER_STALLED_NS).
 * A refusal for a full server or a full share says when a slot frees. The check
 * and the times are pure (no sockets, no sessions), so that every limit and each edge of
 * it has a unit test; the session side (the client's address, the counts, the refusal in
 * the client's dialect) is srv_limits_check.
 */
#ifndef BP_SERVER_SERVER_LIMITS_H
#define BP_SERVER_SERVER_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/clock.h"
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

/*
 * The subnet a client shares its subnet's share with: an IPv4 /24 (a lab LAN, one site's
 * block of addresses) or an IPv6 /64 (what one host or LAN is given; a host may pick any
 * address in it), a link-local /64 per interface. An IPv4 and an IPv6 key never share one.
 */
bool bp_client_key_same_subnet(const struct bp_client_key *a, const struct bp_client_key *b);
/* "192.0.2.0/24" or "2001:db8::/64", for messages. */
char *bp_client_subnet_str(const struct bp_client_key *k, char *buf, size_t len);

/*
 * How many of --max-clients one subnet may hold: all but a quarter (rounded down), so
 * that a quarter of the slots is always left to the rest of the world, however many
 * addresses one subnet brings; 0 (no limit) without --max-clients. Under 4 slots there
 * is no quarter to keep.
 */
int bp_limits_subnet_share(int max_clients);

/*
 * Streams connect at once (a round trip each; iperf3 connects them one after another):
 * a test admitted whose next stream does not come within this (or --idle-timeout when
 * shorter) of admission or of its last stream is released, so that a client that asks
 * for a test and connects nothing holds its slot for seconds, not the idle timeout. Five
 * seconds: a stream over a satellite hop (600 ms a round trip) comes with room to spare,
 * and so does a client that checks something first (test_attack_reflect's waits 2.5 s).
 */
#define BP_SERVER_STREAMS_WAIT_NS (5 * BP_NS_PER_SEC)
/* When a test waiting for its streams since since_ns (admission, or its last stream) is
 * released. */
uint64_t bp_limits_streams_due_ns(const struct bp_server_opts *o, uint64_t since_ns);

/*
 * A full server does not wait for such a release: a test that has waited this long for its
 * next stream gives its slot to a newcomer whose subnet holds fewer slots than its own
 * (bp_limits_may_take), so that addresses spread over many subnets, each within its
 * shares, still cannot keep everyone else out by asking and connecting nothing. A real
 * client's streams come a round trip apart; one silent for a second is not opening them.
 */
#define BP_SERVER_STALLED_NS (1 * BP_NS_PER_SEC)

/*
 * Addresses whose tests were lately released for streams that never came: they take no
 * one's slot (an attacker's addresses would otherwise take each other's stalled slots as
 * fast as they stall, and a real client would find none that had stalled a second). A
 * ring of the last BP_STALLERS addresses, each remembered BP_STALLERS_MEMORY_NS from its
 * last release; an address already in it is refreshed, not added again.
 */
#define BP_STALLERS 64
#define BP_STALLERS_MEMORY_NS (60 * BP_NS_PER_SEC)
struct bp_stallers {
	struct bp_client_key key[BP_STALLERS];
	uint64_t at_ns[BP_STALLERS];  /* its last release; 0: an empty entry */
	unsigned next;                /* the entry the next new address takes */
};
void bp_stallers_note(struct bp_stallers *st, const struct bp_client_key *k, uint64_t now_ns);
bool bp_stallers_has(const struct bp_stallers *st, const struct bp_client_key *k,
		     uint64_t now_ns);

/* Whether a test waiting for streams since since_ns, whose subnet runs victim_subnet tests,
 * gives its slot at now_ns to a newcomer whose subnet runs newcomer_subnet (a newcomer
 * among the stallers takes nothing). */
bool bp_limits_may_take(uint64_t now_ns, uint64_t since_ns, int victim_subnet,
			int newcomer_subnet, bool newcomer_stalled);

/* One admitted test, as far as when its slot frees goes. */
struct bp_slot {
	bool running;        /* its streams all came (data moves) */
	bool ending;         /* past TEST_END: exchanging results, freed within a round trip */
	uint64_t since_ns;   /* running: its start; waiting for streams: admission or last stream */
	uint64_t length_ns;  /* running: omit plus time */
};
/* When the slot is expected to be free: the test's end, or the release of a waiting one. */
uint64_t bp_slot_due_ns(const struct bp_server_opts *o, const struct bp_slot *sl);
/* The whole seconds from now_ns to due_ns, rounded up, and at least 1: a refusal's
 * "try again in N s". */
int bp_limits_retry_s(uint64_t now_ns, uint64_t due_ns);

/* What a test asks for, and what the server already runs, at the moment of admission. */
struct bp_limits_ask {
	uint64_t time_ns, omit_ns;
	double rate;              /* -b: bit/s per stream; 0: as fast as it goes */
	int parallel;             /* -P: streams per direction */
	int running;              /* tests admitted and not yet finished, from anyone */
	int running_from_client;  /* of those, from this client's address */
	int running_from_subnet;  /* of those, from this client's subnet */
	const char *client;       /* the client's address, for the message */
	const char *subnet;       /* the client's subnet, for the message */
	/* For "try again in N s": now, and the earliest slot to free of each count (0: no
	 * estimate, the message says 1 s) */
	uint64_t now_ns, due_ns, due_client_ns, due_subnet_ns;
};

/* The limits, in the order they are checked (and so the one a refusal names). */
enum bp_limit {
	BP_LIMIT_NONE,        /* admitted */
	BP_LIMIT_CLIENTS,     /* --max-clients */
	BP_LIMIT_PER_CLIENT,  /* --max-per-client */
	BP_LIMIT_PER_SUBNET,  /* bp_limits_subnet_share of --max-clients */
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
 * three counts; otherwise the iperf3 error number whose text it prints (test duration too
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
 * bp_limits_check, a busy server's retry time from the admitted sessions' bp_slot. The
 * caller refuses in the client's dialect, or admits and counts. BP_LIMIT_NONE with *take
 * set: the server is full and *take, a stalled test (BP_SERVER_STALLED_NS), is to be
 * released first to make room.
 */
enum bp_limit srv_limits_check(struct srv_session *ss, char *msg, size_t len,
			       struct srv_session **take);

#endif
