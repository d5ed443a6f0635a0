#include "http/http_response.h"

#include <errno.h>
#include <string.h>

/* What a skipped body is parsed as: the parser sees bytes it never looks into. */
#define SKIP_MAX (1 << 20)
static char skipped[SKIP_MAX];

static int on_message_begin(http_parser *p)
{
	struct bp_http_resp *r = p->data;

	r->in_message = true;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	struct bp_http_resp *r = p->data;

	/* 1 tells the parser no body follows: a HEAD answer's Content-Length is the GET's. */
	if (r->head)
		return 1;
	r->cl_body = (p->flags & F_CONTENTLENGTH) && !(p->flags & F_CHUNKED) &&
		     p->content_length > 0;
	r->cl_left = r->cl_body ? p->content_length : 0;
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
	struct bp_http_resp *r = p->data;

	if (r->keep && r->kept < r->keep_cap) {
		size_t n = len < r->keep_cap - r->kept ? len : r->keep_cap - r->kept;

		memcpy(r->keep + r->kept, at, n);
		r->kept += n;
	}
	if (r->cl_body)
		r->cl_left -= len < r->cl_left ? len : r->cl_left;
	return 0;
}

static int on_message_complete(http_parser *p)
{
	struct bp_http_resp *r = p->data;
	bool keep = http_should_keep_alive(p);

	r->in_message = false;
	r->cl_body = false;
	r->cl_left = 0;
	/* An interim answer (100 Continue) is not the response to the request. */
	if (p->status_code >= 100 && p->status_code < 200 && p->status_code != 101)
		return 0;
	if (!keep) {
		r->closing = true;
		/* The server closes after this one: stop here, later bytes are not answers. */
		http_parser_pause(p, 1);
	}
	r->done(r->arg, p->status_code, keep);
	return 0;
}

static const http_parser_settings settings = {
	.on_message_begin = on_message_begin,
	.on_headers_complete = on_headers_complete,
	.on_body = on_body,
	.on_message_complete = on_message_complete,
};

void bp_http_resp_init(struct bp_http_resp *r, bool head, bp_http_resp_done_fn done,
		       void *arg)
{
	memset(r, 0, sizeof(*r));
	http_parser_init(&r->p, HTTP_RESPONSE);
	r->p.data = r;
	r->head = head;
	r->done = done;
	r->arg = arg;
}

void bp_http_resp_keep_body(struct bp_http_resp *r, char *buf, size_t cap)
{
	r->keep = buf;
	r->keep_cap = buf ? cap : 0;
	r->kept = 0;
}

int bp_http_resp_feed(struct bp_http_resp *r, const char *data, size_t len)
{
	size_t n;

	if (r->closing || !len)
		return 0;
	n = http_parser_execute(&r->p, &settings, data, len);
	if (r->closing)
		return 0;
	if (n != len || HTTP_PARSER_ERRNO(&r->p) != HPE_OK)
		return -EPROTO;
	return 0;
}

int bp_http_resp_eof(struct bp_http_resp *r)
{
	if (r->closing)
		return 0;
	/* A zero-length execute tells the parser the stream ended (it completes a body
	 * that runs until the close, or fails in the middle of anything else). */
	http_parser_execute(&r->p, &settings, NULL, 0);
	if (r->closing)
		return 0;
	return HTTP_PARSER_ERRNO(&r->p) == HPE_OK && !r->in_message ? 0 : -EPIPE;
}

uint64_t bp_http_resp_skippable(const struct bp_http_resp *r)
{
	return r->cl_body ? r->cl_left : 0;
}

void bp_http_resp_skip(struct bp_http_resp *r, size_t n)
{
	if (n > SKIP_MAX)
		n = SKIP_MAX;
	if (n > bp_http_resp_skippable(r))
		n = (size_t)bp_http_resp_skippable(r);
	if (n) {
		char *keep = r->keep;

		r->keep = NULL;  /* what went by unread is not the body's */
		bp_http_resp_feed(r, skipped, n);
		r->keep = keep;
	}
}

const char *bp_http_resp_error(const struct bp_http_resp *r)
{
	return http_errno_description(HTTP_PARSER_ERRNO(&r->p));
}
