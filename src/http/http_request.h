/*
 * The request `boardperf http` sends, built once before the run: every request of a test
 * is the same bytes, so the hot path only ever copies a prepared buffer into a socket.
 */
#ifndef BP_HTTP_HTTP_REQUEST_H
#define BP_HTTP_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/* Request bodies (--body) up to this size: a load tool sends forms and API calls, not uploads. */
#define BP_HTTP_BODY_MAX (1 << 20)

struct bp_http_request_cfg {
	const char *method;            /* "GET", "HEAD", "POST", ... */
	const char *target;            /* "/index.html?x=1" */
	const char *host_header;       /* the Host header's value unless headers carry one */
	const char *const *headers;    /* "Name: value", nheaders of them */
	int nheaders;
	const char *body;              /* may be NULL */
	size_t body_len;
	bool close;                    /* ask the server to close after the answer */
};

/*
 * A method is an HTTP token in upper case ("GET", "PURGE"); a header is "Name: value" with
 * a token name and no CR or LF. Each returns 0 or -EINVAL with a one-line message naming
 * the flag and the value.
 */
int bp_http_method_check(const char *method, char *err, size_t errlen);
int bp_http_header_check(const char *header, char *err, size_t errlen);

/*
 * The request bytes, repeated copies times back to back (pipelined requests are written in
 * one call). *out is malloc'ed; *one_len is the length of one request. 0 or -ENOMEM/-EINVAL.
 */
int bp_http_request_build(const struct bp_http_request_cfg *cfg, int copies, char **out,
			  size_t *one_len, char *err, size_t errlen);

#endif
