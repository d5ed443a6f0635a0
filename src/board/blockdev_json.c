#include <math.h>
#include <stdio.h>
#include <string.h>

#include "board/blockdev.h"
#include "board/devpath.h"
#include "board/jsonval.h"
#include "board/sysfs.h"

/* What kind of medium, in the words a forum post would use. */
static const char *medium(const struct bp_blockdev_info *b)
{
	if (strcmp(b->bus, "mmc") == 0)
		return strcmp(b->mmc.type, "MMC") == 0 ? "eMMC" :
		       strcmp(b->mmc.type, "SD") == 0 ? "SD card" : "MMC";
	if (strcmp(b->bus, "usb") == 0)
		return "USB";
	if (strcmp(b->bus, "nvme") == 0)
		return "NVMe";
	return NULL;
}

void bp_blockdev_describe(const struct bp_blockdev_info *b, char *buf, size_t len)
{
	const char *kind = medium(b);
	char speed[16] = "";
	char what[192];
	int show_vendor;

	if (b->is_block == 0) {
		snprintf(buf, len, "not a block device (%s)", b->fstype[0] ? b->fstype : "unknown");
		return;
	}
	if (b->is_block < 0 || !b->name[0]) {
		snprintf(buf, len, "unknown");
		return;
	}
	if (!isnan(b->usb_speed_mbps)) {
		speed[0] = ' ';
		bp_usb_speed_label(b->usb_speed_mbps, speed + 1, sizeof(speed) - 1);
	}
	/* mmc has no vendor name, virtio's "vendor" is a PCI id: neither helps a reader */
	show_vendor = b->vendor[0] && strcmp(b->bus, "mmc") && strncmp(b->vendor, "0x", 2);
	snprintf(what, sizeof(what), "%s%s%s%s%s", kind ? kind : "", kind ? " " : "",
		 show_vendor ? b->vendor : "", show_vendor ? " " : "", b->model);
	bp_trim(what);
	snprintf(buf, len, "%s (%s%s%s%s)", b->name, what, what[0] ? ", " : "", b->bus, speed);
}

static json_t *mmc_to_json(const struct bp_mmc_card *c)
{
	json_t *o = json_object();

	bp_json_put(o, "name", bp_json_str_or_null(c->name));
	bp_json_put(o, "type", bp_json_str_or_null(c->type));
	bp_json_put(o, "manfid", bp_json_str_or_null(c->manfid));
	bp_json_put(o, "oemid", bp_json_str_or_null(c->oemid));
	bp_json_put(o, "date", bp_json_str_or_null(c->date));
	bp_json_put(o, "serial", bp_json_str_or_null(c->serial));
	return o;
}

json_t *bp_blockdev_to_json(const struct bp_blockdev_info *b)
{
	json_t *o = json_object();
	/* nothing known at all (the path could not be stat()ed): no device number either */
	int no_dev = b->is_block < 0 && !b->major;
	char text[256];

	bp_blockdev_describe(b, text, sizeof(text));
	bp_json_put(o, "path", bp_json_str_or_null(b->path));
	bp_json_put(o, "description", bp_json_str_or_null(text));
	bp_json_put(o, "is_block_device", bp_json_bool_or_null(b->is_block));
	bp_json_put(o, "major", no_dev ? json_null() : json_integer(b->major));
	bp_json_put(o, "minor", no_dev ? json_null() : json_integer(b->minor));
	bp_json_put(o, "name", bp_json_str_or_null(b->name));
	bp_json_put(o, "partition", bp_json_str_or_null(b->partition));
	bp_json_put(o, "holder", bp_json_str_or_null(b->holder));
	bp_json_put(o, "bus", bp_json_str_or_null(b->bus));
	bp_json_put(o, "model", bp_json_str_or_null(b->model));
	bp_json_put(o, "vendor", bp_json_str_or_null(b->vendor));
	bp_json_put(o, "size_bytes", bp_json_int_or_null(b->size_bytes));
	bp_json_put(o, "partition_size_bytes", bp_json_int_or_null(b->partition_size_bytes));
	bp_json_put(o, "rotational", bp_json_bool_or_null(b->rotational));
	bp_json_put(o, "removable", bp_json_bool_or_null(b->removable));
	bp_json_put(o, "scheduler", bp_json_str_or_null(b->scheduler));
	bp_json_put(o, "usb_speed_mbps", bp_json_number_or_null(b->usb_speed_mbps));
	bp_usb_speed_label(b->usb_speed_mbps, text, sizeof(text));
	bp_json_put(o, "usb_speed", bp_json_str_or_null(text));
	bp_json_put(o, "mmc", mmc_to_json(&b->mmc));
	bp_json_put(o, "fstype", bp_json_str_or_null(b->fstype));
	bp_json_put(o, "mount_point", bp_json_str_or_null(b->mount_point));
	bp_json_put(o, "mount_source", bp_json_str_or_null(b->mount_source));
	return o;
}
