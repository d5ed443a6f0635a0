/*
 * Where `export --push URL` sends the figures: a Prometheus Pushgateway's address taken
 * apart, and the path of one group on it. The gateway keeps pushed metrics in groups named
 * by a grouping key, job first, then label pairs, all in the path:
 * BASE/metrics/job/JOB/instance/INSTANCE. A PUT there replaces that group whole, so each
 * board pushes into a group of its own (instance: its host name) and a figure it no longer
 * holds leaves the gateway with its next push. A value with characters a path cannot carry
 * as they are ('/', anything outside RFC 3986's unreserved set) goes as NAME@base64/VALUE,
 * base64url without padding, which the gateway decodes (the section on URLs of its own
 * documentation).
 *
 * The URL may carry user:password@ for a gateway behind HTTP basic authentication (its
 * --web.config.file); messages show the URL without the password.
 */
#ifndef BP_EXPORT_OM_PUSH_URL_H
#define BP_EXPORT_OM_PUSH_URL_H

#include <stddef.h>

#include "http/http_url.h"

#define BP_OM_PUSH_NAME_MAX 255   /* a job or instance name, in bytes */

struct bp_om_push_target {
	struct bp_http_url url;             /* scheme, host, port; target: the group's path */
	char shown[BP_HTTP_URL_MAX + 320];  /* "http://gw:9091/metrics/job/..." (no user:password) */
	char authorization[1024];           /* "Basic ..." or "" */
};

/*
 * Parse "http[s]://[USER[:PASSWORD]@]HOST[:PORT][/PREFIX]" (PREFIX: the gateway's
 * --web.route-prefix) and build the path of the group {job=JOB, instance=INSTANCE}. USER
 * and PASSWORD may be percent-encoded. 0, or -EINVAL with a line naming the value in err
 * (a query, a fragment, an empty or non-UTF-8 job or instance, one too long).
 */
int bp_om_push_target_parse(const char *url, const char *job, const char *instance,
			    struct bp_om_push_target *t, char *err, size_t errlen);

/*
 * One label value as a path segment pair: "NAME/VALUE" when VALUE is unreserved
 * characters only, else "NAME@base64/B64URL". The number of characters it takes (as
 * snprintf: out is cut at len).
 */
size_t bp_om_push_segment(const char *name, const char *value, char *out, size_t len);

#endif
