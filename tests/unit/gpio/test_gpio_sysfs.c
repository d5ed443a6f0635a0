/*
 * The sysfs method's file protocol on a copy of the virt fixture, with a thread standing in
 * for the kernel: it watches /sys/class/gpio/export and unexport, creates gpioN with its
 * direction and value files when a number is written to export, and, when it is written to
 * unexport, records what direction and value the line was left with and removes it. The
 * method must export, make the line an output at its level, toggle the value file, read it
 * back, put the direction back and unexport; a line someone else exported is refused unless
 * forced, and then left exported.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/signals.h"
#include "gpio/gpio_loop.h"
#include "gpio/gpio_method.h"
#include "stats/histogram.h"
#include "tap.h"

static char tree[256];
static atomic_bool stop;
static char left_direction[16], left_value[16];  /* at unexport */
static atomic_int exports, unexports;

static int read_file(const char *rel, char *buf, size_t len)
{
	char path[1024];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/sys/class/gpio/%s", tree, rel);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void write_file(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/gpio/%s", tree, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void kernel_export(unsigned n)
{
	char rel[64], path[512], dst[512];

	snprintf(path, sizeof(path), "%s/sys/class/gpio/gpio%u", tree, n);
	mkdir(path, 0755);
	snprintf(rel, sizeof(rel), "gpio%u/direction", n);
	write_file(rel, "in\n");
	snprintf(rel, sizeof(rel), "gpio%u/active_low", n);
	write_file(rel, "0\n");
	/* the value file last and whole (renamed into place): its presence is what the
	 * method waits for */
	snprintf(rel, sizeof(rel), "gpio%u/value.new", n);
	write_file(rel, "1\n");
	snprintf(path, sizeof(path), "%s/sys/class/gpio/gpio%u/value.new", tree, n);
	snprintf(dst, sizeof(dst), "%s/sys/class/gpio/gpio%u/value", tree, n);
	rename(path, dst);
	atomic_fetch_add(&exports, 1);
}

static void kernel_unexport(unsigned n)
{
	char rel[64], path[512];
	const char *files[] = { "direction", "value", "active_low" };

	snprintf(rel, sizeof(rel), "gpio%u/direction", n);
	read_file(rel, left_direction, sizeof(left_direction));
	snprintf(rel, sizeof(rel), "gpio%u/value", n);
	read_file(rel, left_value, sizeof(left_value));
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/sys/class/gpio/gpio%u/%s", tree, n, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/sys/class/gpio/gpio%u", tree, n);
	rmdir(path);
	atomic_fetch_add(&unexports, 1);
}

static void *kernel(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	char b[32];

	(void)arg;
	while (!atomic_load(&stop)) {
		if (!read_file("export", b, sizeof(b)) && *b) {
			write_file("export", "");
			kernel_export((unsigned)atoi(b));
		}
		if (!read_file("unexport", b, sizeof(b)) && *b) {
			write_file("unexport", "");
			kernel_unexport((unsigned)atoi(b));
		}
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* the kernel thread has handled n unexports (or a second passed) */
static int wait_unexports(int n)
{
	for (int i = 0; i < 1000 && atomic_load(&unexports) < n; i++)
		usleep(1000);
	return atomic_load(&unexports);
}

static struct bp_gpio_target target(unsigned line, bool force)
{
	return (struct bp_gpio_target){ .chip_path = "/dev/gpiochip0", .chip_name = "gpiochip0",
					.chip_label = "9030000.pl061", .chip_lines = 8,
					.line = line, .sysfs_base = 512, .root = tree,
					.force = force };
}

static void test_export_toggle_restore(void)
{
	struct bp_gpio_target t = target(5, false);
	struct bp_gpio_line *l;
	char err[512] = "", b[16];
	const char *code = NULL;

	l = bp_gpio_sysfs.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (!l) {
		printf("# %s (%s)\n", err, code ? code : "");
		return;
	}
	CHECK_INT(atomic_load(&exports), 1);
	/* an output at the level it had (1): "high" sets both in one write */
	read_file("gpio517/direction", b, sizeof(b));
	CHECK_STR(b, "high");
	CHECK_INT(bp_gpio_sysfs.get(l), 1);
	CHECK_INT(bp_gpio_sysfs.set(l, 0), 0);
	read_file("gpio517/value", b, sizeof(b));
	CHECK_STR(b, "0");
	CHECK_INT(bp_gpio_sysfs.get(l), 0);
	CHECK_INT(bp_gpio_sysfs.set(l, 1), 0);
	CHECK_INT(bp_gpio_sysfs.get(l), 1);
	CHECK(strstr(bp_gpio_sysfs.describe(l), "sysfs") != NULL);
	bp_gpio_sysfs.set(l, 0);
	bp_gpio_sysfs.close(l);
	CHECK_INT(wait_unexports(1), 1);
	CHECK_STR(left_direction, "in");  /* it was an input */
}

/* The loop over the method: every read-back matches on plain files. */
static void test_loop(void)
{
	struct bp_gpio_target t = target(6, false);
	struct bp_gpio_loop_cfg cfg = { .time_ns = 50000000, .readback = 3 };
	struct bp_gpio_loop_result res = { .histo = bp_histo_new() };
	char err[512] = "";
	const char *code = NULL;
	struct bp_gpio_line *l = bp_gpio_sysfs.open(&t, err, sizeof(err), &code);

	CHECK(l != NULL);
	if (l) {
		CHECK_INT(bp_gpio_loop_run(&bp_gpio_sysfs, l, &cfg, &res), 0);
		CHECK(res.pairs >= BP_GPIO_SAMPLE_EVERY);
		CHECK_INT(res.checks, res.writes / 3);
		CHECK_INT(res.mismatches, 0);
		bp_gpio_sysfs.close(l);
		CHECK_INT(wait_unexports(2), 2);
		CHECK_STR(left_value, "0");  /* an input whose last written level was 0 */
	}
	bp_histo_free(res.histo);
}

static void test_busy(void)
{
	struct bp_gpio_target t = target(3, false);
	struct bp_gpio_line *l;
	char err[512] = "", b[16];
	const char *code = NULL;
	int before = atomic_load(&unexports);

	CHECK(bp_gpio_sysfs.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "line-busy");
	CHECK_STR(err, "line 3 of gpiochip0 is in use by \"sysfs\" (--force to take it)");
	t = target(3, true);
	l = bp_gpio_sysfs.open(&t, err, sizeof(err), &code);
	CHECK(l != NULL);
	if (!l)
		return;
	CHECK_INT(bp_gpio_sysfs.set(l, 0), 0);
	bp_gpio_sysfs.close(l);
	usleep(20000);
	/* someone else's export stays, with the direction and level it had */
	CHECK_INT(atomic_load(&unexports), before);
	read_file("gpio515/direction", b, sizeof(b));
	CHECK_STR(b, "in");
}

static void test_no_sysfs(void)
{
	struct bp_gpio_target t = target(1, false);
	char err[512] = "";
	const char *code = NULL;

	t.sysfs_base = -1;
	CHECK(bp_gpio_sysfs.open(&t, err, sizeof(err), &code) == NULL);
	CHECK_STR(code, "unsupported");
	CHECK(strstr(err, "CONFIG_GPIO_SYSFS") != NULL);
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : "tests/unit/gpio/fixtures";
	char cmd[1024];
	pthread_t k;

	snprintf(tree, sizeof(tree), "/tmp/bp-gpio-sysfs-XXXXXX");
	if (!mkdtemp(tree))
		return 1;
	snprintf(cmd, sizeof(cmd), "cp -a '%s/virt/.' '%s/'", fixtures, tree);
	if (system(cmd))
		return 1;
	pthread_create(&k, NULL, kernel, NULL);
	test_export_toggle_restore();
	test_loop();
	test_busy();
	test_no_sysfs();
	atomic_store(&stop, true);
	pthread_join(k, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	if (system(cmd))
		printf("# could not remove %s\n", tree);
	return tap_done();
}
