/*
 * What one connection of `serve --http` may cost the server: the bytes it may be sent in
 * all (--http-max-bytes), and the line the server logs when a connection is cut short.
 *
 * A reply is promised against the budget when its request is parsed, before a byte of it
 * is written. A reply that fits goes out whole; the one after which the next alike would
 * not fit carries Connection: close, so a load tool that repeats one request (boardperf
 * http, wrk) sees the standard end of a keep-alive connection and opens a new one, never an
 * error; a reply that does not fit at all (a bigger request behind smaller ones, or one
 * body above the budget) is a short 503 with Connection: close. A connection is therefore
 * never sent more than the budget plus one 503.
 */
#ifndef BP_HTTP_HTTP_SERVE_LIMIT_H
#define BP_HTTP_HTTP_SERVE_LIMIT_H

#include <stdint.h>

/*
 * 4 GiB: three of the largest bodies (1 GiB, /1g) and a few thousand /1m on one
 * connection; over half a minute of a gigabit link on one connection, and a load tool that
 * meets it on a faster link reconnects (a handshake per 4 GiB). docs/server.md, "The HTTP
 * responder" says why.
 */
#define BP_HTTP_MAX_BYTES_DEFAULT (4ULL << 30)
#define BP_HTTP_MAX_BYTES_DEFAULT_TEXT "4G"

enum bp_http_budget {
	BP_HTTP_BUDGET_OK,    /* fits, and another alike would still fit */
	BP_HTTP_BUDGET_LAST,  /* fits; another alike would not: this one closes */
	BP_HTTP_BUDGET_OVER,  /* does not fit: a 503 instead, which closes */
};

/* A reply of len bytes on a connection already promised committed of cap bytes. */
enum bp_http_budget bp_http_budget_check(uint64_t committed, uint64_t len, uint64_t cap);

/*
 * "http: 127.0.0.1:40112: WHY", the line the workers log for the connection on fd when it
 * is cut short, through the limiter of every line a peer causes (core/log_limit.h).
 */
__attribute__((format(printf, 2, 3)))
void bp_http_limit_log(int fd, const char *fmt, ...);

#endif
