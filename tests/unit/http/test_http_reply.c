/*
 * The responder's routes and the bytes of its replies. Each reply is produced in pieces of
 * odd sizes (as writes that the kernel takes in part resume it) and read back with
 * http_parser: the status, the framing and the body length must be what the path asked.
 */
#include <stdlib.h>
#include <string.h>

#include <http_parser.h>

#include "http/http_reply.h"
#include "http/http_route.h"
#include "tap.h"

static void test_sizes(void)
{
	static const struct { const char *s; int ok; uint64_t v; } cases[] = {
		{ "0", 1, 0 }, { "100", 1, 100 }, { "1k", 1, 1024 }, { "64K", 1, 65536 },
		{ "1m", 1, 1 << 20 }, { "1G", 1, 1ULL << 30 }, { "1073741824", 1, 1ULL << 30 },
		{ "2g", 0, 0 }, { "1073741825", 0, 0 }, { "", 0, 0 }, { "k", 0, 0 },
		{ "1kb", 0, 0 }, { "-1", 0, 0 }, { "1.5k", 0, 0 }, { "99999999999k", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		bool ok = bp_http_route_size(cases[i].s, strlen(cases[i].s), &v);

		CHECK_INT(ok, cases[i].ok);
		if (ok)
			CHECK_INT(v, cases[i].v);
	}
}

struct parsed {
	unsigned status;
	uint64_t body;
	int complete;
	bool keep;
};

static int on_body(http_parser *p, const char *at, size_t len)
{
	struct parsed *r = p->data;

	(void)at;
	r->body += len;
	return 0;
}

static int on_headers(http_parser *p)
{
	struct parsed *r = p->data;

	r->status = p->status_code;
	r->keep = http_should_keep_alive(p);
	return 0;
}

static int on_complete(http_parser *p)
{
	struct parsed *r = p->data;

	r->complete++;
	return 0;
}

/* Every wire byte of the reply, produced in pieces of at most cap bytes, 3 iovecs each. */
static char *wire(struct bp_http_reply *r, size_t cap, size_t *len)
{
	char hdr[BP_HTTP_REPLY_HDR_MAX], scratch[BP_HTTP_REPLY_SCRATCH];
	size_t hl = bp_http_reply_header(r, hdr);
	uint64_t total = bp_http_reply_length(r, hl);
	char *out = malloc(total + 1);
	struct iovec iov[3];

	*len = 0;
	while (out && r->off < total) {
		size_t got = 0;
		int n = bp_http_reply_iov(r, hdr, hl, scratch, iov, 3, cap, &got);

		if (!n)
			break;
		for (int i = 0; i < n; i++) {
			memcpy(out + *len, iov[i].iov_base, iov[i].iov_len);
			*len += iov[i].iov_len;
		}
		r->off += got;
	}
	return out;
}

static void check_path(const char *path, bool head, unsigned status, int64_t body, bool keep)
{
	static const http_parser_settings settings = { .on_headers_complete = on_headers,
						       .on_body = on_body,
						       .on_message_complete = on_complete };
	struct bp_http_route route;
	struct bp_http_reply r;
	struct parsed got = { 0 };
	http_parser p;
	size_t len;
	char *bytes;

	printf("# %s%s\n", head ? "HEAD " : "", path);
	bp_http_route_of(path, strlen(path), &route);
	bp_http_reply_init(&r, &route, head, true, false, 1700000000);
	bytes = wire(&r, 1000 + strlen(path) * 37, &len);
	if (head) {  /* the header alone, announcing the GET's length */
		CHECK(len > 4 && !memcmp(bytes + len - 4, "\r\n\r\n", 4));
		CHECK(memmem(bytes, len, "Content-Length: 1024\r\n", 22) != NULL);
		free(bytes);
		return;
	}
	http_parser_init(&p, HTTP_RESPONSE);
	p.data = &got;
	/* A cut body (close-mid) is never complete, even at the end of the stream. */
	http_parser_execute(&p, &settings, bytes, len);
	http_parser_execute(&p, &settings, NULL, 0);
	CHECK_INT(got.status, status);
	CHECK_INT(got.keep, keep);
	if (body >= 0) {
		CHECK_INT(got.complete, 1);
		CHECK_INT(got.body, body);
	} else {
		/* close-mid: half the announced body, then nothing: never complete */
		CHECK_INT(got.complete, 0);
		CHECK_INT(got.body, -body);
	}
	free(bytes);
}

static void test_replies(void)
{
	check_path("/0", false, 200, 0, true);
	check_path("/1k", false, 200, 1024, true);
	check_path("/64k?x=1", false, 200, 65536, true);
	check_path("/1m", false, 200, 1 << 20, true);
	check_path("http://host:80/100", false, 200, 100, true);
	check_path("/chunked/0", false, 200, 0, true);
	check_path("/chunked/1", false, 200, 1, true);
	check_path("/chunked/16384", false, 200, 16384, true);
	check_path("/chunked/40000", false, 200, 40000, true);
	check_path("/close/10", false, 200, 10, false);
	check_path("/eof/100", false, 200, 100, false);
	check_path("/close-mid/1000", false, 200, -500, false);
	check_path("/status/503", false, 503, 0, true);
	check_path("/status/204", false, 204, 0, true);
	check_path("/nope", false, 404, 133, true);
	check_path("/status/99", false, 404, 133, true);
	check_path("/chunked/2g", false, 404, 133, true);
	check_path("/1k", true, 200, 0, true);
}

static void test_flags(void)
{
	struct bp_http_route route;
	struct bp_http_reply r;
	char hdr[BP_HTTP_REPLY_HDR_MAX];

	bp_http_route_of("/1k", 3, &route);
	bp_http_reply_init(&r, &route, false, true, true, 0);
	bp_http_reply_header(&r, hdr);
	CHECK(strstr(hdr, "Connection: keep-alive\r\n") != NULL);
	CHECK(strstr(hdr, "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n") != NULL);
	bp_http_reply_init(&r, &route, false, false, false, 0);
	bp_http_reply_header(&r, hdr);
	CHECK(r.close && strstr(hdr, "Connection: close\r\n") != NULL);
}

/* The answer past a connection's byte budget: a 503 that says why and closes. */
static void test_over_budget(void)
{
	static const struct bp_http_route over = { BP_HTTP_ROUTE_LIMIT, 503, 0 };
	struct bp_http_reply r;
	char hdr[BP_HTTP_REPLY_HDR_MAX];
	size_t hl;

	bp_http_reply_init(&r, &over, false, true, false, 0);
	hl = bp_http_reply_header(&r, hdr);
	CHECK(r.close);
	CHECK(strstr(hdr, "HTTP/1.1 503 Service Unavailable\r\n") != NULL);
	CHECK(strstr(hdr, "Connection: close\r\n") != NULL);
	CHECK(strstr(hdr, "Content-Type: text/plain\r\n") != NULL);
	CHECK(bp_http_reply_length(&r, hl) > hl && bp_http_reply_length(&r, hl) < hl + 200);
}

int main(void)
{
	test_sizes();
	test_replies();
	test_flags();
	test_over_budget();
	return tap_done();
}
