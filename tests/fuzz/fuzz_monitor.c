/*
 * Fuzz target for the monitor's parsers of /proc and vcgencmd text (src/board/
 * monitor_proc.c): /proc/stat's per-CPU lines, /proc/PID/stat, /proc/net/tcp and
 * `vcgencmd get_throttled`. A kernel of another version, a damaged fixture or a fake
 * vcgencmd must be refused or read, never read past the text; what is read must hold
 * together: the sum of a set of CPUs is at least each of its lines, and the shares between
 * any two readings are NAN or within 0..100 %.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board/monitor_proc.h"
#include "fuzz.h"

static void check_share(double v)
{
	if (!isnan(v) && (v < 0 || v > 100.0 + 1e-9))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct bp_cpu_ticks all, one, two;
	struct bp_cpu_shares s;
	cpu_set_t c0, c01;
	uint64_t v;
	uint32_t bits;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	CPU_ZERO(&c0);
	CPU_SET(0, &c0);
	c01 = c0;
	CPU_SET(1, &c01);
	bp_proc_stat_cpus_parse(text, NULL, &all);
	if (!bp_proc_stat_cpus_parse(text, &c0, &one) &&
	    !bp_proc_stat_cpus_parse(text, &c01, &two)) {
		if (two.ncpus < one.ncpus || one.ncpus < 1)
			abort();
		/* the shares of any two readings: NAN or a share; own time as the input says */
		bp_cpu_shares_between(&one, &two, (double)(size % 7), 100, &s);
		check_share(s.busy_percent);
		check_share(s.other_percent);
		check_share(s.steal_percent);
		bp_cpu_shares_between(&two, &one, 0.5, 100, &s);
		check_share(s.busy_percent);
	}
	bp_proc_pid_stat_ticks(text, &v);
	bp_proc_net_listen_inode(text, 5201, &v);
	if (!bp_vcgencmd_throttled_parse(text, &bits) && strncmp(text, "throttled=0", 11))
		abort();
	free(text);
	return 0;
}
