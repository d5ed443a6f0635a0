/*
 * One push to a Prometheus Pushgateway: an HTTP/1.1 PUT of a body in the text format 0.0.4
 * to a group's path (om_push_url.h), over TCP or TLS, the whole exchange (connect, TLS,
 * request, answer) within a deadline. The gateway answers 200 (or 202 when it skips its
 * consistency check); a refusal's reason is in its body (a 400 names the inconsistent
 * metric), which the error quotes.
 */
#ifndef BP_EXPORT_OM_PUSH_H
#define BP_EXPORT_OM_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/om_push_url.h"

struct bp_om_push_opts {
	uint64_t timeout_ns;   /* the whole exchange */
	bool insecure;         /* https: the certificate is not checked */
	const char *cacert;    /* https: trust this PEM file instead of the system's store */
};

/*
 * PUT body (len bytes) to t. 0 with *status the gateway's 2xx, or a negative errno with a
 * line in err naming the URL: -ETIMEDOUT, a connect's or TLS's failure, -EPROTO for an
 * answer that is not HTTP, -EACCES for a status that is not 2xx (*status set, the
 * body's first 300 bytes quoted on one line).
 */
int bp_om_push_put(const struct bp_om_push_target *t, const struct bp_om_push_opts *o,
		   const char *body, size_t len, unsigned *status, char *err, size_t errlen);

#endif
