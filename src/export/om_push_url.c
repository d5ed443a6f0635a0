#include "export/om_push_url.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <http_parser.h>
#include <openssl/evp.h>

#include "export/om_text.h"

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decode n bytes of s into out (NUL-terminated); false on a bad escape or no room. */
static bool decode(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			if (i + 2 >= n || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
				return false;
			c = hex(s[i + 1]) * 16 + hex(s[i + 2]);
			i += 2;
		}
		if (!c || o + 1 >= len)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return true;
}

static bool unreserved(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789-._~") == strlen(s);
}

size_t bp_om_push_segment(const char *name, const char *value, char *out, size_t len)
{
	unsigned char b64[4 * ((BP_OM_PUSH_NAME_MAX + 2) / 3) + 1];
	size_t n = strlen(value), o;

	if (unreserved(value) || n > BP_OM_PUSH_NAME_MAX)
		return (size_t)snprintf(out, len, "%s/%s", name, value);
	o = (size_t)EVP_EncodeBlock(b64, (const unsigned char *)value, (int)n);
	/* base64url (RFC 4648 section 5) without padding; an empty value is "=" */
	while (o && b64[o - 1] == '=')
		o--;
	for (size_t i = 0; i < o; i++)
		b64[i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : b64[i];
	b64[o] = '\0';
	return (size_t)snprintf(out, len, "%s@base64/%s", name, o ? (char *)b64 : "=");
}

/* A grouping value: not empty, UTF-8, at most BP_OM_PUSH_NAME_MAX bytes. */
static int check_name(const char *what, const char *v, char *err, size_t errlen)
{
	char clean[BP_OM_PUSH_NAME_MAX + 1], q[300];

	bp_http_url_quote(v, q, sizeof(q));
	if (!*v || strlen(v) > BP_OM_PUSH_NAME_MAX) {
		snprintf(err, errlen, "--%s '%s': expected a name of 1 to %d bytes", what, q,
			 BP_OM_PUSH_NAME_MAX);
		return -EINVAL;
	}
	snprintf(clean, sizeof(clean), "%s", v);
	bp_om_utf8_clean(clean);
	if (strcmp(clean, v)) {
		snprintf(err, errlen, "--%s '%s': expected UTF-8 text", what, q);
		return -EINVAL;
	}
	return 0;
}

/* user[:password] (percent-encoded) as an Authorization header's value. */
static int basic_auth(const char *ui, size_t n, char *out, size_t len)
{
	char user[256], pass[256], pair[520];
	const char *colon = memchr(ui, ':', n);
	size_t un = colon ? (size_t)(colon - ui) : n;
	int pn;

	if (!decode(ui, un, user, sizeof(user)) || strchr(user, ':') ||
	    !decode(colon ? colon + 1 : "", colon ? n - un - 1 : 0, pass, sizeof(pass)))
		return -EINVAL;
	pn = snprintf(pair, sizeof(pair), "%s:%s", user, pass);
	if (pn < 0 || (size_t)pn >= sizeof(pair) || len < 6 + 4 * (((size_t)pn + 2) / 3) + 1)
		return -EINVAL;
	memcpy(out, "Basic ", 6);
	EVP_EncodeBlock((unsigned char *)out + 6, (const unsigned char *)pair, pn);
	return 0;
}

int bp_om_push_target_parse(const char *url, const char *job, const char *instance,
			    struct bp_om_push_target *t, char *err, size_t errlen)
{
	struct http_parser_url p;
	char bare[BP_HTTP_URL_MAX], q[512], base[BP_HTTP_URL_MAX], seg[2][700];
	size_t n = url ? strlen(url) : 0, blen;
	int rc;

	memset(t, 0, sizeof(*t));
	bp_http_url_quote(url ? url : "", q, sizeof(q));
	http_parser_url_init(&p);
	if (!n || n >= sizeof(bare) || http_parser_parse_url(url, n, 0, &p)) {
		snprintf(err, errlen, "--push '%s': expected http[s]://[USER:PASSWORD@]HOST[:PORT]"
			 "[/PREFIX], a Pushgateway's address", q);
		return -EINVAL;
	}
	if (p.field_set & ((1 << UF_QUERY) | (1 << UF_FRAGMENT))) {
		snprintf(err, errlen, "--push '%s': expected no ?query or #fragment (the path "
			 "after the gateway's address is export's own)", q);
		return -EINVAL;
	}
	/* The URL without user:password@, for the parser of URLs and for every message. */
	if (p.field_set & (1 << UF_USERINFO)) {
		size_t off = p.field_data[UF_USERINFO].off, len = p.field_data[UF_USERINFO].len;

		if (basic_auth(url + off, len, t->authorization, sizeof(t->authorization))) {
			snprintf(err, errlen, "--push: the user:password@ of the URL: expected a "
				 "user without ':' and each at most 255 bytes, %% followed by two hex "
				 "digits");
			return -EINVAL;
		}
		snprintf(bare, sizeof(bare), "%.*s%s", (int)off, url, url + off + len + 1);
	} else {
		snprintf(bare, sizeof(bare), "%s", url);
	}
	rc = bp_http_url_parse(bare, &t->url, err, errlen);
	if (rc) {
		bp_http_url_quote(bare, q, sizeof(q));
		snprintf(err, errlen, "--push '%s': expected http[s]://[USER:PASSWORD@]HOST[:PORT]"
			 "[/PREFIX], a Pushgateway's address", q);
		return rc;
	}
	rc = check_name("job", job, err, errlen);
	if (!rc)
		rc = check_name("instance", instance, err, errlen);
	if (rc)
		return rc;
	/* the gateway's route prefix, without its trailing '/' */
	snprintf(base, sizeof(base), "%s", t->url.target);
	blen = strlen(base);
	while (blen && base[blen - 1] == '/')
		base[--blen] = '\0';
	bp_om_push_segment("job", job, seg[0], sizeof(seg[0]));
	bp_om_push_segment("instance", instance, seg[1], sizeof(seg[1]));
	if ((size_t)snprintf(t->url.target, sizeof(t->url.target), "%s/metrics/%s/%s", base,
			     seg[0], seg[1]) >= sizeof(t->url.target)) {
		snprintf(err, errlen, "--push: the URL's path with the group's is longer than "
			 "%d bytes", BP_HTTP_URL_MAX - 1);
		return -EINVAL;
	}
	snprintf(t->shown, sizeof(t->shown), "%s://%s%s", t->url.tls ? "https" : "http",
		 t->url.host_header, t->url.target);
	return 0;
}
