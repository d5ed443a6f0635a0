/* CPU accounting: /proc/stat parsing against a known file, and thread time that really grows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cpuacct.h"
#include "tap.h"

static void write_stat(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void test_sys_share(void)
{
	char path[] = "/tmp/bp-stat-XXXXXX";
	int fd = mkstemp(path);
	struct bp_sys_cpu a, b;

	close(fd);
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	write_stat(path, "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\n");
	CHECK_INT(bp_sys_cpu_read(path, &a), 0);
	CHECK_INT(a.busy, 150);
	CHECK_INT(a.total, 1000);
	/* busy 150 -> 400 and total 1000 -> 1310: 250 of 310 jiffies were busy. */
	write_stat(path, "cpu  300 10 80 850 60 5 5 0 0 0\n");
	CHECK_INT(bp_sys_cpu_read(path, &b), 0);
	CHECK_NEAR(bp_sys_cpu_busy_share(&a, &b), 250.0 / 310.0, 1e-12);
	CHECK(isnan(bp_sys_cpu_busy_share(&b, &b)));
	write_stat(path, "garbage\n");
	CHECK(bp_sys_cpu_read(path, &b) < 0);
	unlink(path);
	CHECK(bp_sys_cpu_read("/nonexistent/stat", &b) < 0);
	CHECK_INT(bp_sys_cpu_read("/proc/stat", &b), 0);
	CHECK(b.total > b.busy);
}

static void test_thread_times(void)
{
	struct bp_cpu_times a, b;
	struct bp_cpu_usage u;
	volatile uint64_t sink = 0;
	uint64_t end;
	int rc;

	CHECK_INT(bp_cpu_thread_times(&a), 0);
	/*
	 * Spin until this thread has been given 200 ms of CPU (bounded: 30 s of wall time), and
	 * read the CPU it got rather than its share of the wall clock, which the machine's other
	 * load moves (a 200 ms wall-clock spin got less than 30 % of a core at load average 17
	 * on 2 cores).
	 */
	end = bp_now_ns() + 30 * BP_NS_PER_SEC;
	do {
		for (int i = 0; i < 100000; i++)
			sink += 1;
		rc = bp_cpu_thread_times(&b);
	} while (!rc && b.user_ns + b.sys_ns - a.user_ns - a.sys_ns < 200 * BP_NS_PER_MS &&
		 bp_now_ns() < end);
	CHECK_INT(rc, 0);
	bp_cpu_usage_between(&a, &b, &u);
	CHECK(u.user_s + u.sys_s >= 0.2);
	/* nearly all of it user time: the loop makes no system calls but the clock's */
	CHECK(u.user_s >= 0.15);
	/* a thread never gets more CPU than the wall time it ran */
	CHECK(u.wall_s >= 0.2 && u.busy_share > 0 && u.busy_share <= 1.05);
	json_t *j = bp_cpu_usage_json(&u);

	CHECK(json_is_real(json_object_get(j, "busy_share")));
	CHECK(json_is_real(json_object_get(j, "user_s")));
	json_decref(j);
	CHECK_INT(bp_cpu_process_times(&b), 0);
	(void)sink;
}

/* Two samples that are no span give no figure, never a difference that wrapped. */
static void test_no_span(void)
{
	struct bp_cpu_times a = { .user_ns = 5 * BP_NS_PER_SEC, .sys_ns = BP_NS_PER_SEC,
				  .wall_ns = 10 * BP_NS_PER_SEC, .source = 1 };
	struct bp_cpu_times b = a;
	struct bp_cpu_usage u;

	b.user_ns += BP_NS_PER_SEC / 2;
	b.wall_ns += BP_NS_PER_SEC;
	bp_cpu_usage_between(&a, &b, &u);
	CHECK(fabs(u.busy_share - 0.5) < 1e-9);
	b.source = 2;                 /* the whole process, after reading the threads failed */
	bp_cpu_usage_between(&a, &b, &u);
	CHECK(isnan(u.user_s) && isnan(u.sys_s) && isnan(u.busy_share));
	CHECK(fabs(u.wall_s - 1) < 1e-9);
	b = a;
	b.user_ns -= 1;               /* a later sum below the first */
	b.wall_ns += BP_NS_PER_SEC;
	bp_cpu_usage_between(&a, &b, &u);
	CHECK(isnan(u.busy_share));
}

int main(void)
{
	test_no_span();
	test_sys_share();
	test_thread_times();
	return tap_done();
}
