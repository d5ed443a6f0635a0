#include "board/blockdev.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "board/devpath.h"
#include "board/mountinfo.h"
#include "board/sysfs.h"

/* dm on md on a partition is as deep as real systems stack; more means a loop. */
#define MAX_STACK 8

static void init(struct bp_blockdev_info *b, unsigned major, unsigned minor)
{
	memset(b, 0, sizeof(*b));
	b->major = major;
	b->minor = minor;
	b->is_block = -1;
	b->size_bytes = b->partition_size_bytes = BP_INT_UNKNOWN;
	b->rotational = b->removable = -1;
	b->usb_speed_mbps = NAN;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Sizes are in 512-byte sectors whatever the device's own sector size. */
static int64_t sectors_bytes(const char *root, const char *dev)
{
	int64_t v;

	if (bp_sysfs_int(root, &v, "%s/size", dev) < 0 || v < 0 || v > INT64_MAX / 512)
		return BP_INT_UNKNOWN;
	return v * 512;
}

static int flag(const char *root, const char *dev, const char *file)
{
	int64_t v;

	if (bp_sysfs_int(root, &v, "%s/%s", dev, file) < 0 || (v != 0 && v != 1))
		return -1;
	return (int)v;
}

/* dm-N and mdN list what they are built on in slaves/; follow the first one down. */
static int descend_slaves(const char *root, char *dev, size_t len, struct bp_blockdev_info *b)
{
	for (int depth = 0; depth < MAX_STACK; depth++) {
		char **names;
		int n = bp_sysfs_list(root, "", &names, "%s/slaves", dev);
		char next[1024];
		int ret;

		if (n <= 0)
			return 0;
		if (!b->holder[0])
			bp_strlcpy(b->holder, base_name(dev), sizeof(b->holder));
		ret = bp_sysfs_resolve(root, next, sizeof(next), "%s/slaves/%s", dev, names[0]);
		bp_sysfs_names_free(names, n);
		if (ret < 0)
			return ret;
		bp_strlcpy(dev, next, len);
	}
	return -ELOOP;
}

static void read_scheduler(const char *root, const char *dev, struct bp_blockdev_info *b)
{
	char list[128];
	const char *open, *close;

	if (bp_sysfs_str(root, list, sizeof(list), "%s/queue/scheduler", dev) < 0)
		return;
	open = strchr(list, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close && close > open + 1)
		snprintf(b->scheduler, sizeof(b->scheduler), "%.*s", (int)(close - open - 1),
			 open + 1);
	else if (!strchr(list, ' '))
		bp_strlcpy(b->scheduler, list, sizeof(b->scheduler));
}

static void read_mmc(const char *root, const char *dev, struct bp_mmc_card *c)
{
	bp_sysfs_str(root, c->name, sizeof(c->name), "%s/device/name", dev);
	bp_sysfs_str(root, c->type, sizeof(c->type), "%s/device/type", dev);
	bp_sysfs_str(root, c->manfid, sizeof(c->manfid), "%s/device/manfid", dev);
	bp_sysfs_str(root, c->oemid, sizeof(c->oemid), "%s/device/oemid", dev);
	bp_sysfs_str(root, c->date, sizeof(c->date), "%s/device/date", dev);
	bp_sysfs_str(root, c->serial, sizeof(c->serial), "%s/device/serial", dev);
}

/* Everything about the whole disk at dev ("/sys/devices/.../block/sda"). */
static void read_disk(const char *root, const char *dev, struct bp_blockdev_info *b)
{
	enum bp_bus bus = bp_devpath_bus(dev);

	bp_strlcpy(b->name, base_name(dev), sizeof(b->name));
	bp_strlcpy(b->bus, bp_bus_name(bus), sizeof(b->bus));
	b->size_bytes = sectors_bytes(root, dev);
	b->rotational = flag(root, dev, "queue/rotational");
	b->removable = flag(root, dev, "removable");
	read_scheduler(root, dev, b);
	/* SCSI pads model and vendor with spaces; the reader trims them */
	bp_sysfs_str(root, b->model, sizeof(b->model), "%s/device/model", dev);
	bp_sysfs_str(root, b->vendor, sizeof(b->vendor), "%s/device/vendor", dev);
	if (bus == BP_BUS_MMC) {
		read_mmc(root, dev, &b->mmc);
		if (!b->model[0])
			bp_strlcpy(b->model, b->mmc.name, sizeof(b->model));
	}
	if (bus == BP_BUS_USB)
		bp_devpath_usb_speed(root, dev, &b->usb_speed_mbps);
}

static void set_mount(struct bp_blockdev_info *b, const struct bp_mount_info *m)
{
	bp_strlcpy(b->fstype, m->fstype, sizeof(b->fstype));
	bp_strlcpy(b->mount_point, m->mount_point, sizeof(b->mount_point));
	bp_strlcpy(b->mount_source, m->source, sizeof(b->mount_source));
}

int bp_blockdev_from_devnum(const char *root, unsigned major, unsigned minor,
			    struct bp_blockdev_info *b)
{
	struct bp_mount_info m;
	char dev[1024];
	int ret;

	init(b, major, minor);
	ret = bp_sysfs_resolve(root, dev, sizeof(dev), "/sys/dev/block/%u:%u", major, minor);
	if (ret < 0)
		return ret;
	b->is_block = 1;
	ret = descend_slaves(root, dev, sizeof(dev), b);
	if (ret < 0)
		return ret;
	/* a partition is a subdirectory of its disk and has a "partition" file */
	if (bp_sysfs_exists(root, "%s/partition", dev)) {
		char *slash = strrchr(dev, '/');

		bp_strlcpy(b->partition, base_name(dev), sizeof(b->partition));
		b->partition_size_bytes = sectors_bytes(root, dev);
		if (slash && slash != dev)
			*slash = '\0';
	}
	read_disk(root, dev, b);
	if (bp_mount_find(root, major, minor, NULL, &m) == 0)
		set_mount(b, &m);
	return 0;
}

/* btrfs and friends show an anonymous 0:N; their mount source still names the device. */
static int devnum_of_source(const char *root, const char *source, unsigned *maj, unsigned *min)
{
	char buf[32];

	if (strncmp(source, "/dev/", 5) != 0 || strchr(source + 5, '/'))
		return -ENOENT;
	if (bp_sysfs_str(root, buf, sizeof(buf), "/sys/class/block/%s/dev", source + 5) < 0 ||
	    sscanf(buf, "%u:%u", maj, min) != 2)
		return -ENOENT;
	return 0;
}

int bp_blockdev_for_path(const char *root, const char *path, struct bp_blockdev_info *b)
{
	char real[PATH_MAX];
	struct bp_mount_info m;
	unsigned maj, min;
	struct stat st;
	int have_mount;

	init(b, 0, 0);
	if (!realpath(path, real) || stat(real, &st) < 0)
		return -errno;
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	have_mount = bp_mount_find(root, maj, min, real, &m) == 0;
	if (maj == 0 && have_mount)
		devnum_of_source(root, m.source, &maj, &min);
	if (maj == 0) {
		b->major = 0;
		b->minor = min;
		b->is_block = 0;
	} else if (bp_blockdev_from_devnum(root, maj, min, b) < 0) {
		/* a block device sysfs cannot tell us about: known number, unknown disk */
		init(b, maj, min);
	}
	if (have_mount)
		set_mount(b, &m);
	bp_strlcpy(b->path, real, sizeof(b->path));
	return 0;
}
