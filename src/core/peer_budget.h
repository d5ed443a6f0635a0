/*
 * What peers have made the server hold before it could parse it (half-sent control
 * messages), counted against one limit for all peers together: each message has its own
 * cap, but 256 connections each within it would still add up to the board's memory (issue
 * 31: 256 half-sent 1 MiB parameter messages took a server from 3.7 MB to 312 MB). Pure
 * accounting, shared by the test server's loop and the HTTP responder's threads (atomics);
 * who is closed when a take fails is the caller's choice (server_session.c,
 * http_serve_conn.c; docs/server.md, "Buffered bytes").
 */
#ifndef BP_CORE_PEER_BUDGET_H
#define BP_CORE_PEER_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bp_peer_budget {
	size_t limit;             /* bytes all peers together may have buffered */
	_Atomic size_t used;      /* buffered now */
	_Atomic size_t peak;      /* the most ever buffered at once */
	_Atomic uint64_t refused; /* takes that would have passed the limit */
};

void bp_peer_budget_init(struct bp_peer_budget *b, size_t limit);
/* Counts n more bytes buffered: false (and nothing counted) when that passes the limit. */
bool bp_peer_budget_take(struct bp_peer_budget *b, size_t n);
/* n bytes taken before are freed (never below zero: a bug would show as a leak, not a wrap). */
void bp_peer_budget_give(struct bp_peer_budget *b, size_t n);

#endif
