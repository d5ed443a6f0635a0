/*
 * The URL `boardperf http` loads, taken apart once: scheme (http or https), host, port,
 * the request target (path and query) and the Host header that names it.
 */
#ifndef BP_HTTP_HTTP_URL_H
#define BP_HTTP_HTTP_URL_H

#include <stdbool.h>
#include <stddef.h>

#define BP_HTTP_URL_MAX 2048

struct bp_http_url {
	bool tls;                      /* https:// */
	char host[256];                /* as resolved: no brackets around an IPv6 literal */
	unsigned port;                 /* given, or 80 / 443 */
	char target[BP_HTTP_URL_MAX];  /* "/index.html?x=1"; "/" when the URL has no path */
	char host_header[300];         /* "example.org", "127.0.0.1:8080", "[::1]:8080" */
};

/*
 * Parse "http[s]://HOST[:PORT][/PATH][?QUERY]" (a #fragment is dropped: it never goes on
 * the wire). Returns 0, or -EINVAL with "URL 'x': expected ..." in err.
 */
int bp_http_url_parse(const char *text, struct bp_http_url *u, char *err, size_t errlen);

/*
 * text as an error shows it, into out (NUL-terminated, cut to fit): control bytes as \xNN,
 * so that the message stays one line and a terminal gets no escape sequence from it (found
 * by fuzz_url: a newline).
 */
void bp_http_url_quote(const char *text, char *out, size_t len);

#endif
