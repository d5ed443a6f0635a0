/*
 * One response of `serve --http` as bytes on the wire: a header formatted on demand and a
 * body that is never stored (zeros from one static buffer, chunk framing computed from the
 * offset). A reply is a few dozen bytes in the connection's queue however large its body,
 * and a write can resume it at any offset.
 */
#ifndef BP_HTTP_HTTP_REPLY_H
#define BP_HTTP_HTTP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "http/http_route.h"

#define BP_HTTP_REPLY_HDR_MAX 256
/* The scratch a reply's iovecs may point into (a short last chunk's size line). */
#define BP_HTTP_REPLY_SCRATCH 16

struct bp_http_reply {
	struct bp_http_route route;
	bool head;            /* HEAD: the header only */
	bool close;           /* Connection: close; the server closes after it */
	bool keep_alive_10;   /* an HTTP/1.0 client asked to keep the connection */
	int64_t date;         /* the second its Date header names (kept: a resumed header
			       * must come out the same) */
	uint64_t off;         /* wire bytes written so far */
	uint16_t hdr_len;     /* the header's length once formatted (0 before) */
};

/* A reply to a request: keep_alive is what the request allows (http_should_keep_alive). */
void bp_http_reply_init(struct bp_http_reply *r, const struct bp_http_route *route, bool head,
			bool keep_alive, bool http10, int64_t date);

/* "Tue, 15 Nov 1994 08:12:31 GMT" (RFC 9110's IMF-fixdate) for Unix time t. */
#define BP_HTTP_DATE_LEN 40
void bp_http_date(int64_t t, char out[BP_HTTP_DATE_LEN]);

/* The header into buf (BP_HTTP_REPLY_HDR_MAX bytes); returns its length. */
size_t bp_http_reply_header(const struct bp_http_reply *r, char *buf);

/* Every wire byte of the reply, its header (hdr_len) included. */
uint64_t bp_http_reply_length(const struct bp_http_reply *r, size_t hdr_len);

/*
 * Up to max iovecs, at most cap bytes, of the reply's wire bytes from r->off on. hdr is its
 * header; scratch (BP_HTTP_REPLY_SCRATCH bytes) may be pointed into. Returns the iovecs
 * filled and adds their bytes to *bytes.
 */
int bp_http_reply_iov(const struct bp_http_reply *r, const char *hdr, size_t hdr_len,
		      char *scratch, struct iovec *iov, int max, size_t cap, size_t *bytes);

#endif
