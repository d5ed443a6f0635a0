/*
 * The one limiter for every line a peer can make a server write (docs/server.md, "What the
 * server logs"): refusals, failed authentications, protocol errors, connections shed or
 * cut short, and each test's own line, since a client can run thousands of tiny tests.
 * Counted per peer address (an IPv4 address, an IPv6 /64) and over all of them, so that
 * one address cannot drown the lines of others and many cannot fill the disk. What was
 * left out is summed on one line once the flood is over (a second without a line left
 * out), or every 10 s while it lasts:
 *
 *   log: 1392 lines from peers suppressed over 3.0 s (1380 from 127.0.0.1, 12 from
 *   127.0.0.2): at most 5 a second from one address (a burst of 20), 20 a second in all
 *   (a burst of 100)
 */
#ifndef BP_CORE_LOG_LIMIT_H
#define BP_CORE_LOG_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/log.h"

/*
 * One address: a burst of 20, then 5 a second. A host runs at most --max-per-client tests
 * at once (4), each with a line or two, and tests last a second or more: a lab user's
 * host stays under it, a loop of refused or garbled connections does not.
 */
#define BP_LOG_ADDR_PER_SEC 5
#define BP_LOG_ADDR_BURST 20
/* Everyone: a burst of 100 (64 clients ending their tests at once), then 20 a second. */
#define BP_LOG_ALL_PER_SEC 20
#define BP_LOG_ALL_BURST 100
/* Addresses counted apart; beyond, the one quiet longest gives its place up. */
#define BP_LOG_ADDRS 64
/* The flood is over when nothing was left out for this long: the sum goes out. */
#define BP_LOG_QUIET_NS BP_NS_PER_SEC
/* While a flood lasts, a sum at least this often. */
#define BP_LOG_SUM_NS (10 * BP_NS_PER_SEC)

/* A token bucket: credit in ns, a line costs 1e9 / rate of it, a burst is the most held. */
struct bp_log_bucket {
	uint64_t credit_ns;
	uint64_t refill_ns;  /* when credit was last added; 0: never (a full bucket) */
};

struct bp_log_addr {
	bool used;
	char key[48];               /* "127.0.0.1", "2001:db8:0:1::/64"; "" for no address */
	uint64_t seen_ns;           /* its last line, passed or not */
	struct bp_log_bucket bucket;
	unsigned long suppressed;   /* since the last sum */
};

/* Zero-initialised. Not locked: bp_log_peer locks the process's one. */
struct bp_log_limit {
	struct bp_log_bucket all;
	struct bp_log_addr addrs[BP_LOG_ADDRS];
	unsigned long suppressed;   /* since the last sum, from every address */
	unsigned long evicted;      /* of those, from addresses that gave their place up */
	uint64_t first_ns, last_ns; /* the first and the last line left out since */
	enum bp_log_level level;    /* the most important level among them */
};

/*
 * The address a peer's name ("127.0.0.1:40112", "[2001:db8::1]:5201", as bp_addr_str
 * writes it) is counted under: its host, an IPv6 address's /64; "" for NULL or a name
 * that is no address.
 */
void bp_log_limit_key(const char *peer, char *key, size_t len);

/* True when a line of level from peer may go out at now_ns; false counts it left out. */
bool bp_log_limit_pass(struct bp_log_limit *l, const char *peer, enum bp_log_level level,
		       uint64_t now_ns);

/*
 * The sum of what was left out, when one is due at now_ns (or anything was left out at
 * all, with force): true with the line in buf and its level in *level, the counts reset.
 */
bool bp_log_limit_sum(struct bp_log_limit *l, uint64_t now_ns, bool force, char *buf,
		      size_t len, enum bp_log_level *level);

/*
 * bp_log for a line a peer caused, through the process's limiter; peer as above (NULL
 * when the line names none, e.g. "accept: Too many open files"). A sum that is due goes
 * out first.
 */
__attribute__((format(printf, 3, 4)))
void bp_log_peer(const char *peer, enum bp_log_level level, const char *fmt, ...);

/*
 * The sum, if one is due (or anything was left out, with force): a server calls it once a
 * second, so that the end of a flood is logged when no other line follows it, and with
 * force as it stops.
 */
void bp_log_peer_flush(bool force);

#define bp_warn_peer(peer, ...)  bp_log_peer(peer, BP_LOG_WARN, __VA_ARGS__)
#define bp_info_peer(peer, ...)  bp_log_peer(peer, BP_LOG_INFO, __VA_ARGS__)
#define bp_debug_peer(peer, ...) bp_log_peer(peer, BP_LOG_DEBUG, __VA_ARGS__)

#endif
