/*
 * Back-off for wrong key proofs (serve --psk, docs/server.md "Pre-shared key"): a wrong
 * answer to the key challenge, or a data stream's wrong proof, makes the address that sent
 * it wait before its next try. Per address, so that a guesser is slowed without slowing
 * anyone else; capped, so that a NAT neighbour of a guesser waits seconds, never forever;
 * and a global cap on what all addresses with a wrong proof on record may try, so that a
 * guess spread over many addresses is slowed too. An address with no wrong proof on record
 * is never held: a right key from elsewhere gets in at once.
 *
 * The numbers (all in docs/server.md):
 *   - the first SRV_BACKOFF_FREE wrong proofs cost nothing (a mistyped key file);
 *   - the next ones hold the address for 125 ms, 250 ms, 500 ms, 1 s, then 2 s each, and a
 *     try taken while it has wrong proofs on record reserves the next such wait at once,
 *     so parallel connections gain nothing: at most 8 tries in the first 3 s, then 1 in 2 s;
 *   - a right proof, or 60 s without a wrong one, clears the address's record;
 *   - addresses with a record share 20 tries a second, server-wide;
 *   - 1,024 records (an IPv4 address, or an IPv6 /64); beyond that the longest quiet is
 *     forgotten, so a guess over more addresses than that is slowed by the global cap alone.
 * Time is bp_now_ns(), so that unit tests run it on the fake clock (core/clock.h).
 */
#ifndef BP_SERVER_SERVER_BACKOFF_H
#define BP_SERVER_SERVER_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "io/sock.h"

#define SRV_BACKOFF_FREE 3
#define SRV_BACKOFF_BASE_NS (125 * BP_NS_PER_MS)
#define SRV_BACKOFF_MAX_NS (2 * BP_NS_PER_SEC)
#define SRV_BACKOFF_FORGET_NS (60 * BP_NS_PER_SEC)
#define SRV_BACKOFF_GLOBAL_PER_SEC 20
#define SRV_BACKOFF_RECORDS 1024

struct srv_backoff_rec {
	unsigned char host[16];  /* IPv4 as v4-mapped, or an IPv6 /64 */
	uint32_t fails;          /* wrong proofs since the record began; 0: a free record */
	uint64_t last_fail_ns;
	uint64_t next_ok_ns;     /* no try before this */
};

struct srv_backoff {
	struct srv_backoff_rec *recs;  /* SRV_BACKOFF_RECORDS, allocated on the first wrong proof */
	uint64_t window_ns;            /* the global cap's current second began */
	uint32_t window_tries;         /* tries from addresses on record in it */
	uint64_t held;                 /* tries refused, for the log */
};

/*
 * May addr try a key now? 0: yes (the try is counted); otherwise how many ns it must wait.
 */
uint64_t srv_backoff_try(struct srv_backoff *b, const struct bp_addr *addr);
/* addr sent a wrong proof. */
void srv_backoff_fail(struct srv_backoff *b, const struct bp_addr *addr);
/* addr proved the key: its record is cleared. */
void srv_backoff_pass(struct srv_backoff *b, const struct bp_addr *addr);
/* The wait the n-th wrong proof in a row sets (0 for the free ones). */
uint64_t srv_backoff_delay_ns(uint32_t n);
void srv_backoff_free(struct srv_backoff *b);

#endif
