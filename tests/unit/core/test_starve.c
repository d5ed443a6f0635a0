/*
 * The starvation account: schedstat and /proc/stat parsing against fixture text (real
 * files of this kernel, and damaged ones), the sum over a fixture task tree, the figures
 * between two snapshots, the threshold, and the live account against a bound no scheduler
 * can beat: n threads spinning on c CPUs wait at least (n - c) x the span between them.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/starve.h"
#include "result/result_starve.h"
#include "core/workers.h"
#include "tap.h"

static const char *fixtures;

static char *slurp(const char *name)
{
	static char buf[8192];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/starve/%s", fixtures, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_schedstat_parse(void)
{
	static const struct { const char *text; int rc; } cases[] = {
		{ "3416505 20613062 8\n", 0 },
		{ "3416505 20613062 8", 0 },
		{ "0 0 0\n", 0 },
		{ "3416505 20613062\n", -EINVAL },       /* a field short */
		{ "3416505 20613062 8 9\n", -EINVAL },   /* not the three-field file */
		{ "not a schedstat\n", -EINVAL },
		{ "", -EINVAL },
	};
	struct bp_schedstat s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(bp_schedstat_parse(cases[i].text, &s), cases[i].rc);
	CHECK_INT(bp_schedstat_parse("7304048 201592758 179\n", &s), 0);
	CHECK_INT(s.run_ns, 7304048);
	CHECK_INT(s.wait_ns, 201592758);
	CHECK_INT(s.slices, 179);
}

static void test_proc_stat_parse(void)
{
	struct bp_cpu_ticks j;
	const char *text = slurp("stat.before");

	CHECK(text != NULL);
	CHECK_INT(bp_proc_stat_cpus_parse(text, NULL, &j), 0);
	CHECK_INT(j.user, 494472);
	CHECK_INT(j.idle, 890516);
	CHECK_INT(j.iowait, 25573);
	CHECK_INT(j.softirq, 187478);
	CHECK_INT(j.steal, 981);
	/* Per-CPU lines are not the aggregate, wherever the aggregate stands. */
	CHECK_INT(bp_proc_stat_cpus_parse("cpu0 1 2 3 4 5 6 7 8\ncpu  10 20 30 40 50 60 70 80\n",
					  NULL, &j), 0);
	CHECK_INT(j.user, 10);
	CHECK_INT(j.steal, 80);
	/* Linux 2.4 had user nice system idle only: the rest read as zero. */
	CHECK_INT(bp_proc_stat_cpus_parse("cpu  1 2 3 4\n", NULL, &j), 0);
	CHECK_INT(j.idle, 4);
	CHECK_INT(j.steal, 0);
	CHECK_INT(bp_proc_stat_cpus_parse("cpu0 1 2 3 4\nintr 5\n", NULL, &j), -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("cpu  1 2\n", NULL, &j), -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("", NULL, &j), -EINVAL);
}

static void test_sum_tasks(void)
{
	char dir[512];
	struct bp_schedstat sum;
	int n, skip[] = { 1202 };

	snprintf(dir, sizeof(dir), "%s/starve/task", fixtures);
	/* 1203's schedstat is damaged: left out, the two others summed. */
	CHECK_INT(bp_schedstat_sum_tasks(dir, NULL, 0, &sum, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(sum.run_ns, 3416505ULL + 7304048ULL);
	CHECK_INT(sum.wait_ns, 20613062ULL + 201592758ULL);
	CHECK_INT(sum.slices, 8 + 179);
	CHECK_INT(bp_schedstat_sum_tasks(dir, skip, 1, &sum, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(sum.wait_ns, 20613062);
	snprintf(dir, sizeof(dir), "%s/starve/empty-task", fixtures);
	CHECK_INT(bp_schedstat_sum_tasks(dir, NULL, 0, &sum, &n), -EINVAL);
	CHECK_INT(bp_schedstat_sum_tasks("/nonexistent/task", NULL, 0, &sum, &n), -ENOENT);
	/* This process: at least the main thread (whose own run time can still read 0: the
	 * kernel folds a running task's current slice in only when it is switched or ticks). */
	CHECK_INT(bp_schedstat_sum_tasks("/proc/self/task", NULL, 0, &sum, &n), 0);
	CHECK(n >= 1);
}

static struct bp_starve_snap snap(uint64_t wall_ms, uint64_t wait_ms, uint64_t slices,
				  const char *statfile, long nivcsw)
{
	struct bp_starve_snap s = { .wall_ns = wall_ms * BP_NS_PER_MS, .sched_ok = true,
				    .nivcsw = nivcsw, .nivcsw_ok = true };

	s.sched.wait_ns = wait_ms * BP_NS_PER_MS;
	/* one thread on a CPU all along: the runnable time is the span plus the wait */
	s.sched.run_ns = wall_ms * BP_NS_PER_MS;
	s.sched.slices = slices;
	s.sys_ok = statfile && !bp_proc_stat_cpus_parse(slurp(statfile), NULL, &s.sys);
	return s;
}

static void test_between(void)
{
	struct bp_starve_snap a = snap(1000, 50, 100, "stat.before", 10);
	struct bp_starve_snap b = snap(3000, 450, 2100, "stat.after", 130);
	struct bp_starve_snap c = snap(3000, 450, 2100, "stat.steal", 130);
	struct bp_starve_snap d = snap(3000, 450, 20100, "stat.after", 130);
	struct bp_starve_figures f;

	bp_starve_between(&a, &b, &f);
	CHECK_NEAR(f.span_s, 2.0, 1e-9);
	CHECK_NEAR(f.wait_s, 0.4, 1e-9);
	/* of the 2.4 s runnable (2 s on a CPU, 0.4 s waiting) */
	CHECK_NEAR(f.wait_percent, 0.4 / 2.4 * 100, 1e-9);
	CHECK_NEAR(f.slices, 2000, 1e-9);
	/* 2000 times on a CPU are allowed 20 us each: 0.04 s of the 0.4 s. */
	CHECK_NEAR(f.starved_s, 0.36, 1e-9);
	CHECK_NEAR(f.starved_percent, 0.36 / 2.4 * 100, 1e-9);
	CHECK_INT(f.nivcsw, 120);
	/* stat.before -> stat.after: 173 + 28 = 201 jiffies, none idle, none stolen. */
	CHECK_NEAR(f.idle_percent, 0.0, 1e-9);
	CHECK_NEAR(f.steal_percent, 0.0, 1e-9);
	/* stat.steal: +273 user, +48 system, +20 idle, +20 iowait, +60 steal = 421 jiffies. */
	bp_starve_between(&a, &c, &f);
	CHECK_NEAR(f.steal_percent, 60.0 / 421 * 100, 1e-9);
	CHECK_NEAR(f.idle_percent, 20.0 / 421 * 100, 1e-9);
	CHECK_NEAR(f.iowait_percent, 20.0 / 421 * 100, 1e-9);
	/* 20 us per wake-up (crr's hand-overs): all of it within the allowance. */
	bp_starve_between(&a, &d, &f);
	CHECK_NEAR(f.wait_percent, 0.4 / 2.4 * 100, 1e-9);
	CHECK_NEAR(f.starved_s, 0.0, 1e-12);
	/* An account that shrank (a thread left without its exit call) is unknown, not < 0. */
	bp_starve_between(&b, &a, &f);
	CHECK(isnan(f.wait_s) && isnan(f.starved_percent) && isnan(f.steal_percent));
	CHECK_INT(f.nivcsw, -1);
	a.sched_ok = false;
	a.sys_ok = false;
	bp_starve_between(&a, &b, &f);
	CHECK(isnan(f.wait_percent) && isnan(f.starved_s) && isnan(f.idle_percent));
	/* Late wake-ups: the sums' difference; a sum that shrank is unknown. */
	a.late_ns = 7 * BP_NS_PER_MS;
	a.late_wakes = 2;
	b.late_ns = 157 * BP_NS_PER_MS;
	b.late_wakes = 5;
	bp_starve_between(&a, &b, &f);
	CHECK_NEAR(f.late_s, 0.15, 1e-12);
	CHECK_NEAR(f.late_wakes, 3, 1e-12);
	bp_starve_between(&b, &a, &f);
	CHECK(isnan(f.late_s) && isnan(f.late_wakes));
}

/* bp_starve_note_late counts only what passed the allowance, from any caller. */
static void test_note_late(void)
{
	struct bp_starve_snap a, b;
	struct bp_starve_figures f;

	bp_starve_snap_take(&a);
	bp_starve_note_late(BP_STARVE_LATE_ALLOWANCE_NS);      /* within: not a late wake */
	bp_starve_note_late(BP_STARVE_LATE_ALLOWANCE_NS + 1);  /* 1 ns past it */
	bp_starve_note_late(BP_STARVE_LATE_ALLOWANCE_NS + 300 * BP_NS_PER_MS);
	bp_starve_snap_take(&b);
	bp_starve_between(&a, &b, &f);
	CHECK_INT(b.late_wakes - a.late_wakes, 2);
	CHECK_INT(b.late_ns - a.late_ns, 300 * BP_NS_PER_MS + 1);
	CHECK_NEAR(f.late_wakes, 2, 1e-12);
}

static void test_judge(void)
{
	static const struct {
		double span_s, starved_s, steal;
		bool starved;
	} cases[] = {
		{ 2.0, 0.198, 0, false },   /* 9.9 % */
		{ 2.0, 0.200, 0, true },    /* 10 % */
		{ 2.0, 1.5, 0, true },
		{ 4.0, 3.0, 0, true },
		{ 0.1, 0.019, 0, false },   /* 19 %, but 19 ms: a few late wake-ups */
		{ 0.1, 0.020, 0, true },
		{ 2.0, 0.0, 4.9, false },
		{ 2.0, 0.0, 5.0, true },
		{ 2.0, NAN, NAN, false },   /* nothing known proves nothing */
	};
	/* Late wake-ups alone: 1 % of the span and 20 ms. */
	static const struct {
		double span_s, late_s;
		bool starved;
	} late[] = {
		{ 2.0, 0.019, false }, { 2.0, 0.020, true }, { 10.0, 0.099, false },
		{ 10.0, 0.100, true }, { 0.5, 0.019, false }, { 2.0, NAN, false },
	};
	char msg[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* The raw wait is twice the starved time: only the latter decides. */
		struct bp_starve_figures f = {
			.span_s = cases[i].span_s, .wait_s = 2 * cases[i].starved_s,
			.wait_percent = 200 * cases[i].starved_s / cases[i].span_s,
			.slices = 1000, .starved_s = cases[i].starved_s,
			.starved_percent = cases[i].starved_s / cases[i].span_s * 100,
			.steal_percent = cases[i].steal, .idle_percent = NAN,
			.iowait_percent = NAN, .nivcsw = -1,
		};

		CHECK_INT(bp_starve_judge(&f, msg, sizeof(msg)), cases[i].starved);
		CHECK_INT(bp_starve_judge(&f, NULL, 0), cases[i].starved);
		if (!cases[i].starved)
			CHECK_STR(msg, "");
	}
	for (size_t i = 0; i < sizeof(late) / sizeof(late[0]); i++) {
		struct bp_starve_figures f = {
			.span_s = late[i].span_s, .wait_s = 0, .wait_percent = 0, .slices = 100,
			.starved_s = 0, .starved_percent = 0, .steal_percent = 0,
			.idle_percent = 50, .iowait_percent = NAN, .nivcsw = 3,
			.late_s = late[i].late_s, .late_wakes = 1,
		};

		CHECK_INT(bp_starve_judge(&f, msg, sizeof(msg)), late[i].starved);
		if (late[i].starved && late[i].span_s == 2.0)
			CHECK_STR(msg, "the tester's timed wake-ups came 20 ms late in all (1 of them, beyond "
				  "5 ms each; 1.0 % of a 2.00 s test); the machine was 50 % idle, 3 "
				  "involuntary switches; the figures may read low");
	}
	{
		struct bp_starve_figures f = { .span_s = 1.0, .wait_s = 0.412, .wait_percent = 41.2,
					       .slices = 640, .starved_s = 0.38,
					       .starved_percent = 38, .steal_percent = 7.0,
					       .idle_percent = 3.0, .iowait_percent = 0,
					       .nivcsw = 116 };

		CHECK(bp_starve_judge(&f, msg, sizeof(msg)));
		CHECK_STR(msg, "the tester's threads waited 412 ms for a CPU (41 % of the time they "
			  "were ready to run, in a 1.00 s test; 380 ms beyond what 640 wake-ups "
			  "cost): other load took it; the "
			  "hypervisor took 7 % of this machine's CPU time (steal); the machine was "
			  "3 % idle, 116 involuntary switches; the figures may read low");
		/* A short buffer is cut, never overrun. */
		CHECK(bp_starve_judge(&f, msg, 16));
		CHECK_INT(strlen(msg), 15);
	}
}

static void test_json(void)
{
	struct bp_starve_figures f = { .span_s = 2, .wait_s = 0.123456, .wait_percent = 6.1728,
				       .slices = 300, .starved_s = 0.108456,
				       .starved_percent = 5.4228, .steal_percent = NAN,
				       .idle_percent = 12.345, .iowait_percent = 0, .nivcsw = 42 };
	json_t *o = json_object();

	bp_starve_json_into(o, &f);
	CHECK_NEAR(json_real_value(json_object_get(o, "runqueue_wait_s")), 0.1235, 1e-12);
	CHECK_NEAR(json_real_value(json_object_get(o, "runqueue_wait_percent")), 6.17, 1e-12);
	CHECK_INT(json_integer_value(json_object_get(o, "timeslices_count")), 300);
	CHECK(!json_object_get(o, "starved_s"));
	CHECK_NEAR(json_real_value(json_object_get(o, "starved_percent")), 5.42, 1e-12);
	CHECK_INT(json_integer_value(json_object_get(o, "involuntary_switches_count")), 42);
	CHECK(json_is_null(json_object_get(o, "machine_steal_percent")));
	CHECK_NEAR(json_real_value(json_object_get(o, "machine_idle_percent")), 12.35, 1e-12);
	CHECK(json_is_real(json_object_get(o, "machine_iowait_percent")));
	CHECK_INT(json_integer_value(json_object_get(o, "late_wakeups_count")), 0);
	CHECK_NEAR(json_real_value(json_object_get(o, "late_wakeups_s")), 0, 1e-12);
	json_decref(o);
	f.late_s = 0.31234;
	f.late_wakes = 4;
	o = json_object();
	bp_starve_json_into(o, &f);
	CHECK_INT(json_integer_value(json_object_get(o, "late_wakeups_count")), 4);
	CHECK_NEAR(json_real_value(json_object_get(o, "late_wakeups_s")), 0.3123, 1e-12);
	json_decref(o);
}

/*
 * The warning in a result: only on a result that measured something; with the peer on this
 * machine (-c 127.0.0.1) it says part of the wait was for the peer, with a remote peer not.
 */
static void test_result_warning(void)
{
	static const char *const hosts[] = { "127.0.0.1", "198.18.0.2", "::1" };
	struct bp_starve_figures f = { .span_s = 1.0, .wait_s = 0.5, .wait_percent = 50,
				       .slices = 100, .starved_s = 0.498,
				       .starved_percent = 49.8, .steal_percent = 0,
				       .idle_percent = 0, .iowait_percent = 0, .nivcsw = 7 };

	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct bp_result *r = bp_result_new("tcp");
		const char *msg;

		bp_result_set_params(r, json_pack("{s:s}", "client", hosts[i]));
		CHECK_INT(bp_result_add_starvation(r, &f), 0);
		CHECK_INT(r->nwarnings, 0);  /* nothing measured: nothing to warn of */
		bp_result_add_metric(r, "receiver.bitrate", 1e9, "bit/s", BP_BETTER_HIGHER);
		CHECK_INT(bp_result_add_starvation(r, &f), 0);
		CHECK_INT(r->nwarnings, 1);
		msg = r->nwarnings ? r->warnings[0].message : "";
		CHECK_STR(r->nwarnings ? r->warnings[0].code : "", "tester-cpu-starved");
		CHECK(strstr(msg, "waited 500 ms for a CPU") != NULL);
		CHECK((strstr(msg, "the peer runs on this machine too") != NULL) == (i != 1));
		CHECK_NEAR(json_real_value(json_object_get(json_object_get(r->cpu, "local"),
							   "starved_percent")), 49.8, 1e-12);
		bp_result_free(r);
	}
}

struct spinner {
	pthread_barrier_t *start;
	uint64_t until_ns;
	bool hooked;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;
	volatile uint64_t sink = 0;

	pthread_barrier_wait(s->start);
	while (bp_now_ns() < s->until_ns)
		sink++;
	if (s->hooked)
		bp_starve_thread_exit();
	return NULL;
}

/* Start n spinners behind a barrier, spinning until one common deadline, and join them. */
static double run_spinners(int n, uint64_t spin_ns, struct bp_starve_figures *f)
{
	pthread_t tid[64];
	pthread_barrier_t start;
	struct spinner s = { .start = &start, .hooked = true };
	struct bp_starve_snap s0;

	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	bp_starve_snap_take(&s0);
	for (int i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, spin, &s);
	s.until_ns = bp_now_ns() + spin_ns;
	pthread_barrier_wait(&start);
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	bp_starve_since(&s0, f);
	pthread_barrier_destroy(&start);
	return (double)spin_ns / 1e9;
}

/*
 * Ground truth: n threads runnable for the same span T on c CPUs can run at most c x T
 * between them, so they wait at least (n - c) x T, whatever else the machine does. The
 * threads exit before the second snapshot: their wait is in the account only through
 * bp_starve_thread_exit.
 */
static void test_live_bound(void)
{
	int c = bp_workers_available_cpus(), n = 2 * c > 64 ? 64 : 2 * c;
	struct bp_starve_figures f;
	double t = run_spinners(n, 300 * BP_NS_PER_MS, &f);
	double bound = (n - c) * t;

	printf("# %d spinners on %d CPUs for %.2f s: waited %.3f s (bound %.3f s), %.0f %% of "
	       "the span, starved %.3f s, %.0f times on a CPU, %ld involuntary switches\n", n, c,
	       t, f.wait_s, bound, f.wait_percent, f.starved_s, f.slices, f.nivcsw);
	/* 10 % off the bound: the spinners start and stop a little apart. */
	CHECK(isfinite(f.wait_s) && f.wait_s >= 0.9 * bound);
	/* and no thread can wait longer than the span: a thread counted twice (listed in
	 * /proc/self/task just after its exit call) would pass this. */
	CHECK(f.wait_s <= (n + 1) * f.span_s);
	CHECK(bp_starve_judge(&f, NULL, 0));
	CHECK(f.nivcsw > 0);
}

int main(int argc, char **argv)
{
	fixtures = argc > 1 ? argv[1] : "tests/unit/fixtures";
	test_schedstat_parse();
	test_proc_stat_parse();
	test_sum_tasks();
	test_between();
	test_note_late();
	test_judge();
	test_json();
	test_result_warning();
	test_live_bound();
	return tap_done();
}
