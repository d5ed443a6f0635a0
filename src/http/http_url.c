#include "http/http_url.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#define EXPECTED "expected http://HOST[:PORT][/PATH] or https://..."

static bool field(const struct http_parser_url *p, int f)
{
	return p->field_set & (1 << f);
}

/* Copy field f of text into buf (NUL-terminated); false when it does not fit. */
static bool copy_field(const char *text, const struct http_parser_url *p, int f, char *buf,
		       size_t len)
{
	size_t n = p->field_data[f].len;

	if (n >= len)
		return false;
	memcpy(buf, text + p->field_data[f].off, n);
	buf[n] = '\0';
	return true;
}

void bp_http_url_quote(const char *text, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *c = (const unsigned char *)text; *c && o + 5 < len; c++) {
		if (*c < 0x20 || *c == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *c);
		else
			out[o++] = (char)*c;
	}
	out[o] = '\0';
}

static int fail(const char *text, const char *why, char *err, size_t errlen)
{
	char url[512];

	bp_http_url_quote(text, url, sizeof(url));
	snprintf(err, errlen, "URL '%s': %s", url, why);
	return -EINVAL;
}

/* The target: path and query as written (the parser already checked their characters). */
static int fill_target(const char *text, const struct http_parser_url *p,
		       struct bp_http_url *u, char *err, size_t errlen)
{
	size_t start, end;

	if (!field(p, UF_PATH) && !field(p, UF_QUERY)) {
		snprintf(u->target, sizeof(u->target), "/");
		return 0;
	}
	start = field(p, UF_PATH) ? p->field_data[UF_PATH].off : p->field_data[UF_QUERY].off - 1;
	end = field(p, UF_QUERY) ? (size_t)p->field_data[UF_QUERY].off +
				   p->field_data[UF_QUERY].len :
				   (size_t)p->field_data[UF_PATH].off + p->field_data[UF_PATH].len;
	if (end - start + 2 > sizeof(u->target))
		return fail(text, "path too long (at most 2,000 bytes)", err, errlen);
	/* "http://h?x" has a query but no path: the target still starts with '/'. */
	snprintf(u->target, sizeof(u->target), "%s%.*s", field(p, UF_PATH) ? "" : "/",
		 (int)(end - start), text + start);
	return 0;
}

int bp_http_url_parse(const char *text, struct bp_http_url *u, char *err, size_t errlen)
{
	struct http_parser_url p;
	char scheme[8];
	bool v6;

	memset(u, 0, sizeof(*u));
	http_parser_url_init(&p);
	if (!text || !*text || strlen(text) >= BP_HTTP_URL_MAX ||
	    http_parser_parse_url(text, strlen(text), 0, &p) || !field(&p, UF_SCHEMA) ||
	    !field(&p, UF_HOST))
		return fail(text ? text : "", EXPECTED, err, errlen);
	if (!copy_field(text, &p, UF_SCHEMA, scheme, sizeof(scheme)) ||
	    (strcasecmp(scheme, "http") && strcasecmp(scheme, "https")))
		return fail(text, "the scheme must be http or https", err, errlen);
	if (field(&p, UF_USERINFO))
		return fail(text, "user:password@ is not supported; send an Authorization header "
			    "with -H", err, errlen);
	u->tls = !strcasecmp(scheme, "https");
	if (!copy_field(text, &p, UF_HOST, u->host, sizeof(u->host)) || !u->host[0])
		return fail(text, "host name too long", err, errlen);
	if (field(&p, UF_PORT) && p.port == 0)
		return fail(text, "port 0: expected 1 to 65535", err, errlen);
	u->port = field(&p, UF_PORT) ? p.port : u->tls ? 443 : 80;
	v6 = strchr(u->host, ':') != NULL;
	/* The Host header names the port only when it is not the scheme's own. */
	if (u->port == (u->tls ? 443u : 80u))
		snprintf(u->host_header, sizeof(u->host_header), v6 ? "[%s]" : "%s", u->host);
	else
		snprintf(u->host_header, sizeof(u->host_header), v6 ? "[%s]:%u" : "%s:%u",
			 u->host, u->port);
	return fill_target(text, &p, u, err, errlen);
}
