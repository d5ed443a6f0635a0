/*
 * What `serve --http` answers for a path. Bodies are fixed-size runs of zero bytes chosen by
 * the path, so a peer board needs no web server and no files:
 *   /<size>            200 with a Content-Length body of size bytes: /0, /100, /1k, /64k,
 *                      /1m (k, m, g: binary multiples, upper or lower case; at most 1 GiB)
 *   /chunked/<size>    the same body in chunked transfer encoding (16 KiB chunks)
 *   /close/<size>      Content-Length, then the server closes (Connection: close)
 *   /eof/<size>        no length: the body ends where the server closes (HTTP/1.0 style)
 *   /close-mid/<size>  a test aid: announces size bytes, sends half, then closes
 *   /status/<code>     that status (200..599) with an empty body
 * anything else is 404. A query string (?...) is ignored.
 */
#ifndef BP_HTTP_HTTP_ROUTE_H
#define BP_HTTP_HTTP_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BP_HTTP_ROUTE_MAX_SIZE (1ULL << 30)

enum bp_http_route_kind {
	BP_HTTP_ROUTE_BODY,
	BP_HTTP_ROUTE_CHUNKED,
	BP_HTTP_ROUTE_CLOSE,
	BP_HTTP_ROUTE_EOF,
	BP_HTTP_ROUTE_CLOSE_MID,
	BP_HTTP_ROUTE_STATUS,
	BP_HTTP_ROUTE_NOT_FOUND,  /* 404 with a line that says which paths exist */
	BP_HTTP_ROUTE_BAD,        /* 400: the request was not HTTP; the server closes */
	BP_HTTP_ROUTE_TOO_LONG,   /* 414: the target did not fit */
	BP_HTTP_ROUTE_LIMIT,      /* 503: past the connection's byte limit; the server closes */
};

struct bp_http_route {
	enum bp_http_route_kind kind;
	unsigned status;
	uint64_t size;            /* body bytes (the announced ones for close-mid) */
};

/* "0", "100", "1k", "64K", "1m", "1G": false unless all of it is a size up to 1 GiB. */
bool bp_http_route_size(const char *s, size_t len, uint64_t *out);

/* The route of a request target ("/64k", "/chunked/1m?x", "http://host/1k"). */
void bp_http_route_of(const char *target, size_t len, struct bp_http_route *r);

#endif
