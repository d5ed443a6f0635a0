#include "core/proc_stat.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Up to 8 unsigned fields after the label; returns how many were read. */
static int ticks_fields(const char *s, uint64_t v[8])
{
	int n = 0;

	while (n < 8) {
		char *end;
		unsigned long long x;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!isdigit((unsigned char)*s))
			break;
		errno = 0;
		x = strtoull(s, &end, 10);
		if (errno)
			return -1;
		v[n++] = x;
		s = end;
	}
	return n;
}

static void add_line(struct bp_cpu_ticks *t, const uint64_t v[8])
{
	t->user += v[0];
	t->nice += v[1];
	t->system += v[2];
	t->idle += v[3];
	t->iowait += v[4];
	t->irq += v[5];
	t->softirq += v[6];
	t->steal += v[7];
	t->ncpus++;
}

/* The CPU number of a "cpuN " line, -1 for the "cpu " line and -2 for any other. */
static long line_cpu(const char *line, const char **rest)
{
	char *end;
	long n;

	if (strncmp(line, "cpu", 3))
		return -2;
	if (line[3] == ' ' || line[3] == '\t') {
		*rest = line + 3;
		return -1;
	}
	if (!isdigit((unsigned char)line[3]))
		return -2;
	errno = 0;
	n = strtol(line + 3, &end, 10);
	if (errno || n < 0 || n >= CPU_SETSIZE || (*end != ' ' && *end != '\t'))
		return -2;
	*rest = end;
	return n;
}

int bp_proc_stat_cpus_parse(const char *text, const cpu_set_t *want, struct bp_cpu_ticks *t)
{
	const char *line = text;
	bool found = false;

	memset(t, 0, sizeof(*t));
	while (line && *line) {
		const char *rest = NULL;
		long cpu = line_cpu(line, &rest);
		uint64_t v[8] = { 0 };

		if ((want && cpu >= 0 && CPU_ISSET((int)cpu, want)) || (!want && cpu == -1)) {
			if (ticks_fields(rest, v) < 4) {
				memset(t, 0, sizeof(*t));
				return -EINVAL;
			}
			add_line(t, v);
			found = true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!want)
		t->ncpus = 0;
	return found ? 0 : -EINVAL;
}

