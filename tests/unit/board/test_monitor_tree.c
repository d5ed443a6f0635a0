/*
 * The monitor against fixture trees: what it finds on a board (tests/unit/fixtures/
 * monitor-board, copied to a temporary tree the test changes between samples, and the rpi4
 * tree as it is), what each sample reads, and the figures and warnings the result gets:
 * unchanged files give none of the four warnings, a lowered clock and cap, a zone at its
 * passive trip point, firmware bits and other load give each of them. The samples are
 * taken by hand (bp_monitor_sample), so nothing here depends on time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board/monitor.h"
#include "board/monitor_result.h"
#include "board/monitor_summary.h"
#include "board/sysfs.h"
#include "result/result.h"
#include "tap.h"

static const char *fixtures;
static char tree[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	if (!f) {
		printf("# cannot write %s\n", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", tree, rel);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

#define CPUFREQ "sys/devices/system/cpu/cpufreq/policy0/"
#define ZONE0 "sys/class/thermal/thermal_zone0/"
#define FW "sys/devices/platform/soc/soc:firmware/get_throttled"
#define PEER_STAT_FMT "4242 (boardperf) S 1 4242 4242 0 -1 4194560 312 0 0 0 %d 0 0 0 20 0 " \
		      "3 0 4497 23719936 1132\n"

/* A fresh copy of monitor-board with a /proc: the machine's counters and a serve peer. */
static int make_tree(void)
{
	char cmd[800], stat[256];

	snprintf(tree, sizeof(tree), "/tmp/bp-monitor-tree.XXXXXX");
	if (!mkdtemp(tree))
		return -errno;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/monitor-board/.' '%s/'", fixtures, tree);
	if (system(cmd))
		return -EIO;
	mkdirs("proc/4242/fd");
	mkdirs("proc/net");
	put("proc/stat", "cpu  1000 0 500 3000 0 0 100 10 0 0\n"
			 "cpu0 1000 0 500 3000 0 0 100 10 0 0\nintr 1 2 3\n");
	put("proc/4242/comm", "boardperf\n");
	/* argv as the kernel shows it: NUL after each word */
	snprintf(cmd, sizeof(cmd), "%s/proc/4242/cmdline", tree);
	{
		FILE *f = fopen(cmd, "w");

		if (f) {
			fwrite("boardperf\0serve\0-p\0" "5201\0", 1, 20, f);
			fclose(f);
		}
	}
	snprintf(stat, sizeof(stat), PEER_STAT_FMT, 500);
	put("proc/4242/stat", stat);
	put("proc/net/tcp", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
			    "retrnsmt   uid  timeout inode\n   0: 00000000:1451 00000000:0000 0A "
			    "00000000:00000000 00:00000000 00000000     0        0 777 1 0 100 0 0 "
			    "10 0\n");
	snprintf(cmd, sizeof(cmd), "%s/proc/4242/fd/3", tree);
	return symlink("socket:[777]", cmd) ? -errno : 0;
}

static void remove_tree(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

static struct bp_monitor *open_tree(const char *sys_root, int peer_port)
{
	static cpu_set_t cpu0;
	struct bp_monitor_cfg cfg = { .sys_root = sys_root, .proc_root = tree, .cpus = &cpu0,
				      .period_ns = 1000000000ULL, .self_comm = "boardperf",
				      .peer_port = peer_port };

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	return bp_monitor_new(&cfg);
}

/* A result with one metric and one interval, as a test leaves it. */
static struct bp_result *measured(void)
{
	struct bp_result *r = bp_result_new("cpu");
	struct bp_interval *iv;

	bp_result_add_metric(r, "x.rate", 1.0, "op/s", BP_BETTER_HIGHER);
	iv = bp_result_add_interval(r, 0.0, 1.0);
	bp_interval_add_metric(iv, "x.rate", 1.0, "op/s", BP_BETTER_HIGHER);
	return r;
}

static const char *warning(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return r->warnings[i].message;
	return NULL;
}

static double num(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	return json_number_value(b ? json_object_get(v, b) : v);
}

static void test_found(void)
{
	struct bp_monitor *m = open_tree(tree, 5201);

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK_INT(m->ncpus, 1);
	CHECK_INT(m->nclocks, 1);
	CHECK_INT(m->clock_cpu[0], 0);
	CHECK_INT(m->nzones, 2);
	CHECK_STR(m->zones[0].type, "cpu-thermal");
	CHECK_NEAR(m->zones[0].limit_c, 75.0, 1e-9);	/* the passive trip, not the critical */
	CHECK(m->zones[0].limit_is_trip);
	CHECK_NEAR(m->zones[1].limit_c, BP_MONITOR_HOT_C, 1e-9);
	CHECK(!m->zones[1].limit_is_trip);
	CHECK_INT(m->npolicies, 1);
	CHECK_INT(m->policy_max_khz[0], 1000000);
	CHECK(m->fw_sysfs);
	CHECK_INT(m->npeers, 1);
	CHECK_INT(m->peers[0].pid, 4242);
	CHECK_INT(m->cap_start_khz, 1000000);
	CHECK_INT(m->n, 1);
	CHECK_INT(bp_monitor_sample_khz(m, 0)[0], 1000000);
	CHECK_NEAR(bp_monitor_sample_temp(m, 0)[0], 51.5, 1e-9);
	CHECK(m->samples[0].fw_ok && m->samples[0].fw_bits == 0);
	CHECK(m->samples[0].ticks_ok && m->samples[0].ticks.user == 1000);
	CHECK_INT(m->samples[0].tis_total_ms, (812345 + 45210) * 10);
	CHECK_INT(m->samples[0].tis_below_ms, 812345 * 10);
	bp_monitor_free(m);
	/* another port: the serve is not this test's peer */
	m = open_tree(tree, 5202);
	CHECK(m && m->npeers == 0);
	bp_monitor_free(m);
}

static void test_quiet(void)
{
	struct bp_monitor *m = open_tree(tree, 5201);
	struct bp_result *r = measured();
	const json_t *iv;

	if (!m || !r) {
		CHECK(0);
		return;
	}
	bp_monitor_sample(m);
	bp_monitor_stop(m);
	CHECK_INT(m->n, 3);
	CHECK_INT(bp_monitor_to_result(m, r, 20.0), 0);
	CHECK_INT(r->nwarnings, 0);
	CHECK(json_is_object(r->monitor));
	CHECK_INT(num(r->monitor, "clock_khz", "start"), 1000000);
	CHECK_INT(num(r->monitor, "clock_khz", "low"), 1000000);
	CHECK_NEAR(num(r->monitor, "temp_c", "max"), 51.5, 1e-9);
	CHECK_STR(json_string_value(json_object_get(json_object_get(r->monitor, "throttled"),
						    "source")), "sysfs");
	/* the counters did not move: no figure, not 0 % */
	CHECK(json_is_null(json_object_get(r->monitor, "other_percent")));
	iv = r->intervals[0].monitor;
	CHECK(json_is_object(iv));
	CHECK_INT(json_integer_value(json_array_get(json_object_get(iv, "cpu_khz"), 0)), 1000000);
	CHECK_INT(json_array_size(json_object_get(iv, "temp_c")), 2);
	bp_result_free(r);
	bp_monitor_free(m);
}

/* Everything a board can show at once: each warning from its own evidence. */
static void test_all_warnings(void)
{
	struct bp_monitor *m = open_tree(tree, 5201);
	struct bp_result *r = measured();
	const json_t *iv;
	const char *w;
	char stat[256];

	if (!m || !r) {
		CHECK(0);
		return;
	}
	put(CPUFREQ "scaling_cur_freq", "600000\n");
	put(CPUFREQ "scaling_max_freq", "700000\n");
	put(ZONE0 "temp", "75000\n");		/* at the passive trip point */
	put(FW, "50005\n");
	/* 100 more ticks (1 s) at 700 MHz, none at the top clock */
	put(CPUFREQ "stats/time_in_state", "700000 812445\n1000000 45210\n");
	/* 10000 ticks on cpu0: 6000 user, 1000 system, 2000 idle, 1000 steal */
	put("proc/stat", "cpu  7000 0 1500 5000 0 0 100 1010 0 0\n"
			 "cpu0 7000 0 1500 5000 0 0 100 1010 0 0\nintr 1 2 3\n");
	snprintf(stat, sizeof(stat), PEER_STAT_FMT, 2500);  /* the peer: 2000 ticks */
	put("proc/4242/stat", stat);
	bp_monitor_sample(m);
	bp_monitor_stop(m);
	CHECK_INT(m->cap_end_khz, 700000);
	CHECK_INT(bp_monitor_to_result(m, r, 20.0), 0);
	w = warning(r, "throttled");
	CHECK(w && strstr(w, "under-voltage (during the test)") &&
	      strstr(w, "throttled (during the test)") && strstr(w, "0x50005 at the end"));
	w = warning(r, "clock-dropped");
	CHECK(w && strstr(w, "from 1000 MHz at the start to 600 MHz (40 % lower") &&
	      strstr(w, "from 1000 to 700 MHz"));
	w = warning(r, "hot");
	CHECK(w && strstr(w, "zone 0 (cpu-thermal) reached 75.0 °C") &&
	      strstr(w, "passive trip point 75.0"));
	w = warning(r, "busy-machine");
	CHECK(w && strstr(w, "other processes took 50.0 % of the 1 CPU "));
	/* ground truth: (7000 busy - 2000 of the peer - this process's few ticks) / 10000 */
	CHECK_NEAR(num(r->monitor, "other_percent", NULL), 50.0, 0.5);
	CHECK_NEAR(num(r->monitor, "busy_percent", NULL), 70.0, 1e-9);
	CHECK_NEAR(num(r->monitor, "steal_percent", NULL), 10.0, 1e-9);
	CHECK_NEAR(num(r->monitor, "below_max_percent", NULL), 100.0, 1e-9);
	CHECK_INT(num(r->monitor, "clock_khz", "low"), 600000);
	CHECK_INT(num(r->monitor, "peers", NULL), 1);
	iv = r->intervals[0].monitor;
	CHECK_INT(json_integer_value(json_array_get(json_object_get(iv, "cpu_khz"), 0)), 600000);
	CHECK_NEAR(json_number_value(json_array_get(json_object_get(iv, "temp_c"), 0)), 75.0, 1e-9);
	CHECK_INT(json_integer_value(json_object_get(iv, "fw_throttled")), 0x50005);
	CHECK_NEAR(num(iv, "other_percent", NULL), 50.0, 0.5);
	bp_result_free(r);
	/* above the share: no busy-machine, the rest stays */
	r = measured();
	bp_monitor_to_result(m, r, 60.0);
	CHECK(!warning(r, "busy-machine") && warning(r, "hot"));
	bp_result_free(r);
	bp_monitor_free(m);
	/* a zone just below its trip point is not hot */
	put(ZONE0 "temp", "74900\n");
	m = open_tree(tree, 5201);
	r = measured();
	if (m && r) {
		bp_monitor_stop(m);
		bp_monitor_to_result(m, r, 20.0);
		CHECK(!warning(r, "hot") && !warning(r, "clock-dropped"));
		/* the bits were set before the test and stayed: now bits still count */
		CHECK(warning(r, "throttled") != NULL);
	}
	bp_result_free(r);
	bp_monitor_free(m);
}

/* The rpi4 tree as copied from the board: 4 cores on one policy, firmware bits 50005. */
static void test_rpi4(void)
{
	char root[512];
	static cpu_set_t four;
	struct bp_monitor_cfg cfg = { .proc_root = tree, .cpus = &four };
	struct bp_monitor *m;
	struct bp_result *r = measured();

	snprintf(root, sizeof(root), "%s/rpi4", fixtures);
	cfg.sys_root = root;
	CPU_ZERO(&four);
	for (int i = 0; i < 4; i++)
		CPU_SET(i, &four);
	m = bp_monitor_new(&cfg);
	CHECK(m != NULL);
	if (!m || !r) {
		bp_result_free(r);
		return;
	}
	CHECK_INT(m->nclocks, 4);
	CHECK_INT(m->nzones, 1);
	CHECK(m->fw_sysfs && m->samples[0].fw_bits == 0x50005);
	bp_monitor_stop(m);
	bp_monitor_to_result(m, r, 20.0);
	CHECK(warning(r, "throttled") != NULL);
	CHECK(!warning(r, "clock-dropped"));
	bp_result_free(r);
	bp_monitor_free(m);
}

/* Without get_throttled in sysfs, vcgencmd on the PATH at the start and at the end. */
static void test_vcgencmd(void)
{
	char bin[300], path[600], script[400], root[512];
	const char *old = getenv("PATH");
	struct bp_monitor_cfg cfg = { .proc_root = tree, .vcgencmd = true };
	struct bp_monitor *m;
	struct bp_result *r = measured();
	FILE *f;

	snprintf(bin, sizeof(bin), "%s/bin", tree);
	mkdir(bin, 0755);
	snprintf(script, sizeof(script), "%s/vcgencmd", bin);
	f = fopen(script, "w");
	if (!f) {
		CHECK(0);
		bp_result_free(r);
		return;
	}
	/* 0x0 the first time, capped and throttled (now and since) the second */
	fprintf(f, "#!/bin/sh\n[ \"$1\" = get_throttled ] || exit 1\nif [ -e '%s/asked' ]; then "
		"echo throttled=0x60006; else : > '%s/asked'; echo throttled=0x0; fi\n", bin, bin);
	fclose(f);
	chmod(script, 0755);
	snprintf(path, sizeof(path), "%s:%s", bin, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	snprintf(root, sizeof(root), "%s/x86-pc", fixtures);
	cfg.sys_root = root;
	m = bp_monitor_new(&cfg);
	CHECK(m && !m->fw_sysfs && m->vcgencmd && m->vc_start_ok && m->vc_start == 0);
	if (m) {
		bp_monitor_stop(m);
		CHECK(m->vc_end_ok && m->vc_end == 0x60006);
		bp_monitor_to_result(m, r, 20.0);
		CHECK(warning(r, "throttled") && strstr(warning(r, "throttled"), "from vcgencmd"));
	}
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	bp_result_free(r);
	bp_monitor_free(m);
}

/* The thread: started and stopped at once it leaves the first and last samples. */
static void test_thread(void)
{
	struct bp_monitor *m = open_tree(tree, 0);
	struct bp_result *r = bp_result_new("info");

	CHECK(m && bp_monitor_start(m) == 0);
	if (m) {
		bp_monitor_stop(m);
		CHECK(m->n >= 2 && !m->running);
		/* a result that measured nothing gets no monitor */
		bp_monitor_end(m, r, &(struct bp_common_opts){ .busy_warn = 20 });
		CHECK(r->monitor == NULL && r->nwarnings == 0);
	}
	bp_result_free(r);
}

int main(int argc, char **argv)
{
	fixtures = argc > 1 ? argv[1] : "tests/unit/fixtures";
	if (make_tree()) {
		CHECK(!"temporary tree");
		return tap_done();
	}
	test_found();
	test_quiet();
	test_all_warnings();
	test_rpi4();
	test_vcgencmd();
	test_thread();
	remove_tree();
	return tap_done();
}
