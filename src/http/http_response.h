/*
 * Responses as the client reads them, through http_parser (Debian's libhttp-parser, the
 * parser wrk uses). It frames every kind of response body: Content-Length, chunked, and a
 * body that ends when the server closes; pipelined responses follow each other in one
 * buffer. Nothing of a response is kept but its status and whether the connection stays
 * open: the client only counts. A caller that wants to quote an answer (export --push names
 * a gateway's refusal) gives a buffer for the first bytes of the bodies
 * (bp_http_resp_keep_body).
 *
 * A Content-Length body may be skipped without being read into memory (the caller
 * discards it in the kernel, MSG_TRUNC, and tells the parser how much went by).
 */
#ifndef BP_HTTP_HTTP_RESPONSE_H
#define BP_HTTP_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

/* One complete response: its status, and false when the server will close after it. */
typedef void (*bp_http_resp_done_fn)(void *arg, unsigned status, bool keep_alive);

struct bp_http_resp {
	http_parser p;
	bool head;             /* answers to HEAD: headers only, whatever Content-Length says */
	bool in_message;       /* bytes of a response have come, its end not yet */
	bool closing;          /* a response said Connection: close; nothing after it counts */
	bool cl_body;          /* inside a Content-Length body */
	uint64_t cl_left;      /* its bytes still to come */
	bp_http_resp_done_fn done;
	void *arg;
	char *keep;            /* NULL, or the first keep_cap bytes of the bodies go here */
	size_t keep_cap, kept;
};

/* Ready for the first response of a new connection. */
void bp_http_resp_init(struct bp_http_resp *r, bool head, bp_http_resp_done_fn done,
		       void *arg);

/*
 * Keep the first cap bytes of the bodies (decoded: no chunk framing) in buf; kept counts
 * them. Not NUL-terminated.
 */
void bp_http_resp_keep_body(struct bp_http_resp *r, char *buf, size_t cap);

/*
 * Parse len bytes; done() runs for each response completed. 0, or -EPROTO when the bytes
 * are not HTTP (bp_http_resp_error says what). Bytes after a closing response are ignored.
 */
int bp_http_resp_feed(struct bp_http_resp *r, const char *data, size_t len);

/*
 * The server closed. 0 when that ended a response cleanly (a body read until the close) or
 * came between responses; -EPIPE when it cut a response short.
 */
int bp_http_resp_eof(struct bp_http_resp *r);

/* Bytes of a Content-Length body still to come (0 outside one): these may be skipped. */
uint64_t bp_http_resp_skippable(const struct bp_http_resp *r);
/* n (at most skippable, at most 1 MiB) body bytes went by unread. */
void bp_http_resp_skip(struct bp_http_resp *r, size_t n);

/* The parser's words for the last error ("invalid HTTP status code"). */
const char *bp_http_resp_error(const struct bp_http_resp *r);

#endif
