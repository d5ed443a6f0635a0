#include "io/fd_share.h"

#include <sys/resource.h>

/* RLIM_INFINITY and limits beyond any table the kernel would give us: a billion. */
#define LIMIT_MAX (1 << 30)

void bp_fd_share_of(int limit, struct bp_fd_share *s)
{
	if (limit < 1 || limit > LIMIT_MAX)
		limit = LIMIT_MAX;
	s->limit = limit;
	s->floor = limit - limit / BP_FD_RESERVE_DIVISOR;
	s->http_cap = limit / BP_FD_HTTP_DIVISOR > 0 ? limit / BP_FD_HTTP_DIVISOR : 1;
}

void bp_fd_share_now(struct bp_fd_share *s)
{
	struct rlimit rl;

	bp_fd_share_of(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < LIMIT_MAX ?
		       (int)rl.rlim_cur : LIMIT_MAX, s);
}
