/*
 * Why a test could not measure, as the result carries it: the error's stable code and
 * its message. The code is what a script branches on, so it is a short word per kind of
 * failure a person would act on differently (start the server, free space, try later),
 * not the errno's name: EPIPE and ECONNRESET are both "the peer went away".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/result.h"

const char *bp_error_code(int rc)
{
	switch (rc < 0 ? -rc : rc) {
	case ECONNREFUSED:
		return "connect-refused";
	case EREMOTEIO:  /* the peer answered and said no (proto/ctl_client.c) */
		return "server-refused";
	case ETIMEDOUT:
		return "timeout";
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENETDOWN:
	case EHOSTDOWN:
	case EADDRNOTAVAIL:
		return "unreachable";
	case ECONNRESET:
	case EPIPE:
	case ECONNABORTED:
	case ENOTCONN:
		return "peer-gone";
	case ENOSPC:
	case EDQUOT:
		return "no-space";
	case EACCES:
	case EPERM:
		return "permission";
	case ENOENT:  /* also a host name that resolves to nothing (io/sock.c) */
		return "not-found";
	case EINTR:
		return "interrupted";
	case EPROTO:
	case EBADMSG:
	case EMSGSIZE:
		return "protocol";
	case ENOMEM:
		return "out-of-memory";
	case EIO:
		return "io-error";
	case EADDRINUSE:
		return "address-in-use";
	case EROFS:
		return "read-only";
	case EINVAL:
		return "invalid";
	default:
		return "failed";
	}
}

int bp_result_set_error(struct bp_result *r, const char *code, const char *fmt, ...)
{
	char *c = NULL, *m = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (n >= 0)
		c = strdup(code);
	free(r->error.code);
	free(r->error.message);
	r->error.code = NULL;
	r->error.message = NULL;
	if (n < 0 || !c) {
		free(n < 0 ? NULL : m);
		return -ENOMEM;
	}
	r->error.code = c;
	r->error.message = m;
	return 0;
}

bool bp_result_measured(const struct bp_result *r)
{
	return r->nmetrics || r->nlatency || r->nintervals || r->nchildren;
}
