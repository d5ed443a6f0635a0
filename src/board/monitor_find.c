#include "board/monitor_find.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board/cpufreq.h"
#include "board/sysfs.h"
#include "board/thermal.h"
#include "board/throttle.h"
#include "core/clock.h"
#include "core/unconst.h"

extern char **environ;

/* Thermal zones list up to a dozen trips; the kernel numbers them from 0 without gaps. */
#define MAX_TRIPS 32

double bp_thermal_passive_c(const char *root, int zone)
{
	double low = NAN;

	for (int k = 0; k < MAX_TRIPS; k++) {
		char type[32];
		int64_t milli;

		if (bp_sysfs_str(root, type, sizeof(type),
				 "/sys/class/thermal/thermal_zone%d/trip_point_%d_type", zone, k) < 0)
			break;
		if (strcmp(type, "passive"))
			continue;
		/* the same sanity range as a zone's temperature (thermal.c) */
		if (bp_sysfs_int(root, &milli, "/sys/class/thermal/thermal_zone%d/trip_point_%d_temp",
				 zone, k) < 0 || milli < -60000 || milli > 200000)
			continue;
		if (isnan(low) || (double)milli / 1000.0 < low)
			low = (double)milli / 1000.0;
	}
	return low;
}

static int find_clocks(struct bp_monitor *m)
{
	m->clock_cpu = calloc((size_t)(m->ncpus ? m->ncpus : 1), sizeof(*m->clock_cpu));
	if (!m->clock_cpu)
		return -ENOMEM;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &m->cpus) && m->nclocks < m->ncpus &&
		    bp_cpufreq_cur_khz(m->sys_root, cpu) != BP_INT_UNKNOWN)
			m->clock_cpu[m->nclocks++] = cpu;
	return 0;
}

int64_t bp_monitor_clock_cap(const struct bp_monitor *m)
{
	int64_t cap = BP_INT_UNKNOWN;

	for (int i = 0; i < m->nclocks; i++) {
		int64_t v;

		if (bp_sysfs_int(m->sys_root, &v,
				 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq",
				 m->clock_cpu[i]) == 0 && v > 0 && v > cap)
			cap = v;
	}
	return cap;
}

static int find_zones(struct bp_monitor *m)
{
	struct bp_thermal_zone *z;
	int n = bp_thermal_read(m->sys_root, &z);

	if (n <= 0)
		return 0;
	m->zones = calloc((size_t)n, sizeof(*m->zones));
	if (!m->zones) {
		free(z);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct bp_monitor_zone *mz = &m->zones[m->nzones];
		double trip;

		/* a zone that cannot be read now will not be readable during the test */
		if (isnan(z[i].temp_c))
			continue;
		mz->zone = z[i].zone;
		bp_strlcpy(mz->type, z[i].type, sizeof(mz->type));
		trip = bp_thermal_passive_c(m->sys_root, z[i].zone);
		mz->limit_is_trip = !isnan(trip);
		mz->limit_c = mz->limit_is_trip ? trip : BP_MONITOR_HOT_C;
		m->nzones++;
	}
	free(z);
	return 0;
}

static int find_policies(struct bp_monitor *m)
{
	char **names;
	int n = bp_sysfs_list(m->sys_root, "policy", &names, "/sys/devices/system/cpu/cpufreq");
	int rc = 0;

	if (n <= 0)
		return 0;
	m->policy = calloc((size_t)n, sizeof(*m->policy));
	m->policy_max_khz = calloc((size_t)n, sizeof(*m->policy_max_khz));
	if (!m->policy || !m->policy_max_khz)
		rc = -ENOMEM;
	for (int i = 0; !rc && i < n; i++) {
		struct bp_cpufreq_policy p;

		/* intel_pstate and some boards keep no stats: nothing to sample there */
		if (bp_cpufreq_policy_read(m->sys_root, names[i], &p) < 0 || !p.n_states)
			continue;
		bp_strlcpy(m->policy[m->npolicies], names[i], sizeof(m->policy[0]));
		m->policy_max_khz[m->npolicies++] = p.max_khz;
	}
	bp_sysfs_names_free(names, n);
	return rc;
}

/* The inode of the TCP socket listening on port (IPv4 or IPv6), 0 when none. */
static uint64_t listen_inode(const char *root, int port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	/* a few lines per socket of 150 bytes: a board's table fits, a server's may not */
	size_t len = 1 << 20;
	char *text = malloc(len);
	uint64_t inode = 0;

	for (size_t i = 0; text && !inode && i < 2; i++)
		if (bp_sysfs_raw(root, text, len, "%s", files[i]) <= 0 ||
		    bp_proc_net_listen_inode(text, port, &inode) < 0)
			inode = 0;
	free(text);
	return inode;
}

/* The process holds socket:[inode] among its descriptors. */
static bool holds_socket(const char *root, const char *pid, uint64_t inode)
{
	char want[48], link[64], **fds;
	int n = bp_sysfs_list(root, "", &fds, "/proc/%s/fd", pid);
	bool found = false;

	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)inode);
	for (int i = 0; !found && i < n; i++)
		found = bp_sysfs_link_name(root, link, sizeof(link), "/proc/%s/fd/%s", pid,
					   fds[i]) == 0 && !strcmp(link, want);
	if (n > 0)
		bp_sysfs_names_free(fds, n);
	return found;
}

/* argv[1] of /proc/PID/cmdline (NUL-separated) is "serve": `boardperf serve ...`. */
static bool is_serve(const char *root, const char *pid)
{
	char cmd[256];
	ssize_t n = bp_sysfs_raw(root, cmd, sizeof(cmd), "/proc/%s/cmdline", pid);
	size_t first;

	if (n <= 0)
		return false;
	first = strnlen(cmd, (size_t)n);
	return first + 1 < (size_t)n && !strcmp(cmd + first + 1, "serve");
}

/*
 * The test's peer on this machine: the `serve` of this program (named self_comm) that holds
 * the socket listening on the test's port. Its CPU is the other end of a loopback test,
 * not other load; any other process (another client, another server) is load.
 */
static int find_peers(struct bp_monitor *m, const char *self_comm, int peer_port)
{
	char **names;
	uint64_t inode = peer_port > 0 && self_comm ? listen_inode(m->proc_root, peer_port) : 0;
	int n = inode ? bp_sysfs_list(m->proc_root, "", &names, "/proc") : 0;
	pid_t self = getpid();
	int rc = 0;

	if (n <= 0)
		return 0;
	for (int i = 0; !rc && i < n; i++) {
		char comm[32], stat[1024];
		int64_t pid;
		uint64_t ticks;
		struct bp_monitor_peer *p;

		if (bp_sysfs_parse_int(names[i], 10, &pid) < 0 || pid <= 0 || pid == self ||
		    pid > INT32_MAX ||
		    bp_sysfs_str(m->proc_root, comm, sizeof(comm), "/proc/%s/comm", names[i]) < 0 ||
		    strcmp(comm, self_comm) || !is_serve(m->proc_root, names[i]) ||
		    !holds_socket(m->proc_root, names[i], inode) ||
		    bp_sysfs_raw(m->proc_root, stat, sizeof(stat), "/proc/%s/stat", names[i]) <= 0 ||
		    bp_proc_pid_stat_ticks(stat, &ticks) < 0)
			continue;
		p = realloc(m->peers, (size_t)(m->npeers + 1) * sizeof(*m->peers));
		if (!p) {
			rc = -ENOMEM;
			break;
		}
		m->peers = p;
		m->peers[m->npeers++] = (struct bp_monitor_peer){ (pid_t)pid, ticks };
	}
	bp_sysfs_names_free(names, n);
	return rc;
}

int bp_monitor_find(struct bp_monitor *m, const char *self_comm, int peer_port)
{
	uint32_t bits;
	int rc = find_clocks(m);

	if (!rc)
		rc = find_zones(m);
	if (!rc)
		rc = find_policies(m);
	if (!rc)
		rc = find_peers(m, self_comm, peer_port);
	m->fw_sysfs = bp_fw_throttled_read(m->sys_root, &bits) == 0;
	m->cap_start_khz = bp_monitor_clock_cap(m);
	m->cap_end_khz = BP_INT_UNKNOWN;
	return rc;
}

char *bp_find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		if (len && len + strlen(name) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
			if (access(buf, X_OK) == 0)
				return strdup(buf);
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* The child's output up to EOF or the deadline; -ETIMEDOUT past it. */
static ssize_t read_until(int fd, char *buf, size_t len, uint64_t deadline_ns)
{
	size_t got = 0;

	while (got + 1 < len) {
		uint64_t now = bp_now_ns();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc;

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)((deadline_ns - now) / 1000000ULL) + 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return rc ? -errno : -ETIMEDOUT;
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

int bp_vcgencmd_throttled(const char *path, uint32_t *bits)
{
	char *argv[] = { bp_unconst(path), bp_unconst("get_throttled"), NULL };
	posix_spawn_file_actions_t fa;
	char out[128];
	int fds[2], rc, status;
	pid_t pid;
	ssize_t n;

	*bits = 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	rc = -posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return rc;
	}
	/* the firmware answers in milliseconds; a hung mailbox must not hang the test */
	n = read_until(fds[0], out, sizeof(out), bp_now_ns() + 2000000000ULL);
	close(fds[0]);
	if (n < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n < 0)
		return (int)n;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	return bp_vcgencmd_throttled_parse(out, bits);
}
