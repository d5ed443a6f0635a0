#include "core/side_cpu.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/clock.h"

/* The first line of path, without its newline; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

/* utime and stime (fields 14 and 15) of a stat line; the name in field 2 may hold blanks. */
static int stat_ticks(const char *line, uint64_t *utime, uint64_t *stime)
{
	const char *p = strrchr(line, ')');

	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %" SCNu64 " %" SCNu64,
			 utime, stime) != 2)
		return -EINVAL;
	return 0;
}

int bp_cpu_side_times_at(const char *task_dir, const char *name, long ticks_per_sec,
			 struct bp_cpu_times *t)
{
	uint64_t ut = 0, st = 0;
	DIR *d = opendir(task_dir);
	struct dirent *e;

	if (!d)
		return -errno;
	if (ticks_per_sec <= 0) {
		closedir(d);
		return -EINVAL;
	}
	while ((e = readdir(d))) {
		char path[512], line[1024];
		uint64_t u, s;

		if (e->d_name[0] == '.')
			continue;
		int rc;

		snprintf(path, sizeof(path), "%s/%s/comm", task_dir, e->d_name);
		/*
		 * A thread that ended since the listing has no files left: not of this span. Any
		 * other failure (out of descriptors: a server under a flood) would leave threads
		 * out of the sum, and a sum smaller than the one before it: no figure then.
		 */
		rc = read_line(path, line, sizeof(line));
		if (rc == -ENOENT || rc == -ESRCH || (!rc && strcmp(line, name)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", task_dir, e->d_name);
		if (!rc)
			rc = read_line(path, line, sizeof(line));
		if (rc == -ENOENT || rc == -ESRCH)
			continue;
		if (rc || stat_ticks(line, &u, &s)) {
			closedir(d);
			return rc ? rc : -EINVAL;
		}
		ut += u;
		st += s;
	}
	closedir(d);
	t->user_ns = ut * BP_NS_PER_SEC / (uint64_t)ticks_per_sec;
	t->sys_ns = st * BP_NS_PER_SEC / (uint64_t)ticks_per_sec;
	t->wall_ns = bp_now_ns();
	t->source = 0;
	return 0;
}

int bp_cpu_side_times(struct bp_cpu_times *t)
{
	char name[17] = { 0 };

	int rc;

	if (prctl(PR_GET_NAME, name, 0, 0, 0) ||
	    bp_cpu_side_times_at("/proc/self/task", name, sysconf(_SC_CLK_TCK), t)) {
		rc = bp_cpu_process_times(t);
		t->source = BP_CPU_SOURCE_PROCESS;
		return rc;
	}
	t->source = BP_CPU_SOURCE_SIDE;
	return 0;
}
