#include "http/http_serve_limit.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "core/log_limit.h"
#include "io/sock.h"

enum bp_http_budget bp_http_budget_check(uint64_t committed, uint64_t len, uint64_t cap)
{
	/* committed <= cap always (only fitting replies are promised): no overflow below. */
	if (committed > cap || len > cap - committed)
		return BP_HTTP_BUDGET_OVER;
	return len > cap - committed - len ? BP_HTTP_BUDGET_LAST : BP_HTTP_BUDGET_OK;
}

void bp_http_limit_log(int fd, const char *fmt, ...)
{
	struct bp_addr a = { .len = sizeof(a.ss) };
	char peer[80] = "?", why[200];
	va_list ap;

	if (!getpeername(fd, (struct sockaddr *)&a.ss, &a.len))
		bp_addr_str(&a, peer, sizeof(peer));
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	bp_info_peer(peer, "http: %s: %s", peer, why);
}
