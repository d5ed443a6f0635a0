#include "http/http_reply.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/unconst.h"

/* Bodies are zeros: their content does not matter, their size does. */
static const char zeros[64 * 1024];

/* 16 KiB chunks: "4000\r\n", the data, "\r\n". */
#define CHUNK 16384
static const char chunk_head[] = "4000\r\n";
#define CHUNK_HEAD 6
#define CHUNK_WIRE (CHUNK_HEAD + CHUNK + 2)
static const char last_chunk[] = "0\r\n\r\n";
static const char crlf[] = "\r\n";
#define LAST_CHUNK 5

static const char not_found[] =
	"no such path; try /0, /1k, /64k, /1m, /<size>[k|m|g], /chunked/<size>, "
	"/close/<size>, /eof/<size>, /close-mid/<size>, /status/<code>\n";
static const char bad_request[] = "bad request\n";
static const char too_long[] = "request target too long\n";
static const char over_limit[] =
	"this answer would pass the bytes one connection may be sent "
	"(serve --http-max-bytes); open a new connection, or ask for less\n";

void bp_http_reply_init(struct bp_http_reply *r, const struct bp_http_route *route, bool head,
			bool keep_alive, bool http10, int64_t date)
{
	enum bp_http_route_kind k = route->kind;

	memset(r, 0, sizeof(*r));
	r->route = *route;
	r->head = head;
	r->close = !keep_alive || k == BP_HTTP_ROUTE_CLOSE || k == BP_HTTP_ROUTE_EOF ||
		   k == BP_HTTP_ROUTE_CLOSE_MID || k == BP_HTTP_ROUTE_BAD ||
		   k == BP_HTTP_ROUTE_LIMIT;
	r->keep_alive_10 = http10 && !r->close;
	r->date = date;
}

void bp_http_date(int64_t t, char out[BP_HTTP_DATE_LEN])
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
					    "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t tt = (time_t)t;
	struct tm tm;

	/* Names from tables, not strftime: the header must not follow the locale. */
	if (!gmtime_r(&tt, &tm)) {
		snprintf(out, BP_HTTP_DATE_LEN, "Thu, 01 Jan 1970 00:00:00 GMT");
		return;
	}
	snprintf(out, BP_HTTP_DATE_LEN, "%s, %02u %s %04u %02u:%02u:%02u GMT",
		 days[(unsigned)tm.tm_wday % 7u], (unsigned)tm.tm_mday % 100u,
		 months[(unsigned)tm.tm_mon % 12u], (unsigned)(tm.tm_year + 1900) % 10000u,
		 (unsigned)tm.tm_hour % 100u, (unsigned)tm.tm_min % 100u,
		 (unsigned)tm.tm_sec % 100u);
}

static const char *reason(unsigned status)
{
	switch (status) {
	case 200: return "OK";
	case 204: return "No Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Status";
	}
}

/* A text body (404, 400, 414, 503), or NULL. */
static const char *text_body(const struct bp_http_reply *r, size_t *len)
{
	const char *t = r->route.kind == BP_HTTP_ROUTE_NOT_FOUND ? not_found :
			r->route.kind == BP_HTTP_ROUTE_BAD ? bad_request :
			r->route.kind == BP_HTTP_ROUTE_TOO_LONG ? too_long :
			r->route.kind == BP_HTTP_ROUTE_LIMIT ? over_limit : NULL;

	*len = t ? strlen(t) : 0;
	return t;
}

/* The body as the header announces it: Content-Length, chunked, or until the close. */
static void length_header(const struct bp_http_reply *r, char *buf, size_t len)
{
	unsigned s = r->route.status;
	size_t tlen;

	switch (r->route.kind) {
	case BP_HTTP_ROUTE_CHUNKED:
		snprintf(buf, len, "Content-Type: application/octet-stream\r\n"
			 "Transfer-Encoding: chunked\r\n");
		return;
	case BP_HTTP_ROUTE_EOF:
		snprintf(buf, len, "Content-Type: application/octet-stream\r\n");
		return;
	case BP_HTTP_ROUTE_STATUS:
		/* 204 and 304 have no body, and say nothing of one. */
		snprintf(buf, len, "%s", s == 204 || s == 304 ? "" : "Content-Length: 0\r\n");
		return;
	case BP_HTTP_ROUTE_NOT_FOUND:
	case BP_HTTP_ROUTE_BAD:
	case BP_HTTP_ROUTE_TOO_LONG:
	case BP_HTTP_ROUTE_LIMIT:
		text_body(r, &tlen);
		snprintf(buf, len, "Content-Type: text/plain\r\nContent-Length: %zu\r\n", tlen);
		return;
	default:
		snprintf(buf, len, "Content-Type: application/octet-stream\r\n"
			 "Content-Length: %" PRIu64 "\r\n", r->route.size);
	}
}

size_t bp_http_reply_header(const struct bp_http_reply *r, char *buf)
{
	char date[BP_HTTP_DATE_LEN], length[128];
	int n;

	bp_http_date(r->date, date);
	length_header(r, length, sizeof(length));
	n = snprintf(buf, BP_HTTP_REPLY_HDR_MAX, "HTTP/1.1 %u %s\r\nServer: boardperf\r\n"
		     "Date: %s\r\n%s%s\r\n", r->route.status, reason(r->route.status), date,
		     length, r->close ? "Connection: close\r\n" :
		     r->keep_alive_10 ? "Connection: keep-alive\r\n" : "");
	return n < 0 ? 0 : (size_t)n < BP_HTTP_REPLY_HDR_MAX ? (size_t)n :
	       BP_HTTP_REPLY_HDR_MAX - 1;
}

/* Bytes of a chunked body of size bytes on the wire. */
static uint64_t chunked_length(uint64_t size, char *last_head, size_t *last_head_len)
{
	uint64_t full = size / CHUNK, rem = size % CHUNK, n = full * CHUNK_WIRE + LAST_CHUNK;
	int h = 0;

	if (rem) {
		h = snprintf(last_head, BP_HTTP_REPLY_SCRATCH, "%" PRIx64 "\r\n", rem);
		n += (uint64_t)h + rem + 2;
	}
	*last_head_len = (size_t)h;
	return n;
}

static uint64_t body_length(const struct bp_http_reply *r)
{
	char scratch[BP_HTTP_REPLY_SCRATCH];
	size_t tlen, hl;

	if (r->head)
		return 0;
	switch (r->route.kind) {
	case BP_HTTP_ROUTE_CHUNKED: return chunked_length(r->route.size, scratch, &hl);
	case BP_HTTP_ROUTE_CLOSE_MID: return r->route.size / 2;
	case BP_HTTP_ROUTE_STATUS: return 0;
	case BP_HTTP_ROUTE_NOT_FOUND:
	case BP_HTTP_ROUTE_BAD:
	case BP_HTTP_ROUTE_TOO_LONG:
	case BP_HTTP_ROUTE_LIMIT:
		text_body(r, &tlen);
		return tlen;
	default: return r->route.size;
	}
}

uint64_t bp_http_reply_length(const struct bp_http_reply *r, size_t hdr_len)
{
	return hdr_len + body_length(r);
}

/* The piece of a chunked body that starts at body offset o: pointer and length. */
static const char *chunked_piece(const struct bp_http_reply *r, uint64_t o, char *scratch,
				 size_t *len)
{
	uint64_t full = r->route.size / CHUNK, rem = r->route.size % CHUNK, w;
	size_t hl;

	chunked_length(r->route.size, scratch, &hl);
	if (o < full * CHUNK_WIRE) {
		w = o % CHUNK_WIRE;
		if (w < CHUNK_HEAD) {
			*len = CHUNK_HEAD - (size_t)w;
			return chunk_head + w;
		}
		if (w < CHUNK_HEAD + CHUNK) {
			*len = (size_t)(CHUNK_HEAD + CHUNK - w);
			return zeros;
		}
		*len = (size_t)(CHUNK_WIRE - w);
		return crlf + (w - CHUNK_HEAD - CHUNK);
	}
	o -= full * CHUNK_WIRE;
	if (rem) {
		if (o < hl) {
			*len = hl - (size_t)o;
			return scratch + o;
		}
		o -= hl;
		if (o < rem) {
			*len = (size_t)(rem - o);
			return zeros;
		}
		o -= rem;
		if (o < 2) {
			*len = 2 - (size_t)o;
			return crlf + o;
		}
		o -= 2;
	}
	*len = LAST_CHUNK - (size_t)o;
	return last_chunk + o;
}

/* The piece of the body at body offset o (below the body's length). */
static const char *body_piece(const struct bp_http_reply *r, uint64_t o, uint64_t blen,
			      char *scratch, size_t *len)
{
	const char *t;
	size_t tlen;

	if (r->route.kind == BP_HTTP_ROUTE_CHUNKED)
		return chunked_piece(r, o, scratch, len);
	t = text_body(r, &tlen);
	if (t) {
		*len = tlen - (size_t)o;
		return t + o;
	}
	*len = blen - o < sizeof(zeros) ? (size_t)(blen - o) : sizeof(zeros);
	return zeros;
}

int bp_http_reply_iov(const struct bp_http_reply *r, const char *hdr, size_t hdr_len,
		      char *scratch, struct iovec *iov, int max, size_t cap, size_t *bytes)
{
	uint64_t blen = body_length(r), o = r->off, end = hdr_len + blen;
	size_t taken = 0;
	int n = 0;

	while (n < max && o < end && taken < cap) {
		const char *p;
		size_t len;

		if (o < hdr_len) {
			p = hdr + o;
			len = hdr_len - (size_t)o;
		} else {
			p = body_piece(r, o - hdr_len, blen, scratch, &len);
		}
		if (len > cap - taken)
			len = cap - taken;
		iov[n++] = (struct iovec){ bp_unconst(p), len };  /* sent, not written */
		o += len;
		taken += len;
	}
	*bytes += taken;
	return n;
}
