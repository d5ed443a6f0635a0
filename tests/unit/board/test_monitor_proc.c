/*
 * The monitor's parsers and arithmetic: /proc/stat's per-CPU lines (this VM's own file, whose
 * "cpu" line the kernel sums from the same counters, and damaged ones), /proc/PID/stat,
 * /proc/net/tcp, vcgencmd's answer; the shares between two samples, counters that wrap or go
 * backwards; and the four warnings' thresholds at and past their values.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/monitor_proc.h"
#include "board/monitor_summary.h"
#include "board/sysfs.h"
#include "tap.h"

static const char *fixtures;

static char *slurp(const char *name)
{
	static char buf[16384];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_stat_parse(void)
{
	const char *text = slurp("starve/stat.before");
	struct bp_cpu_ticks all, c0, c1, both;
	cpu_set_t s0, s1, s01, s7;

	CPU_ZERO(&s0);
	CPU_SET(0, &s0);
	CPU_ZERO(&s1);
	CPU_SET(1, &s1);
	CPU_ZERO(&s01);
	CPU_SET(0, &s01);
	CPU_SET(1, &s01);
	CPU_ZERO(&s7);
	CPU_SET(7, &s7);
	CHECK(text != NULL);
	if (!text)
		return;
	CHECK_INT(bp_proc_stat_cpus_parse(text, NULL, &all), 0);
	CHECK_INT(all.user, 494472);
	CHECK_INT(all.steal, 981);
	CHECK_INT(all.ncpus, 0);
	CHECK_INT(bp_proc_stat_cpus_parse(text, &s0, &c0), 0);
	CHECK_INT(c0.user, 231711);
	CHECK_INT(c0.softirq, 95865);
	CHECK_INT(c0.ncpus, 1);
	CHECK_INT(bp_proc_stat_cpus_parse(text, &s1, &c1), 0);
	CHECK_INT(c1.idle, 412614);
	CHECK_INT(bp_proc_stat_cpus_parse(text, &s01, &both), 0);
	CHECK_INT(both.ncpus, 2);
	CHECK_INT(both.user, c0.user + c1.user);
	/* ground truth: the kernel's own sum, each field within a tick per CPU of rounding */
	CHECK(llabs((long long)both.user - (long long)all.user) <= 2);
	CHECK(llabs((long long)both.system - (long long)all.system) <= 2);
	CHECK(llabs((long long)both.idle - (long long)all.idle) <= 2);
	CHECK(llabs((long long)both.steal - (long long)all.steal) <= 2);
	CHECK_INT(bp_proc_stat_cpus_parse(text, &s7, &c0), -EINVAL);  /* no such CPU */
	/* an old kernel's four fields: the rest read as 0 */
	CHECK_INT(bp_proc_stat_cpus_parse("cpu  4 3 2 1\ncpu0 4 3 2 1\n", &s0, &c0), 0);
	CHECK_INT(c0.idle, 1);
	CHECK_INT(c0.steal, 0);
	CHECK_INT(bp_proc_stat_cpus_parse("cpu0 4 3 2\n", &s0, &c0), -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("cpu0 4 3 x 1\n", &s0, &c0), -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("cpu0 99999999999999999999999 3 2 1\n", &s0, &c0),
		  -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("", &s0, &c0), -EINVAL);
	CHECK_INT(bp_proc_stat_cpus_parse("cpux 1 2 3 4\ncpu10 1 2 3 4\n", &s1, &c0), -EINVAL);
}

static void test_pid_stat(void)
{
	/* a real line (this kernel's), and a name with blanks and a ')' inside */
	static const char real[] = "1234 (boardperf) S 1 1234 1234 0 -1 4194560 312 0 0 0 "
				   "157 42 0 0 20 0 3 0 4497 23719936 1132 18446744073709551615\n";
	static const char odd[] = "77 (a) b (c)) R 1 77 77 0 -1 0 0 0 0 0 9 1 0 0 20 0 1 0\n";
	uint64_t t;

	CHECK_INT(bp_proc_pid_stat_ticks(real, &t), 0);
	CHECK_INT(t, 157 + 42);
	CHECK_INT(bp_proc_pid_stat_ticks(odd, &t), 0);
	CHECK_INT(t, 10);
	CHECK_INT(bp_proc_pid_stat_ticks("1234 (x) S 1 2 3\n", &t), -EINVAL);  /* cut short */
	CHECK_INT(bp_proc_pid_stat_ticks("1234 no parenthesis\n", &t), -EINVAL);
	CHECK_INT(bp_proc_pid_stat_ticks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 -5 1 0\n", &t), -EINVAL);
	CHECK_INT(bp_proc_pid_stat_ticks("", &t), -EINVAL);
}

static void test_net_tcp(void)
{
	static const char tcp[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
		"timeout inode\n"
		"   0: 0100007F:1451 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0"
		"        0 9999 1 0000000000000000 20 4 30 10 -1\n"
		"   1: 00000000:1451 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0"
		"        0 806658 1 000000001fae5c61 100 0 0 10 0\n";
	static const char tcp6[] =
		"  sl  local_address                         remote_address                        "
		"st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 00000000000000000000000000000000:3BC5 00000000000000000000000000000000:0000 "
		"0A 00000000:00000000 00:00000000 00000000     0        0 939338 1 00000000514ae558 "
		"100 0 0 10 0\n";
	uint64_t ino;

	/* port 5201 = 0x1451: the established line first is not the listener */
	CHECK_INT(bp_proc_net_listen_inode(tcp, 5201, &ino), 0);
	CHECK_INT(ino, 806658);
	CHECK_INT(bp_proc_net_listen_inode(tcp, 5202, &ino), -ENOENT);
	CHECK_INT(bp_proc_net_listen_inode(tcp6, 0x3bc5, &ino), 0);
	CHECK_INT(ino, 939338);
	CHECK_INT(bp_proc_net_listen_inode("garbage\n", 5201, &ino), -ENOENT);
	CHECK_INT(bp_proc_net_listen_inode("", 5201, &ino), -ENOENT);
}

static void test_vcgencmd(void)
{
	static const struct { const char *text; int rc; uint32_t bits; } cases[] = {
		{ "throttled=0x50005\n", 0, 0x50005 },
		{ "throttled=0x0\n", 0, 0 },
		{ "throttled=0X4", 0, 4 },
		{ "throttled=50005\n", -EINVAL, 0 },	/* vcgencmd always prints the 0x */
		{ "throttled=0x\n", -EINVAL, 0 },
		{ "throttled=0x1ffffffff\n", -EINVAL, 0 },
		{ "throttled=0x5 junk\n", -EINVAL, 0 },
		{ "throttled=  0x50005\n", -EINVAL, 0 },	/* fuzz: the value right after = */
		{ "error=1 error_msg=\"Command not registered\"\n", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	uint32_t bits;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(bp_vcgencmd_throttled_parse(cases[i].text, &bits), cases[i].rc);
		CHECK_INT(bits, cases[i].bits);
	}
}

static struct bp_cpu_ticks ticks(uint64_t user, uint64_t system, uint64_t idle, uint64_t steal,
				 uint64_t softirq, int ncpus)
{
	return (struct bp_cpu_ticks){ .user = user, .system = system, .idle = idle,
				      .steal = steal, .softirq = softirq, .ncpus = ncpus };
}

static void test_shares(void)
{
	struct bp_cpu_ticks a = ticks(1000, 500, 3000, 10, 100, 1), b;
	struct bp_cpu_shares s;

	/* 100 ticks: 50 user, 10 system, 30 idle, 5 steal, 5 softirq; this process 0.30 s */
	b = ticks(1050, 510, 3030, 15, 105, 1);
	bp_cpu_shares_between(&a, &b, 0.30, 100, &s);
	CHECK_NEAR(s.busy_percent, 65.0, 1e-9);
	CHECK_NEAR(s.steal_percent, 5.0, 1e-9);
	CHECK_NEAR(s.other_percent, 35.0, 1e-9);
	/* own time beyond the busy ticks (coarse tick accounting): 0, not negative */
	bp_cpu_shares_between(&a, &b, 0.90, 100, &s);
	CHECK_NEAR(s.other_percent, 0.0, 0);
	/* a counter that went backwards, or wrapped: no figure */
	b = ticks(999, 510, 3030, 15, 105, 1);
	bp_cpu_shares_between(&a, &b, 0.1, 100, &s);
	CHECK(isnan(s.busy_percent) && isnan(s.other_percent) && isnan(s.steal_percent));
	a.idle = UINT64_MAX - 5;
	b = ticks(1050, 510, 20, 15, 105, 1);
	bp_cpu_shares_between(&a, &b, 0.1, 100, &s);
	CHECK(isnan(s.other_percent));
	/* a CPU that went offline: the sums are of different sets */
	a = ticks(1000, 500, 3000, 10, 100, 2);
	b = ticks(1050, 510, 3030, 15, 105, 1);
	bp_cpu_shares_between(&a, &b, 0.1, 100, &s);
	CHECK(isnan(s.other_percent));
	/* no time passed, unknown own time, no clock rate */
	bp_cpu_shares_between(&b, &b, 0.0, 100, &s);
	CHECK(isnan(s.busy_percent));
	a = ticks(1000, 500, 3000, 10, 100, 1);
	bp_cpu_shares_between(&a, &b, NAN, 100, &s);
	CHECK(isnan(s.other_percent));
	bp_cpu_shares_between(&a, &b, -0.1, 100, &s);
	CHECK(isnan(s.other_percent));
	bp_cpu_shares_between(&a, &b, 0.1, 0, &s);
	CHECK(isnan(s.other_percent));
}

static void test_thresholds(void)
{
	/* clock-dropped: more than 10 % below the start */
	CHECK(!bp_monitor_clock_dropped(1000000, 900000));	/* exactly 10 % */
	CHECK(bp_monitor_clock_dropped(1000000, 899999));
	CHECK(!bp_monitor_clock_dropped(1000000, 1000000));
	CHECK(!bp_monitor_clock_dropped(700000, 1000000));	/* it rose */
	CHECK(!bp_monitor_clock_dropped(BP_INT_UNKNOWN, 600000));
	CHECK(!bp_monitor_clock_dropped(1000000, BP_INT_UNKNOWN));
	/* hot: at or above the limit */
	CHECK(bp_monitor_is_hot(75.0, 75.0));
	CHECK(!bp_monitor_is_hot(74.9, 75.0));
	CHECK(bp_monitor_is_hot(BP_MONITOR_HOT_C, BP_MONITOR_HOT_C));
	CHECK(!bp_monitor_is_hot(NAN, 75.0));
	/* busy-machine: more than --busy-warn */
	CHECK(!bp_monitor_is_busy(20.0, 20.0));
	CHECK(bp_monitor_is_busy(20.01, 20.0));
	CHECK(bp_monitor_is_busy(0.5, 0.0));
	CHECK(!bp_monitor_is_busy(0.0, 0.0));
	CHECK(!bp_monitor_is_busy(NAN, 0.0));
	/* throttled: a now bit in any sample, or an occurred bit new since the start */
	CHECK_INT(bp_monitor_throttle_bits(0, 0, 0), 0);
	CHECK_INT(bp_monitor_throttle_bits(0x50000, 0x50000, 0), 0);	/* before the test */
	CHECK_INT(bp_monitor_throttle_bits(0, 0x40000, 0), 0x40000);	/* came and went */
	CHECK_INT(bp_monitor_throttle_bits(0x50000, 0x50005, 0x5), 0x5);
	CHECK_INT(bp_monitor_throttle_bits(0x10000, 0x50004, 0x4), 0x40004);
	CHECK_INT(bp_monitor_throttle_bits(0, 0, 0x8), 0x8);
}

int main(int argc, char **argv)
{
	fixtures = argc > 1 ? argv[1] : "tests/unit/fixtures";
	test_stat_parse();
	test_pid_stat();
	test_net_tcp();
	test_vcgencmd();
	test_shares();
	test_thresholds();
	return tap_done();
}
