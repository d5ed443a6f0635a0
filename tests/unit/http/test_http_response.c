/*
 * Response framing as the client sees it: Content-Length, chunked, a body that runs to the
 * close, pipelined answers in one buffer, HEAD, interim and bodiless statuses, garbage,
 * and a response cut short. Every case is also fed one byte at a time and must come out
 * the same, and the Content-Length skip path must count the same answers.
 */
#include <errno.h>
#include <string.h>

#include "http/http_response.h"
#include "tap.h"

struct seen {
	int n;
	unsigned status[8];
	bool keep[8];
};

static void done(void *arg, unsigned status, bool keep_alive)
{
	struct seen *s = arg;

	if (s->n < 8) {
		s->status[s->n] = status;
		s->keep[s->n] = keep_alive;
	}
	s->n++;
}

/* Feed text in chunks of step bytes (0: whole), then EOF if eof; returns the first error. */
static int run(const char *text, size_t step, bool head, bool eof, struct seen *s)
{
	struct bp_http_resp r;
	size_t len = strlen(text);
	int rc = 0;

	memset(s, 0, sizeof(*s));
	bp_http_resp_init(&r, head, done, s);
	for (size_t off = 0; off < len && !rc; off += step ? step : len)
		rc = bp_http_resp_feed(&r, text + off, step && len - off > step ? step : len - off);
	if (!rc && eof)
		rc = bp_http_resp_eof(&r);
	return rc;
}

static void test_cases(void)
{
	static const struct {
		const char *name, *text;
		bool head, eof;
		int rc, n;
		unsigned first;
		bool keep;
	} cases[] = {
		{ "content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false,
		  false, 0, 1, 200, true },
		{ "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		  "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n", false, false, 0, 1, 200,
		  true },
		{ "until close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsome body", false,
		  true, 0, 1, 200, false },
		{ "http/1.0 until close", "HTTP/1.0 200 OK\r\n\r\nbody", false, true, 0, 1, 200,
		  false },
		{ "pipelined", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
		  "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
		  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\ny\r\n0\r\n\r\n", false,
		  false, 0, 3, 200, true },
		{ "close after first", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close"
		  "\r\n\r\nxHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, false, 0, 1, 200,
		  false },
		{ "head", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"
		  "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true, false, 0, 2, 200, true },
		{ "interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n"
		  "Content-Length: 0\r\n\r\n", false, false, 0, 1, 201, true },
		{ "204 no body", "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n"
		  "Content-Length: 0\r\n\r\n", false, false, 0, 2, 204, true },
		{ "garbage", "SSH-2.0-OpenSSH_9.2\r\n", false, false, -EPROTO, 0, 0, false },
		{ "bad length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", false, false,
		  -EPROTO, 0, 0, false },
		{ "cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", false, true,
		  -EPIPE, 0, 0, false },
		{ "cut in headers", "HTTP/1.1 200 OK\r\nContent-Le", false, true, -EPIPE, 0, 0,
		  false },
		{ "clean close between", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false,
		  true, 0, 1, 200, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seen whole, bytes;
		int rc1 = run(cases[i].text, 0, cases[i].head, cases[i].eof, &whole);
		int rc2 = run(cases[i].text, 1, cases[i].head, cases[i].eof, &bytes);

		printf("# %s\n", cases[i].name);
		CHECK_INT(rc1, cases[i].rc);
		CHECK_INT(whole.n, cases[i].n);
		if (cases[i].n) {
			CHECK_INT(whole.status[0], cases[i].first);
			CHECK_INT(whole.keep[whole.n - 1], cases[i].keep);
		}
		CHECK_INT(rc2, rc1);
		CHECK_INT(bytes.n, whole.n);
		CHECK(!memcmp(bytes.status, whole.status, sizeof(whole.status)));
	}
}

/* A large Content-Length body skipped unread, as the client does with MSG_TRUNC. */
static void test_skip(void)
{
	const char *hdr = "HTTP/1.1 200 OK\r\nContent-Length: 3000000\r\n\r\nab";
	const char *next = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	struct bp_http_resp r;
	struct seen s = { 0 };

	bp_http_resp_init(&r, false, done, &s);
	CHECK_INT(bp_http_resp_feed(&r, hdr, strlen(hdr)), 0);
	CHECK_INT(bp_http_resp_skippable(&r), 3000000 - 2);
	bp_http_resp_skip(&r, 1 << 20);
	CHECK_INT(bp_http_resp_skippable(&r), 3000000 - 2 - (1 << 20));
	bp_http_resp_skip(&r, 1 << 20);
	bp_http_resp_skip(&r, 1 << 20);  /* more than is left: only the rest */
	CHECK_INT(bp_http_resp_skippable(&r), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(bp_http_resp_feed(&r, next, strlen(next)), 0);
	CHECK_INT(s.n, 2);
	CHECK_INT(bp_http_resp_eof(&r), 0);
}

int main(void)
{
	test_cases();
	test_skip();
	return tap_done();
}
