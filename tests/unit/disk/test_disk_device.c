/*
 * Naming the device and the warnings decided from it, on fixture trees of real boards:
 * the Cubietruck's SanDisk stick on a 480M link and its SD card, governors that let the
 * clock drop, and the page-cache rules.
 * Usage: test_disk_device FIXTURES DISK_FIXTURES
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "board/blockdev.h"
#include "board/sysfs.h"
#include "disk/disk_device.h"
#include "result/result.h"
#include "tap.h"

static char root_buf[4096];

static const char *board(const char *fixtures, const char *name)
{
	snprintf(root_buf, sizeof(root_buf), "%s/%s", fixtures, name);
	return root_buf;
}

static const char *warning(const struct bp_result *r, const char *code)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i].code, code))
			return r->warnings[i].message;
	return NULL;
}

static struct bp_disk_facts facts(const struct bp_blockdev_info *dev)
{
	return (struct bp_disk_facts){
		.dev = dev, .dir = "/mnt/usb stick", .mode = BP_DISK_RNDRW, .syncs = true,
		.working_set = 3ULL << 30, .mem_total = 2LL << 30, .cached_share = NAN,
		.read_rate = NAN, .write_rate = NAN,
	};
}

static void test_usb_stick(const char *fixtures)
{
	const char *root = board(fixtures, "cubietruck");
	struct bp_blockdev_info dev;
	struct bp_result *r = bp_result_new("disk");
	struct bp_disk_facts f;
	char text[512];

	CHECK_INT(bp_blockdev_from_devnum(root, 8, 1, &dev), 0);
	bp_disk_device_describe(&dev, text, sizeof(text));
	CHECK(strstr(text, "sda") && strstr(text, "usb 480M"));
	CHECK_NEAR(bp_disk_bus_ceiling(&dev), 60e6, 1);
	/* the article's stick: 0.74 MiB/s reads pass the bus easily */
	f = facts(&dev);
	f.read_rate = 0.74 * 1048576;
	f.write_rate = 0.49 * 1048576;
	CHECK_INT(bp_disk_device_warn(r, &f), 0);
	CHECK(warning(r, "usb-2.0-storage") != NULL);
	CHECK(warning(r, "exceeds-bus") == NULL);
	CHECK(warning(r, "page-cache") == NULL); /* 3 GiB over 2 GiB of RAM */
	bp_result_free(r);
	/* 120 MiB/s of reads cannot have crossed a 480 Mbit/s link */
	r = bp_result_new("disk");
	f.read_rate = 120.0 * 1048576;
	CHECK_INT(bp_disk_device_warn(r, &f), 0);
	CHECK(warning(r, "exceeds-bus") && strstr(warning(r, "exceeds-bus"), "read 120 MiB/s"));
	bp_result_free(r);
}

static void test_sd_card(const char *fixtures)
{
	struct bp_blockdev_info dev;
	char text[512];
	struct bp_result *r = bp_result_new("disk");

	CHECK_INT(bp_blockdev_from_devnum(board(fixtures, "cubietruck"), 179, 1, &dev), 0);
	bp_disk_device_describe(&dev, text, sizeof(text));
	CHECK(strstr(text, "SD card") && strstr(text, "manfid 0x000003") &&
	      strstr(text, "date 08/2019"));
	CHECK(isnan(bp_disk_bus_ceiling(&dev)));
	CHECK_INT(bp_disk_device_record(r, &dev), 0);
	CHECK_STR(json_string_value(json_object_get(r->params, "device")), text);
	CHECK_STR(json_string_value(json_object_get(r->params, "filesystem")), "ext4");
	CHECK(json_is_object(json_object_get(json_object_get(r->env, "inventory"), "storage")));
	bp_result_free(r);
}

static void test_page_cache_rules(void)
{
	struct bp_blockdev_info dev = { .is_block = 1, .usb_speed_mbps = NAN };
	struct bp_disk_facts f = facts(&dev);
	struct bp_result *r;

	/* fits in RAM, buffered reads: warned, with the cached share as evidence */
	f.working_set = 1ULL << 30;
	f.cached_share = 0.97;
	r = bp_result_new("disk");
	CHECK_INT(bp_disk_device_warn(r, &f), 0);
	CHECK(warning(r, "page-cache") && strstr(warning(r, "page-cache"), "97 %"));
	bp_result_free(r);
	/* --direct: not */
	f.direct = true;
	r = bp_result_new("disk");
	bp_disk_device_warn(r, &f);
	CHECK(!warning(r, "page-cache"));
	bp_result_free(r);
	/* writes that nothing syncs: warned even above RAM */
	f = facts(&dev);
	f.mode = BP_DISK_RNDWR;
	f.syncs = false;
	r = bp_result_new("disk");
	bp_disk_device_warn(r, &f);
	CHECK(warning(r, "page-cache") && strstr(warning(r, "page-cache"), "no fsync"));
	bp_result_free(r);
	/* tmpfs */
	dev.is_block = 0;
	snprintf(dev.fstype, sizeof(dev.fstype), "tmpfs");
	f = facts(&dev);
	r = bp_result_new("disk");
	bp_disk_device_warn(r, &f);
	CHECK(warning(r, "not-a-block-device") &&
	      strstr(warning(r, "not-a-block-device"), "tmpfs"));
	bp_result_free(r);
}

static void test_governor(const char *fixtures, const char *disk_fixtures)
{
	struct bp_result *r = bp_result_new("disk");

	CHECK_INT(bp_disk_governor_warn(r, board(fixtures, "cubietruck")), 0);
	CHECK(warning(r, "cpu-governor") && strstr(warning(r, "cpu-governor"), "'ondemand'") &&
	      strstr(warning(r, "cpu-governor"), "480 to 960 MHz"));
	bp_result_free(r);
	r = bp_result_new("disk");
	CHECK_INT(bp_disk_governor_warn(r, board(disk_fixtures, "performance")), 0);
	CHECK(!warning(r, "cpu-governor"));
	bp_result_free(r);
	/* no cpufreq at all (a VM): nothing to say */
	r = bp_result_new("disk");
	CHECK_INT(bp_disk_governor_warn(r, board(fixtures, "corrupt")), 0);
	bp_result_free(r);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		printf("Bail out! usage: %s FIXTURES DISK_FIXTURES\n", argv[0]);
		return 1;
	}
	test_usb_stick(argv[1]);
	test_sd_card(argv[1]);
	test_page_cache_rules();
	test_governor(argv[1], argv[2]);
	return tap_done();
}
