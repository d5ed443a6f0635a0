/*
 * The block device behind a path: which disk, on which bus, how fast the USB link is.
 * A disk result means little without it — an SD card, a USB 2.0 stick and an NVMe drive
 * differ by two orders of magnitude, and the disk test warns from these fields.
 */
#ifndef BP_BOARD_BLOCKDEV_H
#define BP_BOARD_BLOCKDEV_H

#include <stdint.h>

#include <jansson.h>

/* SD/eMMC card identification from the card's CID register, as the mmc core shows it. */
struct bp_mmc_card {
	char name[32];		/* product name: "SC32G" */
	char type[16];		/* "SD", "MMC" (eMMC), "SDIO" */
	char manfid[16];	/* "0x000003" (SanDisk) */
	char oemid[16];		/* "0x5344" */
	char date[16];		/* "08/2019" */
	char serial[24];
};

struct bp_blockdev_info {
	char path[512];		/* the path asked about; "" for a device number */
	unsigned major, minor;	/* of the filesystem holding path */
	int is_block;		/* 0 for tmpfs/overlay/NFS; -1 when nothing is known */
	char name[32];		/* whole disk: "sda", "mmcblk0", "nvme0n1" */
	char partition[32];	/* "sda1", or "" for a whole-disk filesystem */
	char holder[32];	/* "dm-0" / "md0" when the filesystem sits on a stack */
	char bus[16];		/* "usb", "mmc", "nvme", "sata", "scsi", "virtio", "virtual" */
	char model[96];
	char vendor[64];
	int64_t size_bytes;		/* whole disk */
	int64_t partition_size_bytes;
	int rotational, removable;	/* 1, 0, -1 unknown; USB sticks often claim rotational */
	char scheduler[32];		/* the [selected] I/O scheduler */
	double usb_speed_mbps;		/* negotiated USB link, 480 = USB 2.0; NaN if not USB */
	struct bp_mmc_card mmc;
	char fstype[32], mount_point[512], mount_source[256];
};

/*
 * The device major:minor (as stat() gives for a file on it): follows /sys/dev/block,
 * through device-mapper/md slaves down to the disk, from a partition to its disk.
 * -ENOENT when sysfs does not know the number.
 */
int bp_blockdev_from_devnum(const char *root, unsigned major, unsigned minor,
			    struct bp_blockdev_info *b);

/*
 * stat()s path on this machine and describes its filesystem's device; for major 0
 * (tmpfs, overlay, NFS, btrfs) looks the filesystem up in root's mountinfo instead.
 * Returns 0, or a negative errno when path cannot be stat()ed.
 */
int bp_blockdev_for_path(const char *root, const char *path, struct bp_blockdev_info *b);

/* "sda (SanDisk Cruzer Blade, usb 480M)", "not a block device (tmpfs)". */
void bp_blockdev_describe(const struct bp_blockdev_info *b, char *buf, size_t len);

json_t *bp_blockdev_to_json(const struct bp_blockdev_info *b);

#endif
