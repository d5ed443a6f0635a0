#include "http/http_request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 tchar: what a method or a header name may contain. */
static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

int bp_http_method_check(const char *method, char *err, size_t errlen)
{
	size_t n = method ? strlen(method) : 0;

	for (size_t i = 0; i < n; i++)
		if (!is_tchar(method[i]) || (method[i] >= 'a' && method[i] <= 'z'))
			n = 0;
	if (n && n <= 32)
		return 0;
	snprintf(err, errlen, "-m '%s': expected an HTTP method such as GET, HEAD or POST",
		 method ? method : "");
	return -EINVAL;
}

int bp_http_header_check(const char *h, char *err, size_t errlen)
{
	const char *colon = strchr(h, ':');
	bool ok = colon && colon > h && !strpbrk(h, "\r\n") && strlen(h) < 8192;

	for (const char *p = h; ok && p < colon; p++)
		ok = is_tchar(*p);
	if (ok)
		return 0;
	snprintf(err, errlen, "-H '%s': expected 'Name: value' (a header name, a colon, "
		 "no line breaks)", h);
	return -EINVAL;
}

/* Whether the user's headers already carry this one (then it is not added). */
static bool has_header(const struct bp_http_request_cfg *cfg, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < cfg->nheaders; i++)
		if (!strncasecmp(cfg->headers[i], name, n) && cfg->headers[i][n] == ':')
			return true;
	return false;
}

/* Append to the growing request; false when out of room (the caller sized it). */
static bool put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n > cap)
		return false;
	memcpy(buf + *len, s, n);
	*len += n;
	return true;
}

static bool put_str(char *buf, size_t cap, size_t *len, const char *s)
{
	return put(buf, cap, len, s, strlen(s));
}

static size_t request_size_bound(const struct bp_http_request_cfg *cfg)
{
	size_t n = strlen(cfg->method) + strlen(cfg->target) + strlen(cfg->host_header) + 128 +
		   cfg->body_len;

	for (int i = 0; i < cfg->nheaders; i++)
		n += strlen(cfg->headers[i]) + 2;
	return n;
}

static bool write_head(const struct bp_http_request_cfg *cfg, char *b, size_t cap, size_t *len)
{
	char cl[48];
	bool ok = put_str(b, cap, len, cfg->method) && put_str(b, cap, len, " ") &&
		  put_str(b, cap, len, cfg->target) && put_str(b, cap, len, " HTTP/1.1\r\n");

	if (ok && !has_header(cfg, "host"))
		ok = put_str(b, cap, len, "Host: ") && put_str(b, cap, len, cfg->host_header) &&
		     put_str(b, cap, len, "\r\n");
	for (int i = 0; ok && i < cfg->nheaders; i++)
		ok = put_str(b, cap, len, cfg->headers[i]) && put_str(b, cap, len, "\r\n");
	if (ok && cfg->close && !has_header(cfg, "connection"))
		ok = put_str(b, cap, len, "Connection: close\r\n");
	if (ok && cfg->body && !has_header(cfg, "content-length")) {
		snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", cfg->body_len);
		ok = put_str(b, cap, len, cl);
	}
	return ok && put_str(b, cap, len, "\r\n") &&
	       (!cfg->body || put(b, cap, len, cfg->body, cfg->body_len));
}

int bp_http_request_build(const struct bp_http_request_cfg *cfg, int copies, char **out,
			  size_t *one_len, char *err, size_t errlen)
{
	size_t cap = request_size_bound(cfg), len = 0;
	char *b;

	*out = NULL;
	if (copies < 1 || cfg->body_len > BP_HTTP_BODY_MAX) {
		snprintf(err, errlen, "request: body above 1 MiB or no copies");
		return -EINVAL;
	}
	b = malloc(cap * (size_t)copies);
	if (!b) {
		snprintf(err, errlen, "request: out of memory");
		return -ENOMEM;
	}
	if (!write_head(cfg, b, cap, &len)) {
		free(b);
		snprintf(err, errlen, "request: too long");
		return -EINVAL;
	}
	for (int i = 1; i < copies; i++)
		memcpy(b + (size_t)i * len, b, len);
	*out = b;
	*one_len = len;
	return 0;
}
