#include "board/monitor_proc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/sysfs.h"

int bp_proc_pid_stat_ticks(const char *text, uint64_t *ticks)
{
	/* the command name is in parentheses and may hold blanks and ')': the last one ends it */
	const char *s = strrchr(text, ')');
	uint64_t utime = 0, stime = 0;

	*ticks = 0;
	if (!s)
		return -EINVAL;
	s++;
	/* after ')': state (3), then fields 4..13, then utime (14) and stime (15) */
	for (int field = 3; field <= 15; field++) {
		const char *end;
		char *num_end;
		unsigned long long x = 0;

		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			return -EINVAL;
		if (field == 3) {
			s++;
			continue;
		}
		errno = 0;
		if (field >= 14) {
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			x = strtoull(s, &num_end, 10);
			if (errno)
				return -EINVAL;
			end = num_end;
		} else {
			end = s + strcspn(s, " \n");
		}
		if (field == 14)
			utime = x;
		else if (field == 15)
			stime = x;
		s = end;
	}
	if (utime > UINT64_MAX - stime)
		return -EINVAL;
	*ticks = utime + stime;
	return 0;
}

int bp_proc_net_listen_inode(const char *text, int port, uint64_t *inode)
{
	const char *line = text;

	*inode = 0;
	while (line && *line) {
		char local[128];
		unsigned int st, lport;
		unsigned long long ino;
		const char *colon;

		/* "sl local rem st tx:rx tr:when retrnsmt uid timeout inode ..."; the header fails */
		if (sscanf(line, "%*s %127s %*s %x %*s %*s %*s %*u %*u %llu", local, &st, &ino) == 3 &&
		    (colon = strrchr(local, ':')) && sscanf(colon + 1, "%x", &lport) == 1 &&
		    st == 0x0a && (int)lport == port && ino) {
			*inode = ino;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

int bp_vcgencmd_throttled_parse(const char *text, uint32_t *bits)
{
	char buf[64];
	int64_t v;

	*bits = 0;
	/* vcgencmd prints the value right after '=': only the line's end is trimmed. */
	if (strncmp(text, "throttled=0", 11) || strlen(text) >= sizeof(buf))
		return -EINVAL;
	bp_strlcpy(buf, text + 10, sizeof(buf));
	bp_trim(buf);
	if (strncmp(buf, "0x", 2) && strncmp(buf, "0X", 2))
		return -EINVAL;
	if (!buf[2] || bp_sysfs_parse_int(buf + 2, 16, &v) < 0 || v < 0 || v > UINT32_MAX)
		return -EINVAL;
	*bits = (uint32_t)v;
	return 0;
}

/* b - a into *d; false when it went backwards. */
static bool delta(uint64_t a, uint64_t b, double *d)
{
	if (b < a)
		return false;
	*d = (double)(b - a);
	return true;
}

void bp_cpu_shares_between(const struct bp_cpu_ticks *a, const struct bp_cpu_ticks *b,
			   double own_s, long hz, struct bp_cpu_shares *s)
{
	double user, nice, sys, idle, iow, irq, soft, steal, busy, total;

	s->busy_percent = s->steal_percent = s->other_percent = NAN;
	if (a->ncpus != b->ncpus || hz <= 0 || !(own_s >= 0))
		return;
	if (!delta(a->user, b->user, &user) || !delta(a->nice, b->nice, &nice) ||
	    !delta(a->system, b->system, &sys) || !delta(a->idle, b->idle, &idle) ||
	    !delta(a->iowait, b->iowait, &iow) || !delta(a->irq, b->irq, &irq) ||
	    !delta(a->softirq, b->softirq, &soft) || !delta(a->steal, b->steal, &steal))
		return;
	busy = user + nice + sys + irq + soft;
	total = busy + idle + iow + steal;
	if (total <= 0)
		return;
	s->busy_percent = 100.0 * busy / total;
	s->steal_percent = 100.0 * steal / total;
	s->other_percent = 100.0 * fmax(0.0, busy - own_s * (double)hz) / total;
}
