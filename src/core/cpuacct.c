#include "core/cpuacct.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include "core/clock.h"

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * BP_NS_PER_SEC + (uint64_t)tv->tv_usec * BP_NS_PER_US;
}

static int rusage_times(int who, struct bp_cpu_times *t)
{
	struct rusage ru;

	*t = (struct bp_cpu_times){ 0 };
	if (getrusage(who, &ru))
		return -errno;
	t->user_ns = timeval_ns(&ru.ru_utime);
	t->sys_ns = timeval_ns(&ru.ru_stime);
	t->wall_ns = bp_now_ns();
	return 0;
}

int bp_cpu_thread_times(struct bp_cpu_times *t)
{
	return rusage_times(RUSAGE_THREAD, t);
}

int bp_cpu_process_times(struct bp_cpu_times *t)
{
	return rusage_times(RUSAGE_SELF, t);
}

void bp_cpu_usage_between(const struct bp_cpu_times *a, const struct bp_cpu_times *b,
			  struct bp_cpu_usage *u)
{
	u->wall_s = (double)(b->wall_ns - a->wall_ns) / 1e9;
	/*
	 * Two samples of different sources (a side's threads, then the whole process after
	 * reading the threads failed), or a later one below the first, measure no span: the
	 * difference would be another thing's CPU, or wrap to 2^64 nanoseconds.
	 */
	if (a->source != b->source || b->user_ns < a->user_ns || b->sys_ns < a->sys_ns) {
		u->user_s = u->sys_s = u->busy_share = NAN;
		return;
	}
	u->user_s = (double)(b->user_ns - a->user_ns) / 1e9;
	u->sys_s = (double)(b->sys_ns - a->sys_ns) / 1e9;
	u->busy_share = u->wall_s > 0 ? (u->user_s + u->sys_s) / u->wall_s : NAN;
}

int bp_sys_cpu_read(const char *path, struct bp_sys_cpu *s)
{
	uint64_t v[8] = { 0 };
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -errno;
	/* user nice system idle iowait irq softirq steal; guest time is already in user. */
	n = fscanf(f, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -EINVAL;
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->total = s->busy + v[3] + v[4];
	return 0;
}

double bp_sys_cpu_busy_share(const struct bp_sys_cpu *a, const struct bp_sys_cpu *b)
{
	if (b->total <= a->total)
		return NAN;
	return (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

json_t *bp_cpu_usage_json(const struct bp_cpu_usage *u)
{
	return json_pack("{s:f, s:f, s:f, s:o}", "user_s", u->user_s, "system_s", u->sys_s,
			 "wall_s", u->wall_s, "busy_share",
			 isfinite(u->busy_share) ? json_real(u->busy_share) : json_null());
}

json_t *bp_cpu_local_since(const struct bp_cpu_times *c0, const struct bp_sys_cpu *s0)
{
	struct bp_cpu_times c1;
	struct bp_cpu_usage u;
	struct bp_sys_cpu s1;
	json_t *local;

	if (bp_cpu_process_times(&c1))
		return NULL;
	bp_cpu_usage_between(c0, &c1, &u);
	local = bp_cpu_usage_json(&u);
	if (local && s0 && !bp_sys_cpu_read("/proc/stat", &s1)) {
		double m = bp_sys_cpu_busy_share(s0, &s1);

		json_object_set_new(local, "machine_busy_share",
				    isfinite(m) ? json_real(m) : json_null());
	}
	return local ? json_pack("{s:o}", "local", local) : NULL;
}
