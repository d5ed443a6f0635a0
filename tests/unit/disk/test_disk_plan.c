/*
 * `boardperf disk` parameters into a layout: sysbench's arithmetic (file size = total /
 * files, here in whole blocks) and every usage error in one line naming the value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "disk/disk_plan.h"
#include "tap.h"

static struct bp_disk_params defaults(void)
{
	return (struct bp_disk_params){
		.dir = "/tmp", .mode = BP_DISK_RNDRW, .files = 128, .size = 2ULL << 30,
		.block = 16384, .rw_ratio = 1.5, .fsync_freq = 100, .engine = BP_DISK_ENGINE_SYNC,
		.depth = 1, .time_ns = 10000000000ULL, .threads = 1, .interval_ns = 1000000000ULL,
	};
}

static void test_sysbench_layout(void)
{
	struct bp_disk_params p = defaults();
	struct bp_disk_plan pl;
	char err[256] = "";

	CHECK_INT(bp_disk_plan_make(&p, &pl, err, sizeof(err)), 0);
	CHECK_INT(pl.wl.layout.file_size, 16 << 20);
	CHECK_INT(pl.total, 2ULL << 30);
	CHECK(pl.wl.sync_end && pl.wl.sync_freq == 100 && pl.wl.scope == BP_DISK_SYNC_ALL);
	/* an uneven split is cut to whole blocks */
	p.size = 1000000;
	p.files = 3;
	p.block = 4096;
	CHECK_INT(bp_disk_plan_make(&p, &pl, err, sizeof(err)), 0);
	CHECK_INT(pl.wl.layout.file_size, 81 * 4096);
	CHECK_INT(pl.total, 3 * 81 * 4096);
	p.no_fsync_end = true;
	CHECK_INT(bp_disk_plan_make(&p, &pl, err, sizeof(err)), 0);
	CHECK(!pl.wl.sync_end);
}

/* Each usage error: -EINVAL, one line, naming the value. */
static void expect_error(struct bp_disk_params *p, const char *needle)
{
	struct bp_disk_plan pl;
	char err[256] = "";
	int rc = bp_disk_plan_make(p, &pl, err, sizeof(err));

	if (!rc)
		rc = bp_disk_plan_check_dir(p, &pl, err, sizeof(err));
	CHECK_INT(rc, -EINVAL);
	CHECK(strstr(err, needle) != NULL && !strchr(err, '\n'));
	if (!strstr(err, needle))
		printf("#   message: %s\n", err);
}

static void test_usage_errors(void)
{
	struct bp_disk_params p = defaults();

	p.time_ns = 0;
	expect_error(&p, "-t 0 with --requests 0");
	p = defaults();
	p.depth = 32;
	expect_error(&p, "--depth 32: the sync engine");
	p = defaults();
	p.direct = true;
	p.block = 1000;
	expect_error(&p, "--block 1000 with --direct");
	p = defaults();
	p.size = 65536;
	expect_error(&p, "--size 64.0 KiB over 128 files is 512 B per file");
	p = defaults();
	p.dir = "/nonexistent/boardperf";
	expect_error(&p, "--dir '/nonexistent/boardperf': No such file or directory");
	p = defaults();
	p.dir = "/dev/null";
	expect_error(&p, "not a directory");
	p = defaults();
	p.dir = NULL;
	expect_error(&p, "--dir missing");
	/* more than any disk here has free: refused before a byte is written */
	p = defaults();
	p.size = 1ULL << 50;
	expect_error(&p, "only");
}

/* --size left to its default: sysbench's 2 GiB, but 256 MiB on an SD card or USB flash */
static void test_flash_default(void)
{
	const uint64_t two_g = 2ULL << 30;

	CHECK(bp_disk_default_size("mmc", two_g) == BP_DISK_FLASH_SIZE);
	CHECK(bp_disk_default_size("usb", two_g) == BP_DISK_FLASH_SIZE);
	CHECK(bp_disk_default_size("virtio", two_g) == two_g);
	CHECK(bp_disk_default_size("nvme", two_g) == two_g);
	CHECK(bp_disk_default_size("", two_g) == two_g);
	CHECK(bp_disk_default_size(NULL, two_g) == two_g);
	/* never more than the default asked */
	CHECK(bp_disk_default_size("mmc", 64ULL << 20) == 64ULL << 20);
}

int main(void)
{
	test_sysbench_layout();
	test_usage_errors();
	test_flash_default();
	return tap_done();
}
