#include "board/monitor.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "board/cpufreq.h"
#include "board/monitor_find.h"
#include "board/sysfs.h"
#include "board/thermal.h"
#include "board/throttle.h"
#include "core/clock.h"
#include "core/starve.h"

/* The thread's name (15 characters at most): its CPU is not the test's side (side_cpu.h). */
#define THREAD_NAME "bp-monitor"

static int grow(struct bp_monitor *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct bp_monitor_sample *s;
	int64_t *khz;
	double *temp;

	if (m->n < m->cap)
		return 0;
	s = realloc(m->samples, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->samples = s;
	khz = realloc(m->khz, cap * (size_t)(m->nclocks ? m->nclocks : 1) * sizeof(*khz));
	if (!khz)
		return -ENOMEM;
	m->khz = khz;
	temp = realloc(m->temp_c, cap * (size_t)(m->nzones ? m->nzones : 1) * sizeof(*temp));
	if (!temp)
		return -ENOMEM;
	m->temp_c = temp;
	m->cap = cap;
	return 0;
}

/* This process's user + system seconds (every thread, those that ended included). */
static double self_cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return NAN;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double peers_cpu_s(struct bp_monitor *m)
{
	uint64_t sum = 0;

	for (int i = 0; i < m->npeers; i++) {
		char stat[1024];
		uint64_t ticks;

		if (bp_sysfs_raw(m->proc_root, stat, sizeof(stat), "/proc/%d/stat",
				 (int)m->peers[i].pid) > 0 &&
		    bp_proc_pid_stat_ticks(stat, &ticks) == 0 && ticks >= m->peers[i].ticks)
			m->peers[i].ticks = ticks;
		sum += m->peers[i].ticks;
	}
	return (double)sum / (double)m->hz;
}

static void sample_tis(const struct bp_monitor *m, struct bp_monitor_sample *s)
{
	s->tis_ok = m->npolicies > 0;
	for (int i = 0; i < m->npolicies; i++) {
		struct bp_cpufreq_policy p;
		char text[4096];

		if (bp_sysfs_raw(m->sys_root, text, sizeof(text),
				 "/sys/devices/system/cpu/cpufreq/%s/stats/time_in_state",
				 m->policy[i]) <= 0 || bp_time_in_state_parse(text, &p) < 0) {
			s->tis_ok = false;
			return;
		}
		for (int k = 0; k < p.n_states; k++) {
			s->tis_total_ms += p.states[k].time_ms;
			if (p.states[k].khz < m->policy_max_khz[i])
				s->tis_below_ms += p.states[k].time_ms;
		}
	}
}

int bp_monitor_sample(struct bp_monitor *m)
{
	struct bp_monitor_sample *s;
	int64_t *khz;
	double *temp;
	char stat[16384];

	if (grow(m))
		return -ENOMEM;
	s = &m->samples[m->n];
	khz = m->khz + m->n * (size_t)m->nclocks;
	temp = m->temp_c + m->n * (size_t)m->nzones;
	memset(s, 0, sizeof(*s));
	s->t_ns = bp_now_ns() - m->t0_ns;
	/* the counters first and own time right after: the pair is what the share compares */
	s->ticks_ok = bp_sysfs_raw(m->proc_root, stat, sizeof(stat), "/proc/stat") > 0 &&
		      bp_proc_stat_cpus_parse(stat, &m->cpus, &s->ticks) == 0;
	s->own_s = self_cpu_s() + peers_cpu_s(m);
	for (int i = 0; i < m->nclocks; i++)
		khz[i] = bp_cpufreq_cur_khz(m->sys_root, m->clock_cpu[i]);
	for (int i = 0; i < m->nzones; i++)
		temp[i] = bp_thermal_temp_c(m->sys_root, m->zones[i].zone);
	if (m->fw_sysfs)
		s->fw_ok = bp_fw_throttled_read(m->sys_root, &s->fw_bits) == 0;
	sample_tis(m, s);
	/* read as it comes, so that a burst does not overrun the kernel's ring before the end */
	if (m->kmsg)
		bp_kmsg_drain(m->kmsg);
	m->n++;
	return 0;
}

const int64_t *bp_monitor_sample_khz(const struct bp_monitor *m, size_t i)
{
	return m->khz + i * (size_t)m->nclocks;
}

const double *bp_monitor_sample_temp(const struct bp_monitor *m, size_t i)
{
	return m->temp_c + i * (size_t)m->nzones;
}

static char *dup_root(const char *root)
{
	return strdup(root && *root ? root : "/");
}

struct bp_monitor *bp_monitor_new(const struct bp_monitor_cfg *cfg)
{
	struct bp_monitor *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->sys_root = dup_root(cfg->sys_root);
	m->proc_root = dup_root(cfg->proc_root);
	m->period_ns = cfg->period_ns ? cfg->period_ns : BP_MONITOR_DEFAULT_PERIOD_NS;
	if (m->period_ns < BP_MONITOR_MIN_PERIOD_NS)
		m->period_ns = BP_MONITOR_MIN_PERIOD_NS;
	m->hz = sysconf(_SC_CLK_TCK);
	if (m->hz <= 0)
		m->hz = 100;  /* USER_HZ on every Linux architecture */
	if (cfg->cpus)
		m->cpus = *cfg->cpus;
	else if (sched_getaffinity(0, sizeof(m->cpus), &m->cpus) < 0)
		CPU_ZERO(&m->cpus);
	m->ncpus = CPU_COUNT(&m->cpus);
	pthread_mutex_init(&m->mu, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&m->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (!m->sys_root || !m->proc_root || bp_monitor_find(m, cfg->self_comm, cfg->peer_port)) {
		bp_monitor_free(m);
		return NULL;
	}
	if (cfg->vcgencmd && !m->fw_sysfs) {
		m->vcgencmd = bp_find_in_path("vcgencmd");
		m->vc_start_ok = m->vcgencmd && bp_vcgencmd_throttled(m->vcgencmd, &m->vc_start) == 0;
	}
	m->t0_ns = bp_now_ns();
	if (bp_monitor_sample(m)) {
		bp_monitor_free(m);
		return NULL;
	}
	return m;
}

static struct timespec abs_time(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ULL),
				  .tv_nsec = (long)(ns % 1000000000ULL) };
}

/*
 * Due times are t0 + k x period, not "period after the last sample": a late wake-up does
 * not push every later sample back, so samples stay in step with the test's intervals.
 */
static void *monitor_main(void *arg)
{
	struct bp_monitor *m = arg;
	uint64_t k = 1;

	pthread_setname_np(pthread_self(), THREAD_NAME);
	pthread_mutex_lock(&m->mu);
	while (!m->stop) {
		struct timespec due = abs_time(m->t0_ns + k * m->period_ns);

		if (pthread_cond_timedwait(&m->cv, &m->mu, &due) != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&m->mu);
		bp_monitor_sample(m);
		/* a whole period missed (a stopped process, a starved board): skip, not catch up */
		while (m->t0_ns + k * m->period_ns <= bp_now_ns())
			k++;
		pthread_mutex_lock(&m->mu);
	}
	pthread_mutex_unlock(&m->mu);
	bp_starve_thread_exit();
	return NULL;
}

int bp_monitor_start(struct bp_monitor *m)
{
	sigset_t all, old;
	int rc;

	/* signals are the test's: SIGINT must interrupt its waits, not the monitor's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&m->thread, NULL, monitor_main, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	m->running = rc == 0;
	return rc;
}

static void join_thread(struct bp_monitor *m)
{
	if (!m->running)
		return;
	pthread_mutex_lock(&m->mu);
	m->stop = true;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->thread, NULL);
	m->running = false;
}

void bp_monitor_stop(struct bp_monitor *m)
{
	if (!m || m->stopped)
		return;
	join_thread(m);
	m->stopped = true;
	bp_monitor_sample(m);
	m->cap_end_khz = bp_monitor_clock_cap(m);
	if (m->vcgencmd)
		m->vc_end_ok = bp_vcgencmd_throttled(m->vcgencmd, &m->vc_end) == 0;
}

void bp_monitor_free(struct bp_monitor *m)
{
	if (!m)
		return;
	join_thread(m);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	if (m->kmsg)
		bp_kmsg_close(m->kmsg);
	free(m->kmsg);
	free(m->sys_root);
	free(m->proc_root);
	free(m->clock_cpu);
	free(m->zones);
	free(m->policy);
	free(m->policy_max_khz);
	free(m->peers);
	free(m->vcgencmd);
	free(m->samples);
	free(m->khz);
	free(m->temp_c);
	free(m);
}
