#include "core/starve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"

int bp_schedstat_parse(const char *text, struct bp_schedstat *s)
{
	int used = 0;

	if (sscanf(text, "%" SCNu64 " %" SCNu64 " %" SCNu64 "%n", &s->run_ns, &s->wait_ns,
		   &s->slices, &used) != 3)
		return -EINVAL;
	text += used;
	/* Exactly three numbers: a longer line is not the file this was written for. */
	while (*text == ' ' || *text == '\n')
		text++;
	return *text ? -EINVAL : 0;
}

/* A small text file whole into buf (NUL-terminated); 0 or -errno. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static bool skipped(int tid, const int *skip, size_t nskip)
{
	for (size_t i = 0; i < nskip; i++)
		if (skip[i] == tid)
			return true;
	return false;
}

int bp_schedstat_sum_tasks(const char *taskdir, const int *skip, size_t nskip,
			   struct bp_schedstat *sum, int *ntasks)
{
	DIR *d = opendir(taskdir);
	struct dirent *e;
	char path[512], text[128];

	*sum = (struct bp_schedstat){ 0 };
	*ntasks = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct bp_schedstat s;
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (*end || tid <= 0 || skipped((int)tid, skip, nskip))
			continue;
		snprintf(path, sizeof(path), "%s/%s/schedstat", taskdir, e->d_name);
		/* A thread that ended since readdir is simply no longer there. */
		if (read_small(path, text, sizeof(text)) || bp_schedstat_parse(text, &s))
			continue;
		sum->run_ns += s.run_ns;
		sum->wait_ns += s.wait_ns;
		sum->slices += s.slices;
		(*ntasks)++;
	}
	closedir(d);
	return *ntasks ? 0 : -EINVAL;
}

/*
 * Threads that exited. Their totals are added here by the thread itself; their TIDs are
 * kept for a while because /proc/self/task can still list a thread for a moment after
 * pthread_join returned (the join wakes when the kernel clears the TID, before it removes
 * the task), and counting it there as well would count it twice. A TID leaves the ring
 * when its directory is gone, so that a later thread given the same TID is counted.
 */
#define DEPARTED_MAX 256

static struct {
	pthread_mutex_t lock;
	struct bp_schedstat sum;
	int tids[DEPARTED_MAX];
	size_t next;
} departed = { .lock = PTHREAD_MUTEX_INITIALIZER };

void bp_starve_thread_exit(void)
{
	int tid = (int)syscall(SYS_gettid);
	struct bp_schedstat s;
	char path[64], text[128];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	if (read_small(path, text, sizeof(text)) || bp_schedstat_parse(text, &s))
		return;
	pthread_mutex_lock(&departed.lock);
	departed.sum.run_ns += s.run_ns;
	departed.sum.wait_ns += s.wait_ns;
	departed.sum.slices += s.slices;
	departed.tids[departed.next++ % DEPARTED_MAX] = tid;
	pthread_mutex_unlock(&departed.lock);
}

/* Called with the lock held. */
static void prune_departed(void)
{
	char path[64];

	for (size_t i = 0; i < DEPARTED_MAX; i++) {
		if (!departed.tids[i])
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d", departed.tids[i]);
		if (access(path, F_OK))
			departed.tids[i] = 0;
	}
}

static bool process_sched(struct bp_schedstat *s)
{
	int n;
	bool ok;

	pthread_mutex_lock(&departed.lock);
	ok = !bp_schedstat_sum_tasks("/proc/self/task", departed.tids, DEPARTED_MAX, s, &n);
	if (ok) {
		s->run_ns += departed.sum.run_ns;
		s->wait_ns += departed.sum.wait_ns;
		s->slices += departed.sum.slices;
		prune_departed();
	}
	pthread_mutex_unlock(&departed.lock);
	return ok;
}

/* Process-wide sums: relaxed atomics, read by whoever takes a snapshot. */
static uint64_t late_sum_ns, late_count;

void bp_starve_note_late(uint64_t late_ns)
{
	if (late_ns <= BP_STARVE_LATE_ALLOWANCE_NS)
		return;
	__atomic_add_fetch(&late_sum_ns, late_ns - BP_STARVE_LATE_ALLOWANCE_NS, __ATOMIC_RELAXED);
	__atomic_add_fetch(&late_count, 1, __ATOMIC_RELAXED);
}

void bp_starve_snap_take(struct bp_starve_snap *s)
{
	char text[4096];
	struct rusage ru;

	*s = (struct bp_starve_snap){ .wall_ns = bp_now_ns() };
	s->sched_ok = process_sched(&s->sched);
	/* The aggregate line comes first, well inside 4 KiB. */
	s->sys_ok = !read_small("/proc/stat", text, sizeof(text)) &&
		    !bp_proc_stat_cpus_parse(text, NULL, &s->sys);
	s->nivcsw_ok = !getrusage(RUSAGE_SELF, &ru);
	s->nivcsw = s->nivcsw_ok ? ru.ru_nivcsw : 0;
	s->late_ns = __atomic_load_n(&late_sum_ns, __ATOMIC_RELAXED);
	s->late_wakes = __atomic_load_n(&late_count, __ATOMIC_RELAXED);
}

static uint64_t jiffies_total(const struct bp_cpu_ticks *j)
{
	return j->user + j->nice + j->system + j->idle + j->iowait + j->irq + j->softirq +
	       j->steal;
}

/* Counters only grow; a smaller later value (a wrapped or reset counter) is no figure. */
static double share_percent(uint64_t a, uint64_t b, uint64_t total)
{
	return b >= a && total ? (double)(b - a) / (double)total * 100 : NAN;
}

void bp_starve_between(const struct bp_starve_snap *a, const struct bp_starve_snap *b,
		       struct bp_starve_figures *f)
{
	*f = (struct bp_starve_figures){
		.span_s = b->wall_ns > a->wall_ns ? (double)(b->wall_ns - a->wall_ns) / 1e9 : 0,
		.wait_s = NAN, .wait_percent = NAN, .slices = NAN, .starved_s = NAN,
		.starved_percent = NAN, .steal_percent = NAN, .idle_percent = NAN,
		.iowait_percent = NAN, .nivcsw = -1,
	};
	/* A thread that exited without bp_starve_thread_exit takes its wait with it; the
	 * account can then shrink, and the span's figure is unknown rather than negative. */
	if (a->sched_ok && b->sched_ok && b->sched.wait_ns >= a->sched.wait_ns &&
	    b->sched.slices >= a->sched.slices) {
		/* The threads' runnable time (on a CPU or waiting for one) is the denominator:
		 * over the span, several threads' waits add past 100 %; over this, never. */
		double runnable_s = b->sched.run_ns >= a->sched.run_ns ?
			(double)(b->sched.run_ns - a->sched.run_ns + b->sched.wait_ns -
				 a->sched.wait_ns) / 1e9 : NAN;

		f->wait_s = (double)(b->sched.wait_ns - a->sched.wait_ns) / 1e9;
		f->wait_percent = runnable_s > 0 ? f->wait_s / runnable_s * 100 : NAN;
		f->slices = (double)(b->sched.slices - a->sched.slices);
		f->starved_s = fmax(0, f->wait_s - f->slices * BP_STARVE_WAKE_ALLOWANCE_NS / 1e9);
		f->starved_percent = runnable_s > 0 ? f->starved_s / runnable_s * 100 : NAN;
	}
	if (a->sys_ok && b->sys_ok && jiffies_total(&b->sys) > jiffies_total(&a->sys)) {
		uint64_t total = jiffies_total(&b->sys) - jiffies_total(&a->sys);

		f->steal_percent = share_percent(a->sys.steal, b->sys.steal, total);
		f->idle_percent = share_percent(a->sys.idle, b->sys.idle, total);
		f->iowait_percent = share_percent(a->sys.iowait, b->sys.iowait, total);
	}
	if (a->nivcsw_ok && b->nivcsw_ok && b->nivcsw >= a->nivcsw)
		f->nivcsw = b->nivcsw - a->nivcsw;
	f->late_s = b->late_ns >= a->late_ns ? (double)(b->late_ns - a->late_ns) / 1e9 : NAN;
	f->late_wakes = b->late_wakes >= a->late_wakes ? (double)(b->late_wakes - a->late_wakes) :
							 NAN;
}

void bp_starve_since(const struct bp_starve_snap *s0, struct bp_starve_figures *f)
{
	struct bp_starve_snap s1;

	bp_starve_snap_take(&s1);
	bp_starve_between(s0, &s1, f);
}

static bool wait_starved(const struct bp_starve_figures *f)
{
	return isfinite(f->starved_percent) && f->starved_percent >= BP_STARVE_PERCENT &&
	       f->starved_s * 1e9 >= (double)BP_STARVE_MIN_NS;
}

static bool woke_late(const struct bp_starve_figures *f)
{
	return isfinite(f->late_s) && f->span_s > 0 &&
	       f->late_s >= f->span_s * BP_STARVE_LATE_PERCENT / 100 &&
	       f->late_s * 1e9 >= (double)BP_STARVE_MIN_NS;
}

bool bp_starve_judge(const struct bp_starve_figures *f, char *msg, size_t msglen)
{
	bool waited = wait_starved(f);
	bool stolen = isfinite(f->steal_percent) && f->steal_percent >= BP_STARVE_STEAL_PERCENT;
	bool late = woke_late(f);
	size_t used = 0;

	if (msglen)
		msg[0] = '\0';
	if (!waited && !stolen && !late)
		return false;
	if (waited)
		used += (size_t)snprintf(msg, msglen, "the tester's threads waited %.0f ms for a "
					 "CPU (%.0f %% of the time they were ready to run, in a %.2f s test; "
					 "%.0f ms beyond what %.0f wake-ups cost): other load took it",
					 f->wait_s * 1e3, f->wait_percent, f->span_s, f->starved_s * 1e3,
					 f->slices);
	if (stolen && used < msglen)
		used += (size_t)snprintf(msg + used, msglen - used, "%sthe hypervisor took %.0f %% "
					 "of this machine's CPU time (steal)", used ? "; " : "",
					 f->steal_percent);
	if (late && used < msglen)
		used += (size_t)snprintf(msg + used, msglen - used, "%s timed wake-ups came "
					 "%.0f ms late in all (%.0f of them, beyond %.0f ms each; %.1f %% of "
					 "a %.2f s test)", used ? "; its" : "the tester's", f->late_s * 1e3,
					 f->late_wakes, BP_STARVE_LATE_ALLOWANCE_NS / 1e6,
					 f->late_s / f->span_s * 100, f->span_s);
	if (used < msglen && isfinite(f->idle_percent))
		used += (size_t)snprintf(msg + used, msglen - used, "; the machine was %.0f %% idle",
					 f->idle_percent);
	if (used < msglen && f->nivcsw >= 0)
		used += (size_t)snprintf(msg + used, msglen - used, ", %ld involuntary switches",
					 f->nivcsw);
	if (used < msglen)
		snprintf(msg + used, msglen - used, "; the figures may read low");
	return true;
}

/* Two decimals: more would claim a precision the scheduler's account does not have. */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(round(v * 100) / 100) : json_null();
}

void bp_starve_json_into(json_t *obj, const struct bp_starve_figures *f)
{
	json_object_set_new(obj, "runqueue_wait_s",
			    isfinite(f->wait_s) ? json_real(round(f->wait_s * 1e4) / 1e4) :
						  json_null());
	json_object_set_new(obj, "runqueue_wait_percent", real_or_null(f->wait_percent));
	json_object_set_new(obj, "timeslices_count", isfinite(f->slices) ?
			    json_integer((json_int_t)f->slices) : json_null());
	json_object_set_new(obj, "starved_percent", real_or_null(f->starved_percent));
	json_object_set_new(obj, "involuntary_switches_count",
			    f->nivcsw >= 0 ? json_integer(f->nivcsw) : json_null());
	json_object_set_new(obj, "machine_steal_percent", real_or_null(f->steal_percent));
	json_object_set_new(obj, "machine_idle_percent", real_or_null(f->idle_percent));
	json_object_set_new(obj, "machine_iowait_percent", real_or_null(f->iowait_percent));
	json_object_set_new(obj, "late_wakeups_count", isfinite(f->late_wakes) ?
			    json_integer((json_int_t)f->late_wakes) : json_null());
	json_object_set_new(obj, "late_wakeups_s", isfinite(f->late_s) ?
			    json_real(round(f->late_s * 1e4) / 1e4) : json_null());
}
