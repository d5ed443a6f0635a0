/*
 * Fuzz target for the URL parser (bp_http_url_parse, src/http/http_url.c): a URL comes from
 * the command line, a script or a file of URLs, not only from a careful user. Accepted URLs
 * must give a port in 1..65535, a target that starts with '/', terminated fields; refused
 * ones one line of error.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/http_url.h"

static struct bp_http_url u;

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
	free(text);
	return 0;
}
