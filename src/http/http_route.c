#include "http/http_route.h"

#include <string.h>

bool bp_http_route_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int shift = 0;

	/* Digits first, at most ten of them: 2^30 has ten, and no overflow is possible. */
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return false;
	if (i < len) {
		switch (s[i++]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return false;
		}
	}
	if (i != len || v > (BP_HTTP_ROUTE_MAX_SIZE >> shift))
		return false;
	*out = v << shift;
	return true;
}

/* The path after prefix, when the target starts with it. */
static bool after(const char *path, size_t len, const char *prefix, const char **rest,
		  size_t *rlen)
{
	size_t n = strlen(prefix);

	if (len < n || memcmp(path, prefix, n))
		return false;
	*rest = path + n;
	*rlen = len - n;
	return true;
}

static bool status_code(const char *s, size_t len, unsigned *out)
{
	uint64_t v;

	if (len != 3 || !bp_http_route_size(s, len, &v) || v < 200 || v > 599)
		return false;
	*out = (unsigned)v;
	return true;
}

void bp_http_route_of(const char *target, size_t len, struct bp_http_route *r)
{
	static const struct { const char *prefix; enum bp_http_route_kind kind; } sized[] = {
		{ "/chunked/", BP_HTTP_ROUTE_CHUNKED }, { "/close/", BP_HTTP_ROUTE_CLOSE },
		{ "/eof/", BP_HTTP_ROUTE_EOF }, { "/close-mid/", BP_HTTP_ROUTE_CLOSE_MID },
	};
	const void *q = memchr(target, '?', len);
	const char *rest, *slash;
	size_t rlen;

	*r = (struct bp_http_route){ .kind = BP_HTTP_ROUTE_NOT_FOUND, .status = 404 };
	if (q)
		len = (size_t)((const char *)q - target);
	/* Absolute form (what a proxy is sent): the path starts after the authority. */
	if ((after(target, len, "http://", &rest, &rlen) ||
	     after(target, len, "https://", &rest, &rlen)) &&
	    (slash = memchr(rest, '/', rlen))) {
		len -= (size_t)(slash - target);
		target = slash;
	}
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++)
		if (after(target, len, sized[i].prefix, &rest, &rlen)) {
			if (bp_http_route_size(rest, rlen, &r->size))
				*r = (struct bp_http_route){ sized[i].kind, 200, r->size };
			return;
		}
	if (after(target, len, "/status/", &rest, &rlen)) {
		if (status_code(rest, rlen, &r->status))
			r->kind = BP_HTTP_ROUTE_STATUS;
		else
			r->status = 404;
		return;
	}
	if (after(target, len, "/", &rest, &rlen) && bp_http_route_size(rest, rlen, &r->size))
		*r = (struct bp_http_route){ BP_HTTP_ROUTE_BODY, 200, r->size };
}
