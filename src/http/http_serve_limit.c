#include "http/http_serve_limit.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "core/log.h"
#include "io/sock.h"

enum bp_http_budget bp_http_budget_check(uint64_t committed, uint64_t len, uint64_t cap)
{
	/* committed <= cap always (only fitting replies are promised): no overflow below. */
	if (committed > cap || len > cap - committed)
		return BP_HTTP_BUDGET_OVER;
	return len > cap - committed - len ? BP_HTTP_BUDGET_LAST : BP_HTTP_BUDGET_OK;
}

void bp_http_limit_log(struct bp_http_limit_log *l, int fd, const char *fmt, ...)
{
	uint64_t now = bp_now_ns(), next = __atomic_load_n(&l->next_ns, __ATOMIC_RELAXED);
	uint64_t skipped;
	struct bp_addr a = { .len = sizeof(a.ss) };
	char peer[80] = "?", why[200], more[64] = "";
	va_list ap;

	/* One thread wins the second; the others count their line as suppressed. */
	if (now < next || !__atomic_compare_exchange_n(&l->next_ns, &next, now + BP_NS_PER_SEC,
						       false, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&l->suppressed, 1, __ATOMIC_RELAXED);
		return;
	}
	skipped = __atomic_exchange_n(&l->suppressed, 0, __ATOMIC_RELAXED);
	if (!getpeername(fd, (struct sockaddr *)&a.ss, &a.len))
		bp_addr_str(&a, peer, sizeof(peer));
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (skipped)
		snprintf(more, sizeof(more), " (%llu more lines like it since the last)",
			 (unsigned long long)skipped);
	bp_info("http: %s: %s%s", peer, why, more);
}
