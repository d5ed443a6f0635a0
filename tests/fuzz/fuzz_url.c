/*
 * Fuzz target for the URL parsers (bp_http_url_parse, src/http/http_url.c, and export
 * --push's, src/export/om_push_url.c, which takes user:password@ apart first): a URL comes
 * from the command line, a script or a file of URLs, not only from a careful user. Accepted
 * URLs must give a port in 1..65535, a target that starts with '/', terminated fields (a
 * push's target ends in the group's path, its basic authentication is "Basic " and
 * base64); refused ones one line of error.
 */
#include <stdlib.h>
#include <string.h>

#include "export/om_push_url.h"
#include "fuzz.h"
#include "http/http_url.h"

static struct bp_http_url u;
static struct bp_om_push_target t;

static void check_push(const char *text)
{
	static const char group[] = "/metrics/job/boardperf/instance@base64/Yi9j";
	char err[512];
	size_t tl;

	if (bp_om_push_target_parse(text, "boardperf", "b/c", &t, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return;
	}
	tl = strnlen(t.url.target, sizeof(t.url.target));
	if (tl == sizeof(t.url.target) || t.url.target[0] != '/' || tl < sizeof(group) - 1 ||
	    strcmp(t.url.target + tl - (sizeof(group) - 1), group) ||
	    !memchr(t.shown, 0, sizeof(t.shown)) ||
	    !memchr(t.authorization, 0, sizeof(t.authorization)) ||
	    (t.authorization[0] && strncmp(t.authorization, "Basic ", 6)) ||
	    strspn(t.authorization + (t.authorization[0] ? 6 : 0),
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") !=
	    strlen(t.authorization + (t.authorization[0] ? 6 : 0)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (bp_http_url_parse(text, &u, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
	} else if (u.port < 1 || u.port > 65535 || u.target[0] != '/' ||
		   !memchr(u.host, 0, sizeof(u.host)) || !memchr(u.target, 0, sizeof(u.target)) ||
		   !memchr(u.host_header, 0, sizeof(u.host_header)) || !u.host[0]) {
		abort();
	}
	check_push(text);
	free(text);
	return 0;
}
