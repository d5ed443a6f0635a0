#include "rr/rr_inflight.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

/* Descriptors kept for everything else: the control connection, logs, the workers' loops. */
#define SPARE_FDS 64

size_t bp_rr_inflight_need(double rate, uint64_t timeout_ns, int parallel)
{
	/*
	 * Half as much again as the rate holds in flight if every connection took the whole
	 * timeout: each flow has its share of the cap (rr_client.c), and on a busy tester late
	 * timers and uneven flows filled one flow's share while the whole stood well below it
	 * (ASan on a loaded machine, drops at 2N: 5 waits with 233 of 312 in flight at +10 %).
	 * Less a hair, so that a product that is whole in decimal stays whole in doubles.
	 */
	double n = ceil(rate * (double)timeout_ns / 1e9 * 1.5 - 1e-6) + (parallel > 0 ? parallel : 1);

	return n < 1e9 ? (size_t)n : 1000000000u;
}

/* Descriptors open now (/proc/self/fd), or 0 when that cannot be read. */
static size_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : 0;  /* ".", ".." and the directory's own */
}

int bp_rr_inflight_cap(double rate, uint64_t timeout_ns, int parallel, size_t asked,
		       size_t *cap, char *err, size_t errlen)
{
	size_t want = asked ? asked : bp_rr_inflight_need(rate, timeout_ns, parallel);
	size_t reserve = open_fds() + SPARE_FDS + 2 * (size_t)parallel, avail;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		*cap = want;
		return 0;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want + reserve) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want + reserve ?
			      (rlim_t)(want + reserve) : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
	}
	avail = rl.rlim_cur == RLIM_INFINITY ? want :
		rl.rlim_cur > reserve ? (size_t)(rl.rlim_cur - reserve) : 0;
	if (asked && asked > avail) {
		snprintf(err, errlen, "--max-inflight %zu: only %zu file descriptors are free "
			 "(RLIMIT_NOFILE %llu, ulimit -n); expected at most %zu", asked, avail,
			 (unsigned long long)rl.rlim_cur, avail);
		return -EINVAL;
	}
	if (avail < (size_t)parallel) {
		snprintf(err, errlen, "-P %d with --rate: only %zu file descriptors are free "
			 "(RLIMIT_NOFILE %llu, ulimit -n); each flow needs one at least", parallel,
			 avail, (unsigned long long)rl.rlim_cur);
		return -EINVAL;
	}
	*cap = want < avail ? want : avail;
	if (*cap < (size_t)parallel)
		*cap = (size_t)parallel;
	return 0;
}
